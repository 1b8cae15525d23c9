#include "attn/attention/flash_forward.hpp"

#include <algorithm>
#include <string>

#include "attn/attention/online_softmax.hpp"
#include "score_row.hpp"

namespace attn {
namespace {

constexpr std::size_t kMaxBlock = 4096;
constexpr std::uint64_t kStatBytes = 4;  // fp32 statistics, scores and accumulator

void validate_flash_options(const FlashOptions& o, const AttentionProblem& p) {
    if (o.block_q < 1 || o.block_q > kMaxBlock) {
        throw Error("block_q: must be in [1, " + std::to_string(kMaxBlock) + "], got " + std::to_string(o.block_q));
    }
    if (o.block_k < 1 || o.block_k > kMaxBlock) {
        throw Error("block_k: must be in [1, " + std::to_string(kMaxBlock) + "], got " + std::to_string(o.block_k));
    }
    if (o.element_bytes != 1 && o.element_bytes != 2 && o.element_bytes != 4 && o.element_bytes != 8) {
        throw Error("element_bytes: must be 1, 2, 4 or 8, got " + std::to_string(o.element_bytes));
    }
    if (o.trace && (o.trace_batch >= p.batch || o.trace_head >= p.q_heads)) {
        throw Error("trace_batch/trace_head: must be < (" + std::to_string(p.batch) + ", " + std::to_string(p.q_heads) +
                    "), got (" + std::to_string(o.trace_batch) + ", " + std::to_string(o.trace_head) + ")");
    }
}

// Accumulates the state of one query block and records trace steps from it.
template <class T>
struct QueryBlock {
    std::size_t rows = 0, value_dim = 0;
    std::vector<online_softmax::State<T>> state;
    std::vector<T> acc;      // rows x value_dim
    std::vector<T> rescale;  // per row, of the last step
    std::vector<T> scores, weights;

    void reset(std::size_t n_rows, std::size_t dv, std::size_t max_cols) {
        rows = n_rows;
        value_dim = dv;
        state.assign(rows, {});
        acc.assign(rows * dv, T(0));
        rescale.assign(rows, T(1));
        scores.resize(rows * max_cols);
        weights.resize(rows * max_cols);
    }

