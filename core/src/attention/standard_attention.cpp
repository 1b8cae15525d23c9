#include "attn/attention/standard_attention.hpp"

#include <algorithm>

#include "attn/attention/online_softmax.hpp"
#include "hbm_traffic.hpp"
#include "io_options.hpp"
#include "score_row.hpp"

namespace attn {
namespace {

constexpr std::uint64_t kAccBytes = 4;  // fp32 on-chip accumulators and statistics

}  // namespace

template <class T>
StandardAttentionResult<T> standard_attention(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                              const StandardAttentionOptions& options) {
    const AttentionProblem p = validate_attention(q, k, v, options);
    const BlockSizes blocks = detail::io_blocks(options, p);
    const std::size_t br = blocks.block_q, bc = blocks.block_k, L = p.q_len, S = p.kv_len;
    const std::size_t D = p.head_dim, Dv = p.value_dim;
    const std::uint64_t eb = options.element_bytes;

    StandardAttentionResult<T> r;
    r.output = Tensor4<T>(p.output_shape());
    r.lse.assign(p.batch * p.q_heads * L, T(0));
    r.block_q = br;
    r.block_k = bc;
    r.num_q_blocks = detail::ceil_div(L, br);
    r.num_k_blocks = detail::ceil_div(S, bc);
    StandardStats& st = r.stats;
    st.hbm_intermediate_bytes = 2 * p.batch * p.q_heads * L * S * eb;
    detail::HbmTraffic traffic(st.hbm_bytes_read, st.hbm_bytes_written);

    // The HBM copies of S and P for one head.
    std::vector<T> hbm_s(L * S), hbm_p(L * S);
    std::vector<T> acc;  // O_i on chip, rows x Dv
    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            const bool tracing = options.trace && b == options.trace_batch && h == options.trace_head;
            traffic.set_listing(tracing);
            const StandardStats head_start = st;
            std::uint64_t stored = 0;  // S and P bytes of this head written so far
            auto record = [&](StandardTraceStep<T> step, std::uint64_t sram) {
                step.hbm_bytes_read = st.hbm_bytes_read - head_start.hbm_bytes_read;
                step.hbm_bytes_written = st.hbm_bytes_written - head_start.hbm_bytes_written;
                step.hbm_bytes_stored = stored;
                step.flops = st.flops - head_start.flops;
                step.sram_bytes_held = sram;
                step.transfers = traffic.take_step();
                r.trace.push_back(std::move(step));
            };
            auto step_of = [](StandardStepKind kind, std::size_t qb, std::size_t kb, std::size_t r0, std::size_t r1,
                              std::size_t c0, std::size_t c1) {
                return StandardTraceStep<T>{kind, qb, kb, r0, r1, c0, c1, {}, {}, {}, {}, {}, 0, 0, 0, 0, 0, {}};
            };
            auto sram_peak = [&](std::uint64_t bytes) {
                st.peak_sram_bytes = std::max(st.peak_sram_bytes, bytes);
                return bytes;
            };
            const T* values = v.row(b, p.kv_head_of(h), 0);

            // Pass 1: S = scale * Q K^T (+ mask), block by block, written to HBM.
            for (std::size_t qb = 0; qb < r.num_q_blocks; ++qb) {
                const std::size_t row0 = qb * br, rows = std::min(br, L - row0);
                traffic.read(HbmMatrix::q, row0, row0 + rows, 0, D, eb);
                const std::uint64_t q_bytes = sram_peak(rows * D * eb);
                if (tracing) record(step_of(StandardStepKind::load_q, qb, 0, row0, row0 + rows, 0, 0), q_bytes);
                for (std::size_t kb = 0; kb < r.num_k_blocks; ++kb) {
                    const std::size_t col0 = kb * bc, cols = std::min(bc, S - col0);
                    traffic.read(HbmMatrix::k, col0, col0 + cols, 0, D, eb);
                    for (std::size_t i = row0; i < row0 + rows; ++i) {
                        detail::score_row(p, options, q, k, b, h, i, col0, col0 + cols, &hbm_s[i * S + col0]);
                    }
                    st.flops += 2 * rows * cols * D;
                    traffic.write(HbmMatrix::s, row0, row0 + rows, col0, col0 + cols, eb);
                    stored += rows * cols * eb;
                    // Q_i and K_j in the input dtype, S_ij accumulated in fp32.
                    const std::uint64_t sram = sram_peak(q_bytes + cols * D * eb + rows * cols * kAccBytes);
                    if (tracing) {
                        auto s = step_of(StandardStepKind::score_tile, qb, kb, row0, row0 + rows, col0, col0 + cols);
                        for (std::size_t i = row0; i < row0 + rows; ++i)
                            s.scores.insert(s.scores.end(), &hbm_s[i * S + col0], &hbm_s[i * S + col0 + cols]);
                        record(std::move(s), sram);
                    }
                }
            }

            // Pass 2: P = softmax(S), Br whole rows at a time.
            for (std::size_t qb = 0; qb < r.num_q_blocks; ++qb) {
                const std::size_t row0 = qb * br, rows = std::min(br, L - row0);
                traffic.read(HbmMatrix::s, row0, row0 + rows, 0, S, eb);
                auto s = step_of(StandardStepKind::softmax_rows, qb, 0, row0, row0 + rows, 0, S);
                for (std::size_t i = row0; i < row0 + rows; ++i) {
                    // One update over the whole row is the classic max-subtracted softmax: it
                    // returns exp(s - max) in the P row and the max and sum in `state`.
                    online_softmax::State<T> state;
                    T* prow = &hbm_p[i * S];
                    online_softmax::update<T>(state, nullptr, 0, &hbm_s[i * S], S, nullptr, 0, prow);
                    if (state.l > T(0)) {  // a fully masked row keeps its zeros
                        const T inv_l = T(1) / state.l;
                        for (std::size_t j = 0; j < S; ++j) prow[j] *= inv_l;
                    }
                    r.lse[(b * p.q_heads + h) * L + i] = online_softmax::finalize<T>(state, nullptr, 0, nullptr);
                    if (tracing) {
                        s.m.push_back(state.m);
                        s.l.push_back(state.l);
                    }
                }
                traffic.write(HbmMatrix::p, row0, row0 + rows, 0, S, eb);
                stored += rows * S * eb;
                // Whole rows of S and P in fp32, plus their max and sum.
                const std::uint64_t sram = sram_peak(2 * rows * S * kAccBytes + 2 * rows * kAccBytes);
                if (tracing) {
                    s.scores.assign(&hbm_s[row0 * S], &hbm_s[(row0 + rows) * S]);
                    s.probs.assign(&hbm_p[row0 * S], &hbm_p[(row0 + rows) * S]);
                    record(std::move(s), sram);
                }
            }

            // Pass 3: O = P V, accumulated on chip per query block.
            for (std::size_t qb = 0; qb < r.num_q_blocks; ++qb) {
                const std::size_t row0 = qb * br, rows = std::min(br, L - row0);
                acc.assign(rows * Dv, T(0));
                for (std::size_t kb = 0; kb < r.num_k_blocks; ++kb) {
                    const std::size_t col0 = kb * bc, cols = std::min(bc, S - col0);
                    traffic.read(HbmMatrix::p, row0, row0 + rows, col0, col0 + cols, eb);
                    traffic.read(HbmMatrix::v, col0, col0 + cols, 0, Dv, eb);
                    for (std::size_t i = 0; i < rows; ++i) {
                        const T* prow = &hbm_p[(row0 + i) * S];
                        for (std::size_t j = col0; j < col0 + cols; ++j) {
                            if (prow[j] == T(0)) continue;
                            const T* vj = values + j * Dv;
                            for (std::size_t c = 0; c < Dv; ++c) acc[i * Dv + c] += prow[j] * vj[c];
                        }
                    }
                    st.flops += 2 * rows * cols * Dv;
                    // P_ij and V_j in the input dtype, O_i accumulated in fp32.
                    const std::uint64_t sram = sram_peak(rows * cols * eb + cols * Dv * eb + rows * Dv * kAccBytes);
                    if (tracing) {
                        auto s = step_of(StandardStepKind::pv_tile, qb, kb, row0, row0 + rows, col0, col0 + cols);
                        for (std::size_t i = row0; i < row0 + rows; ++i)
                            s.probs.insert(s.probs.end(), &hbm_p[i * S + col0], &hbm_p[i * S + col0 + cols]);
                        s.output = acc;
                        record(std::move(s), sram);
                    }
                }
                std::copy(acc.begin(), acc.end(), r.output.row(b, h, row0));
                traffic.write(HbmMatrix::o, row0, row0 + rows, 0, Dv, eb);
                if (tracing) {
                    auto s = step_of(StandardStepKind::write_o, qb, 0, row0, row0 + rows, 0, 0);
                    s.output = acc;
                    record(std::move(s), rows * Dv * kAccBytes);
                }
            }
        }
    }
    return r;
}

template StandardAttentionResult<float> standard_attention(const Tensor4<float>&, const Tensor4<float>&,
                                                           const Tensor4<float>&, const StandardAttentionOptions&);
template StandardAttentionResult<double> standard_attention(const Tensor4<double>&, const Tensor4<double>&,
                                                            const Tensor4<double>&, const StandardAttentionOptions&);

}  // namespace attn
