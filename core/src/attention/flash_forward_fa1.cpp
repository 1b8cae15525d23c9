// FlashAttention-1's loop order (Dao et al. 2022, arXiv:2205.14135, Algorithm 1): key/value blocks
// outer, query blocks inner, O, l and m living in HBM between visits.
#include <algorithm>
#include <limits>

#include "flash_forward_detail.hpp"
#include "score_row.hpp"

namespace attn::detail {

template <class T>
void flash_forward_fa1(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v, const FlashOptions& options,
                       const AttentionProblem& p, FlashResult<T>& r) {
    const std::size_t br = r.block_q, bc = r.block_k, dv = p.value_dim;
    const std::uint64_t eb = options.element_bytes;
    FlashStats& st = r.stats;
    HbmTraffic traffic(st.hbm_bytes_read, st.hbm_bytes_written);

    // The HBM copies of m and l for one head; O lives directly in r.output.
    std::vector<T> hbm_m(p.q_len), hbm_l(p.q_len);
    QueryBlock<T> blk;
    online_softmax::State<T> tile;
    std::vector<T> tile_acc(dv);
    // The last query row sees the most keys under either causal alignment: a K/V block it cannot
    // see is needed by no query block and is never loaded.
    const std::size_t any_key_limit = causal_key_end(p.q_len - 1, p.q_len, p.kv_len, options.causal);

    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            HeadRecorder<T> rec(r, traffic, options.trace && b == options.trace_batch && h == options.trace_head);
            const T* values = v.row(b, p.kv_head_of(h), 0);
            T* hbm_o = r.output.row(b, h, 0);

            // Line 2: O = 0, l = 0, m = -inf in HBM (r.output is already zero).
            std::fill(hbm_m.begin(), hbm_m.end(), -std::numeric_limits<T>::infinity());
            std::fill(hbm_l.begin(), hbm_l.end(), T(0));
            traffic.write(HbmMatrix::o, 0, p.q_len, 0, dv, eb);
            traffic.write(HbmMatrix::row_sum, 0, p.q_len, 0, 1, kStatBytes);
            traffic.write(HbmMatrix::row_max, 0, p.q_len, 0, 1, kStatBytes);
            if (rec.tracing()) {
                blk.reset(p.q_len, dv, 0);
                rec.record(blk.snapshot(FlashStepKind::init_o, 0, 0, 0, 0, 0), 0);
            }

            for (std::size_t kb = 0; kb < r.num_k_blocks; ++kb) {
                const std::size_t col0 = kb * bc, cols = std::min(bc, p.kv_len - col0);
                const std::uint64_t kv_bytes = cols * (p.head_dim + dv) * eb;
                const bool needed = col0 < any_key_limit;
                if (needed) {  // line 6
                    traffic.read(HbmMatrix::k, col0, col0 + cols, 0, p.head_dim, eb);
                    traffic.read(HbmMatrix::v, col0, col0 + cols, 0, dv, eb);
                    st.peak_sram_bytes = std::max(st.peak_sram_bytes, kv_bytes);
                    if (rec.tracing()) {
                        blk.reset(0, dv, 0);
                        rec.record(blk.snapshot(FlashStepKind::load_kv, 0, kb, 0, col0, col0 + cols), kv_bytes);
                    }
                }

                for (std::size_t qb = 0; qb < r.num_q_blocks; ++qb) {
                    const std::size_t row0 = qb * br, rows = std::min(br, p.q_len - row0);
                    const bool skip = !needed || col0 >= causal_key_end(row0 + rows - 1, p.q_len, p.kv_len, options.causal);
                    if (skip) {
                        ++st.tiles_skipped;
                        if (rec.tracing()) {
                            blk.reset(rows, dv, 0);
                            for (std::size_t i = 0; i < rows; ++i) {
                                blk.state[i] = {hbm_m[row0 + i], hbm_l[row0 + i]};
                                for (std::size_t c = 0; c < dv; ++c)
                                    blk.acc[i * dv + c] = hbm_o[(row0 + i) * dv + c] * hbm_l[row0 + i];
                            }
                            rec.record(blk.snapshot(FlashStepKind::skip, qb, kb, row0, col0, col0 + cols),
                                       needed ? kv_bytes : 0);
                        }
                        continue;
                    }
                    ++st.tiles_computed;
                    // Line 8: Q_i, O_i, l_i, m_i come back from HBM for every K/V block.
                    traffic.read(HbmMatrix::q, row0, row0 + rows, 0, p.head_dim, eb);
                    traffic.read(HbmMatrix::o, row0, row0 + rows, 0, dv, eb);
                    traffic.read(HbmMatrix::row_sum, row0, row0 + rows, 0, 1, kStatBytes);
                    traffic.read(HbmMatrix::row_max, row0, row0 + rows, 0, 1, kStatBytes);
                    st.flops += 2 * rows * cols * (p.head_dim + dv);
                    // K_j, V_j; Q_i, O_i; m_i, l_i; the score tile; the tile's P~V, m~, l~ (fp32).
                    const std::uint64_t sram = kv_bytes + rows * (p.head_dim + dv) * eb + rows * 2 * kStatBytes +
                                               rows * cols * kStatBytes + rows * (dv + 2) * kStatBytes;
                    st.peak_sram_bytes = std::max(st.peak_sram_bytes, sram);

                    blk.reset(rows, dv, cols);
                    for (std::size_t i = 0; i < rows; ++i) {
                        const std::size_t row = row0 + i;
                        T* acc = &blk.acc[i * dv];
                        // diag(l_i) O_i: the unnormalised sum the stored, normalised O_i stands for.
                        blk.state[i] = {hbm_m[row], hbm_l[row]};
                        for (std::size_t c = 0; c < dv; ++c) acc[c] = hbm_o[row * dv + c] * hbm_l[row];

                        // Line 10: the tile on its own -- m~ = rowmax(S), P~ = exp(S - m~), l~ = rowsum(P~).
                        T* s = &blk.scores[i * cols];
                        T* w = &blk.weights[i * cols];
                        score_row(p, options, q, k, b, h, row, col0, col0 + cols, s);
                        tile = {};
                        std::fill(tile_acc.begin(), tile_acc.end(), T(0));
                        online_softmax::update(tile, tile_acc.data(), dv, s, cols, values + col0 * dv, dv, w);

                        // Lines 11-12: m_new = max(m, m~), l_new = e^(m - m_new) l + e^(m~ - m_new) l~,
                        // O_i = (e^(m - m_new) diag(l) O_i + e^(m~ - m_new) P~ V_j) / l_new.
                        const T m_old = blk.state[i].m;
                        online_softmax::merge(blk.state[i], acc, tile, tile_acc.data(), dv);
                        blk.rescale[i] = online_softmax::rescale_factor(m_old, blk.state[i].m);
                        online_softmax::finalize(blk.state[i], acc, dv, hbm_o + row * dv);
                        hbm_m[row] = blk.state[i].m;
                        hbm_l[row] = blk.state[i].l;
                        if (rec.tracing()) {  // weights relative to the merged max, as the trace documents
                            const T beta = online_softmax::rescale_factor(tile.m, blk.state[i].m);
                            for (std::size_t j = 0; j < cols; ++j) w[j] *= beta;
                        }
                    }
                    // Line 13 (and 12): the normalised O_i, l_i and m_i go back to HBM.
                    traffic.write(HbmMatrix::o, row0, row0 + rows, 0, dv, eb);
                    traffic.write(HbmMatrix::row_sum, row0, row0 + rows, 0, 1, kStatBytes);
                    traffic.write(HbmMatrix::row_max, row0, row0 + rows, 0, 1, kStatBytes);
                    if (rec.tracing()) rec.record(blk.snapshot(FlashStepKind::tile, qb, kb, row0, col0, col0 + cols), sram);
                }
            }

            // FA1 returns m and l; the log-sum-exp m + log(l) is what the backward pass consumes.
            for (std::size_t i = 0; i < p.q_len; ++i) {
                r.lse[(b * p.q_heads + h) * p.q_len + i] =
                    online_softmax::finalize<T>({hbm_m[i], hbm_l[i]}, nullptr, 0, nullptr);
            }
        }
    }
}

template void flash_forward_fa1(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&,
                                const FlashOptions&, const AttentionProblem&, FlashResult<float>&);
template void flash_forward_fa1(const Tensor4<double>&, const Tensor4<double>&, const Tensor4<double>&,
                                const FlashOptions&, const AttentionProblem&, FlashResult<double>&);

}  // namespace attn::detail
