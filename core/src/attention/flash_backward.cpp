#include "attn/attention/flash_backward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/attention/online_softmax.hpp"
#include "hbm_traffic.hpp"
#include "io_options.hpp"
#include "score_row.hpp"

namespace attn {
namespace {

constexpr std::uint64_t kAccBytes = 4;  // fp32: dQ accumulator, L, D and on-chip tiles

template <class T>
void require_output_like(const char* name, const Tensor4<T>& t, const AttentionProblem& p) {
    if (!(t.shape == p.output_shape()) || t.data.size() != t.shape.numel()) {
        throw Error(std::string(name) + ": must have the output's shape " + p.output_shape().str() + ", got " +
                    t.shape.str());
    }
    for (std::size_t n = 0; n < t.data.size(); ++n) {
        if (!std::isfinite(t.data[n])) {
            throw Error(std::string(name) + ": element " + std::to_string(n) + " is not finite; inputs must be finite numbers");
        }
    }
}

template <class T>
void require_lse(const std::vector<T>& lse, const AttentionProblem& p) {
    const std::size_t n = p.batch * p.q_heads * p.q_len;
    if (lse.size() != n) {
        throw Error("lse: expected B * Hq * L = " + std::to_string(n) + " entries, got " + std::to_string(lse.size()));
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (std::isnan(lse[i]) || lse[i] == std::numeric_limits<T>::infinity()) {
            throw Error("lse: entry " + std::to_string(i) + " is NaN or +inf; allowed values are finite or -inf");
        }
    }
}

}  // namespace

template <class T>
FlashBackwardResult<T> flash_backward(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                      const Tensor4<T>& o, const Tensor4<T>& d_o, const std::vector<T>& lse,
                                      const FlashBackwardOptions& options) {
    const AttentionProblem p = validate_attention(q, k, v, options);
    const BlockSizes blocks = detail::io_blocks(options, p);
    require_output_like("o", o, p);
    require_output_like("d_o", d_o, p);
    require_lse(lse, p);

    const std::size_t br = blocks.block_q, bc = blocks.block_k, L = p.q_len, S = p.kv_len;
    const std::size_t D = p.head_dim, Dv = p.value_dim, group = p.q_heads / p.kv_heads;
    const std::uint64_t eb = options.element_bytes;
    const T scale = static_cast<T>(p.scale);

    FlashBackwardResult<T> r{Tensor4<T>(q.shape), Tensor4<T>(k.shape), Tensor4<T>(v.shape), {}, 0, 0, 0, 0, {}};
    r.block_q = br;
    r.block_k = bc;
    r.num_q_blocks = detail::ceil_div(L, br);
    r.num_k_blocks = detail::ceil_div(S, bc);
    FlashBackwardStats& st = r.stats;
    st.bytes_not_stored = 2 * p.batch * p.q_heads * L * S * eb;
    detail::HbmTraffic traffic(st.hbm_bytes_read, st.hbm_bytes_written);

    std::vector<T> delta(group * L);  // the HBM copy of D for the group's query heads
    std::vector<T> probs, d_scores;   // P_ij and dS_ij of the current tile
    // The last query row sees the most keys under either causal alignment.
    const std::size_t any_key_limit = causal_key_end(L - 1, L, S, options.causal);

    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t kvh = 0; kvh < p.kv_heads; ++kvh) {
            const bool tracing = options.trace && b == options.trace_batch && kvh == p.kv_head_of(options.trace_head);
            traffic.set_listing(tracing);
            const FlashBackwardStats group_start = st;
            auto record = [&](FlashBackwardStep<T> step, std::uint64_t sram) {
                step.hbm_bytes_read = st.hbm_bytes_read - group_start.hbm_bytes_read;
                step.hbm_bytes_written = st.hbm_bytes_written - group_start.hbm_bytes_written;
                step.flops = st.flops - group_start.flops;
                step.sram_bytes_held = sram;
                step.transfers = traffic.take_step();
                r.trace.push_back(std::move(step));
            };
            auto step_of = [](FlashBackwardStepKind kind, std::size_t h, std::size_t qb, std::size_t kb, std::size_t r0,
                              std::size_t r1, std::size_t c0, std::size_t c1) {
                return FlashBackwardStep<T>{kind, h, qb, kb, r0, r1, c0, c1, {}, {}, {}, 0, 0, 0, 0, {}};
            };
            auto sram_peak = [&](std::uint64_t bytes) {
                st.peak_sram_bytes = std::max(st.peak_sram_bytes, bytes);
                return bytes;
            };

            // Preprocessing (FA2 Algorithm 2 line 4): D = rowsum(dO o O), and dQ = 0 in HBM (line 3).
            for (std::size_t g = 0; g < group; ++g) {
                const std::size_t h = kvh * group + g;
                for (std::size_t qb = 0; qb < r.num_q_blocks; ++qb) {
                    const std::size_t row0 = qb * br, rows = std::min(br, L - row0);
                    traffic.read(HbmMatrix::o, row0, row0 + rows, 0, Dv, eb);
                    traffic.read(HbmMatrix::d_o, row0, row0 + rows, 0, Dv, eb);
                    for (std::size_t i = row0; i < row0 + rows; ++i) {
                        const T* oi = o.row(b, h, i);
                        const T* doi = d_o.row(b, h, i);
                        T sum = 0;
                        for (std::size_t c = 0; c < Dv; ++c) sum += doi[c] * oi[c];
                        delta[g * L + i] = sum;
                    }
                    st.flops += 2 * rows * Dv;
                    traffic.write(HbmMatrix::delta, row0, row0 + rows, 0, 1, kAccBytes);
                    traffic.write(HbmMatrix::d_q, row0, row0 + rows, 0, D, kAccBytes);
                    const std::uint64_t sram = sram_peak(2 * rows * Dv * eb + rows * kAccBytes);
                    if (tracing) {
                        auto s = step_of(FlashBackwardStepKind::compute_delta, h, qb, 0, row0, row0 + rows, 0, 0);
                        s.delta.assign(&delta[g * L + row0], &delta[g * L + row0 + rows]);
                        record(std::move(s), sram);
                    }
                }
            }

            for (std::size_t kb = 0; kb < r.num_k_blocks; ++kb) {
                const std::size_t col0 = kb * bc, cols = std::min(bc, S - col0);
                // K_j, V_j in the input dtype and dK_j, dV_j accumulated in fp32 stay for the inner loop.
                const std::uint64_t kv_sram = cols * (D + Dv) * (eb + kAccBytes);
                const bool needed = col0 < any_key_limit;
                if (needed) {
                    traffic.read(HbmMatrix::k, col0, col0 + cols, 0, D, eb);
                    traffic.read(HbmMatrix::v, col0, col0 + cols, 0, Dv, eb);
                    sram_peak(kv_sram);
                    if (tracing) record(step_of(FlashBackwardStepKind::load_kv, 0, 0, kb, 0, 0, col0, col0 + cols), kv_sram);
                }
                T* dk0 = r.dk.row(b, kvh, col0);
                T* dv0 = r.dv.row(b, kvh, col0);

                for (std::size_t g = 0; g < group; ++g) {
                    const std::size_t h = kvh * group + g;
                    const std::size_t lse0 = (b * p.q_heads + h) * L;
                    for (std::size_t qb = 0; qb < r.num_q_blocks; ++qb) {
                        const std::size_t row0 = qb * br, rows = std::min(br, L - row0);
                        if (!needed || col0 >= causal_key_end(row0 + rows - 1, L, S, options.causal)) {
                            ++st.tiles_skipped;
                            if (tracing) {
                                record(step_of(FlashBackwardStepKind::skip, h, qb, kb, row0, row0 + rows, col0, col0 + cols),
                                       needed ? kv_sram : 0);
                            }
                            continue;
                        }
                        ++st.tiles_computed;
                        traffic.read(HbmMatrix::q, row0, row0 + rows, 0, D, eb);
                        traffic.read(HbmMatrix::d_o, row0, row0 + rows, 0, Dv, eb);
                        traffic.read(HbmMatrix::d_q, row0, row0 + rows, 0, D, kAccBytes);
                        traffic.read(HbmMatrix::lse, row0, row0 + rows, 0, 1, kAccBytes);
                        traffic.read(HbmMatrix::delta, row0, row0 + rows, 0, 1, kAccBytes);
                        probs.resize(rows * cols);
                        d_scores.resize(rows * cols);

                        for (std::size_t i = 0; i < rows; ++i) {
                            const std::size_t row = row0 + i;
                            const T* qi = q.row(b, h, row);
                            const T* doi = d_o.row(b, h, row);
                            T* dqi = r.dq.row(b, h, row);
                            T* pi = &probs[i * cols];
                            T* dsi = &d_scores[i * cols];
                            const T lse_i = lse[lse0 + row];
                            const T delta_i = delta[g * L + row];
                            // S_ij recomputed; P_ij = exp(S_ij - L_i), 0 where the score is masked. A row
                            // with no allowed key has L_i = -inf and gets P = 0, not exp(-inf + inf) = NaN.
                            detail::score_row(p, options, q, k, b, h, row, col0, col0 + cols, pi);
                            const bool empty_row = lse_i == -std::numeric_limits<T>::infinity();
                            for (std::size_t j = 0; j < cols; ++j)
                                pi[j] = empty_row ? T(0) : online_softmax::rescale_factor(pi[j], lse_i);
                            for (std::size_t j = 0; j < cols; ++j) {
                                const T* vj = v.row(b, kvh, col0 + j);
                                T* dvj = dv0 + j * Dv;
                                T dp = 0;
                                for (std::size_t c = 0; c < Dv; ++c) {
                                    dvj[c] += pi[j] * doi[c];  // dV_j += P_ij^T dO_i
                                    dp += doi[c] * vj[c];      // dP_ij = dO_i V_j^T
                                }
                                dsi[j] = pi[j] * (dp - delta_i);
                                const T* kj = k.row(b, kvh, col0 + j);
                                T* dkj = dk0 + j * D;
                                const T ds = scale * dsi[j];
                                for (std::size_t c = 0; c < D; ++c) {
                                    dqi[c] += ds * kj[c];  // dQ_i += scale dS_ij K_j
                                    dkj[c] += ds * qi[c];  // dK_j += scale dS_ij^T Q_i
                                }
                            }
                        }
                        st.flops += 2 * rows * cols * (3 * D + 2 * Dv);
                        st.recompute_flops += 2 * rows * cols * D;
                        traffic.write(HbmMatrix::d_q, row0, row0 + rows, 0, D, kAccBytes);
                        // + Q_i, dO_i (input dtype); dQ_i, L_i, D_i (fp32); P_ij and dS_ij (fp32).
                        const std::uint64_t sram = sram_peak(kv_sram + rows * (D + Dv) * eb +
                                                             rows * (D + 2) * kAccBytes + 2 * rows * cols * kAccBytes);
                        if (tracing) {
                            auto s = step_of(FlashBackwardStepKind::tile, h, qb, kb, row0, row0 + rows, col0, col0 + cols);
                            s.probs = probs;
                            s.d_scores = d_scores;
                            record(std::move(s), sram);
                        }
                    }
                }
                traffic.write(HbmMatrix::d_k, col0, col0 + cols, 0, D, eb);
                traffic.write(HbmMatrix::d_v, col0, col0 + cols, 0, Dv, eb);
                if (tracing) {
                    record(step_of(FlashBackwardStepKind::write_dkdv, 0, 0, kb, 0, 0, col0, col0 + cols),
                           needed ? kv_sram : 0);
                }
            }
        }
    }
    return r;
}

template FlashBackwardResult<float> flash_backward(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&,
                                                   const Tensor4<float>&, const Tensor4<float>&,
                                                   const std::vector<float>&, const FlashBackwardOptions&);
template FlashBackwardResult<double> flash_backward(const Tensor4<double>&, const Tensor4<double>&,
                                                    const Tensor4<double>&, const Tensor4<double>&,
                                                    const Tensor4<double>&, const std::vector<double>&,
                                                    const FlashBackwardOptions&);

}  // namespace attn