    FlashTraceStep<T> snapshot(FlashStepKind kind, std::size_t q_block, std::size_t k_block, std::size_t row_begin,
                               std::size_t col_begin, std::size_t col_end) const {
        FlashTraceStep<T> s{kind, q_block, k_block, row_begin, row_begin + rows, col_begin, col_end,
                            {}, {}, {}, {}, rescale, acc, std::vector<T>(rows * value_dim), 0, 0, 0, 0};
        if (kind == FlashStepKind::tile) {
            const std::size_t n = rows * (col_end - col_begin);
            s.scores.assign(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(n));
            s.weights.assign(weights.begin(), weights.begin() + static_cast<std::ptrdiff_t>(n));
        }
        for (std::size_t r = 0; r < rows; ++r) {
            s.m.push_back(state[r].m);
            s.l.push_back(state[r].l);
            online_softmax::finalize(state[r], &acc[r * value_dim], value_dim, &s.output[r * value_dim]);
        }
        return s;
    }
};

}  // namespace

template <class T>
FlashResult<T> flash_forward(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                             const FlashOptions& options) {
    const AttentionProblem p = validate_attention(q, k, v, options);
    validate_flash_options(options, p);
    const std::size_t br = options.block_q, bc = options.block_k;
    const std::uint64_t eb = options.element_bytes;

    FlashResult<T> r;
    r.output = Tensor4<T>(p.output_shape());
    r.lse.assign(p.batch * p.q_heads * p.q_len, T(0));
    r.num_q_blocks = (p.q_len + br - 1) / br;
    r.num_k_blocks = (p.kv_len + bc - 1) / bc;
    FlashStats& st = r.stats;

    QueryBlock<T> blk;
    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            const bool tracing = options.trace && b == options.trace_batch && h == options.trace_head;
            const FlashStats head_start = st;
            // Stamps a trace step with the counters of this head so far and the live on-chip bytes.
            auto record = [&](FlashTraceStep<T> step, std::uint64_t sram) {
                step.hbm_bytes_read = st.hbm_bytes_read - head_start.hbm_bytes_read;
                step.hbm_bytes_written = st.hbm_bytes_written - head_start.hbm_bytes_written;
                step.flops = st.flops - head_start.flops;
                step.sram_bytes_held = sram;
                r.trace.push_back(std::move(step));
            };
            const T* values = v.row(b, p.kv_head_of(h), 0);

            for (std::size_t qb = 0; qb < r.num_q_blocks; ++qb) {
                const std::size_t row0 = qb * br, rows = std::min(br, p.q_len - row0);
                blk.reset(rows, p.value_dim, bc);
                st.hbm_bytes_read += rows * p.head_dim * eb;  // Q_i
                // Q_i, the accumulator and m, l stay on chip for the whole inner loop.
                const std::uint64_t resident = rows * p.head_dim * eb + rows * (p.value_dim + 2) * kStatBytes;
                st.peak_sram_bytes = std::max(st.peak_sram_bytes, resident);
                if (tracing) record(blk.snapshot(FlashStepKind::load_q, qb, 0, row0, 0, 0), resident);
                // Causal ends grow with the row, so the block's last row bounds every key it can see.
                const std::size_t key_limit = causal_key_end(row0 + rows - 1, p.q_len, p.kv_len, options.causal);

                for (std::size_t kb = 0; kb < r.num_k_blocks; ++kb) {
                    const std::size_t col0 = kb * bc, cols = std::min(bc, p.kv_len - col0);
                    if (col0 >= key_limit) {
                        ++st.tiles_skipped;
                        std::fill(blk.rescale.begin(), blk.rescale.end(), T(1));
                        if (tracing) record(blk.snapshot(FlashStepKind::skip, qb, kb, row0, col0, col0 + cols), resident);
                        continue;
                    }
                    ++st.tiles_computed;
                    st.hbm_bytes_read += cols * (p.head_dim + p.value_dim) * eb;  // K_j, V_j
                    st.flops += 2 * rows * cols * (p.head_dim + p.value_dim);
                    const std::uint64_t sram =
                        resident + cols * (p.head_dim + p.value_dim) * eb + rows * cols * kStatBytes;
                    st.peak_sram_bytes = std::max(st.peak_sram_bytes, sram);
                    for (std::size_t i = 0; i < rows; ++i) {
                        T* s = &blk.scores[i * cols];
                        detail::score_row(p, options, q, k, b, h, row0 + i, col0, col0 + cols, s);
                        blk.rescale[i] = online_softmax::update(blk.state[i], &blk.acc[i * p.value_dim], p.value_dim, s,
                                                                cols, values + col0 * p.value_dim, p.value_dim,
                                                                &blk.weights[i * cols]);
                    }
                    if (tracing) record(blk.snapshot(FlashStepKind::tile, qb, kb, row0, col0, col0 + cols), sram);
                }

                for (std::size_t i = 0; i < rows; ++i) {
                    r.lse[(b * p.q_heads + h) * p.q_len + row0 + i] = online_softmax::finalize(
                        blk.state[i], &blk.acc[i * p.value_dim], p.value_dim, r.output.row(b, h, row0 + i));
                }
                st.hbm_bytes_written += rows * p.value_dim * eb + rows * kStatBytes;  // O_i and L_i
                std::fill(blk.rescale.begin(), blk.rescale.end(), T(1));
                if (tracing) record(blk.snapshot(FlashStepKind::write_o, qb, 0, row0, 0, 0), resident);
            }
        }
    }
    return r;
}

template FlashResult<float> flash_forward(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&,
                                          const FlashOptions&);
template FlashResult<double> flash_forward(const Tensor4<double>&, const Tensor4<double>&, const Tensor4<double>&,
                                           const FlashOptions&);

}  // namespace attn
