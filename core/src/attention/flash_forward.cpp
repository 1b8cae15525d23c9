#include "attn/attention/flash_forward.hpp"

#include <algorithm>
#include <string>

#include "flash_forward_detail.hpp"
#include "io_options.hpp"
#include "score_row.hpp"

namespace attn {
namespace detail {

BlockSizes flash_blocks(const FlashOptions& o, const AttentionProblem& p) {
    const BlockSizes blocks = io_blocks(o, p);
    if (o.loop_order != FlashLoopOrder::fa2_q_outer && o.loop_order != FlashLoopOrder::fa1_kv_outer) {
        throw Error("loop_order: must be fa2_q_outer or fa1_kv_outer");
    }
    return blocks;
}

}  // namespace detail

namespace {

// FlashAttention-2's loop order: query blocks outer, the softmax state stays on chip for a whole
// row of blocks and is normalised once, at the end (FA2 paper, Algorithm 1).
template <class T>
void flash_forward_fa2(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v, const FlashOptions& options,
                       const AttentionProblem& p, FlashResult<T>& r) {
    using detail::kStatBytes;
    const std::size_t br = r.block_q, bc = r.block_k;
    const std::uint64_t eb = options.element_bytes;
    FlashStats& st = r.stats;
    detail::HbmTraffic traffic(st.hbm_bytes_read, st.hbm_bytes_written);

    detail::QueryBlock<T> blk;
    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            detail::HeadRecorder<T> rec(r, traffic, options.trace && b == options.trace_batch && h == options.trace_head);
            const T* values = v.row(b, p.kv_head_of(h), 0);

            for (std::size_t qb = 0; qb < r.num_q_blocks; ++qb) {
                const std::size_t row0 = qb * br, rows = std::min(br, p.q_len - row0);
                blk.reset(rows, p.value_dim, std::min(bc, p.kv_len));
                traffic.read(HbmMatrix::q, row0, row0 + rows, 0, p.head_dim, eb);
                // Q_i, the accumulator and m, l stay on chip for the whole inner loop.
                const std::uint64_t resident = rows * p.head_dim * eb + rows * (p.value_dim + 2) * kStatBytes;
                st.peak_sram_bytes = std::max(st.peak_sram_bytes, resident);
                if (rec.tracing()) rec.record(blk.snapshot(FlashStepKind::load_q, qb, 0, row0, 0, 0), resident);
                // Causal ends grow with the row, so the block's last row bounds every key it can see.
                const std::size_t key_limit = causal_key_end(row0 + rows - 1, p.q_len, p.kv_len, options.causal);

                for (std::size_t kb = 0; kb < r.num_k_blocks; ++kb) {
                    const std::size_t col0 = kb * bc, cols = std::min(bc, p.kv_len - col0);
                    if (col0 >= key_limit) {
                        ++st.tiles_skipped;
                        std::fill(blk.rescale.begin(), blk.rescale.end(), T(1));
                        if (rec.tracing()) {
                            rec.record(blk.snapshot(FlashStepKind::skip, qb, kb, row0, col0, col0 + cols), resident);
                        }
                        continue;
                    }
                    ++st.tiles_computed;
                    traffic.read(HbmMatrix::k, col0, col0 + cols, 0, p.head_dim, eb);
                    traffic.read(HbmMatrix::v, col0, col0 + cols, 0, p.value_dim, eb);
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
                    if (rec.tracing()) rec.record(blk.snapshot(FlashStepKind::tile, qb, kb, row0, col0, col0 + cols), sram);
                }

                for (std::size_t i = 0; i < rows; ++i) {
                    r.lse[(b * p.q_heads + h) * p.q_len + row0 + i] = online_softmax::finalize(
                        blk.state[i], &blk.acc[i * p.value_dim], p.value_dim, r.output.row(b, h, row0 + i));
                }
                traffic.write(HbmMatrix::o, row0, row0 + rows, 0, p.value_dim, eb);
                traffic.write(HbmMatrix::lse, row0, row0 + rows, 0, 1, kStatBytes);
                std::fill(blk.rescale.begin(), blk.rescale.end(), T(1));
                if (rec.tracing()) rec.record(blk.snapshot(FlashStepKind::write_o, qb, 0, row0, 0, 0), resident);
            }
        }
    }
}

}  // namespace

template <class T>
FlashResult<T> flash_forward(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                             const FlashOptions& options) {
    const AttentionProblem p = validate_attention(q, k, v, options);
    const BlockSizes blocks = detail::flash_blocks(options, p);

    FlashResult<T> r;
    r.output = Tensor4<T>(p.output_shape());
    r.lse.assign(p.batch * p.q_heads * p.q_len, T(0));
    r.block_q = blocks.block_q;
    r.block_k = blocks.block_k;
    r.num_q_blocks = detail::ceil_div(p.q_len, r.block_q);
    r.num_k_blocks = detail::ceil_div(p.kv_len, r.block_k);
    if (options.loop_order == FlashLoopOrder::fa1_kv_outer) {
        detail::flash_forward_fa1(q, k, v, options, p, r);
    } else {
        flash_forward_fa2(q, k, v, options, p, r);
    }
    return r;
}

template FlashResult<float> flash_forward(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&,
                                          const FlashOptions&);
template FlashResult<double> flash_forward(const Tensor4<double>&, const Tensor4<double>&, const Tensor4<double>&,
                                           const FlashOptions&);

}  // namespace attn
