#include "attn/attention/chunked_attention.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/attention/online_softmax.hpp"
#include "io_options.hpp"
#include "score_row.hpp"

namespace attn {
namespace {

constexpr std::size_t kPaperQueryChunk = 1024;  // Rabe & Staats 2021, Figure 1: query_chunk_size=1024

std::size_t chunk_option(const std::optional<std::size_t>& chunk, const char* name, std::size_t fallback,
                         std::size_t length) {
    if (chunk && *chunk < 1) throw Error(std::string(name) + ": must be >= 1, got 0");
    return std::min(chunk.value_or(fallback), length);
}

// ceil(sqrt(n)) in integers.
std::size_t ceil_sqrt(std::size_t n) {
    auto r = static_cast<std::size_t>(std::sqrt(static_cast<double>(n)));
    while (r * r < n) ++r;
    while (r > 1 && (r - 1) * (r - 1) >= n) --r;
    return std::max<std::size_t>(r, 1);
}

}  // namespace

ChunkSizes chunk_sizes(std::size_t q_len, std::size_t kv_len, const ChunkedAttentionOptions& options) {
    return {chunk_option(options.query_chunk, "query_chunk", kPaperQueryChunk, q_len),
            chunk_option(options.key_chunk, "key_chunk", ceil_sqrt(kv_len), kv_len)};
}

template <class T>
ChunkedAttentionResult<T> chunked_attention(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                            const ChunkedAttentionOptions& options) {
    const AttentionProblem p = validate_attention(q, k, v, options);
    const std::size_t L = p.q_len, S = p.kv_len, Dv = p.value_dim;
    const auto [cq, ck] = chunk_sizes(L, S, options);
    if (options.element_bytes != 1 && options.element_bytes != 2 && options.element_bytes != 4 &&
        options.element_bytes != 8) {
        throw Error("element_bytes: must be 1, 2, 4 or 8, got " + std::to_string(options.element_bytes));
    }
    if (options.trace && (options.trace_batch >= p.batch || options.trace_head >= p.q_heads)) {
        throw Error("trace_batch/trace_head: must be < (" + std::to_string(p.batch) + ", " + std::to_string(p.q_heads) +
                    "), got (" + std::to_string(options.trace_batch) + ", " + std::to_string(options.trace_head) + ")");
    }

    ChunkedAttentionResult<T> r;
    r.output = Tensor4<T>(p.output_shape());
    r.lse.assign(p.batch * p.q_heads * L, T(0));
    r.query_chunk = cq;
    r.key_chunk = ck;
    r.num_q_chunks = detail::ceil_div(L, cq);
    r.num_k_chunks = detail::ceil_div(S, ck);
    ChunkedStats& st = r.stats;
    st.dense_score_elements = static_cast<std::uint64_t>(L) * S;

    // The summaries of one query chunk, one per key chunk: (m~, l~) and exp(s - m~) v per row.
    std::vector<online_softmax::State<T>> sum_state(r.num_k_chunks * cq);
    std::vector<T> sum_acc(r.num_k_chunks * cq * Dv);
    std::vector<T> scores(cq * ck);
    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            const bool tracing = options.trace && b == options.trace_batch && h == options.trace_head;
            const T* values = v.row(b, p.kv_head_of(h), 0);
            for (std::size_t qc = 0; qc < r.num_q_chunks; ++qc) {
                const std::size_t row0 = qc * cq, rows = std::min(cq, L - row0);
                const std::uint64_t summary_elements = rows * (Dv + 2);
                for (std::size_t kc = 0; kc < r.num_k_chunks; ++kc) {
                    const std::size_t col0 = kc * ck, cols = std::min(ck, S - col0);
                    online_softmax::State<T>* state = &sum_state[kc * cq];
                    T* acc = &sum_acc[kc * cq * Dv];
                    std::fill(acc, acc + rows * Dv, T(0));
                    for (std::size_t i = 0; i < rows; ++i) {
                        T* s = &scores[i * cols];
                        detail::score_row(p, options, q, k, b, h, row0 + i, col0, col0 + cols, s);
                        state[i] = {};
                        online_softmax::update(state[i], acc + i * Dv, Dv, s, cols, values + col0 * Dv, Dv);
                    }
                    st.flops += 2 * rows * cols * (p.head_dim + Dv);
                    // The summaries so far (this one included) and this chunk's scores.
                    const std::uint64_t live = (kc + 1) * summary_elements + rows * cols;
                    st.peak_intermediate_elements = std::max(st.peak_intermediate_elements, live);
                    if (tracing) {
                        ChunkedTraceStep<T> step{ChunkedStepKind::summarize, qc, kc, row0, row0 + rows, col0,
                                                 col0 + cols, {}, {}, {}, live};
                        for (std::size_t i = 0; i < rows; ++i) {
                            step.m.push_back(state[i].m);
                            step.l.push_back(state[i].l);
                        }
                        r.trace.push_back(std::move(step));
                    }
                }
                // Merge every key chunk's summary into the first, then normalise (paper lines 33-42).
                for (std::size_t i = 0; i < rows; ++i) {
                    for (std::size_t kc = 1; kc < r.num_k_chunks; ++kc) {
                        online_softmax::merge(sum_state[i], &sum_acc[i * Dv], sum_state[kc * cq + i],
                                              &sum_acc[(kc * cq + i) * Dv], Dv);
                    }
                    r.lse[(b * p.q_heads + h) * L + row0 + i] =
                        online_softmax::finalize(sum_state[i], &sum_acc[i * Dv], Dv, r.output.row(b, h, row0 + i));
                }
                if (tracing) {
                    ChunkedTraceStep<T> step{ChunkedStepKind::combine, qc, 0, row0, row0 + rows, 0, 0, {}, {}, {},
                                             r.num_k_chunks * summary_elements};
                    for (std::size_t i = 0; i < rows; ++i) {
                        step.m.push_back(sum_state[i].m);
                        step.l.push_back(sum_state[i].l);
                    }
                    const T* out = r.output.row(b, h, row0);
                    step.output.assign(out, out + rows * Dv);
                    r.trace.push_back(std::move(step));
                }
            }
        }
    }
    st.peak_intermediate_bytes = st.peak_intermediate_elements * options.element_bytes;
    return r;
}

template ChunkedAttentionResult<float> chunked_attention(const Tensor4<float>&, const Tensor4<float>&,
                                                         const Tensor4<float>&, const ChunkedAttentionOptions&);
template ChunkedAttentionResult<double> chunked_attention(const Tensor4<double>&, const Tensor4<double>&,
                                                          const Tensor4<double>&, const ChunkedAttentionOptions&);

}  // namespace attn
