#include "approx_blas.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "attn/attention/fast_exp2.hpp"
#include "row_softmax.hpp"

namespace attn::bench {
namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

// C [m x n] = alpha A B (+ beta C), row-major; A is [m x k] or, transposed, [k x m]; B is [k x n]
// or, transposed, [n x k].
void gemm(bool a_t, bool b_t, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, const float* b,
          float beta, float* c) {
    cblas_sgemm(CblasRowMajor, a_t ? CblasTrans : CblasNoTrans, b_t ? CblasTrans : CblasNoTrans, static_cast<blasint>(m),
                static_cast<blasint>(n), static_cast<blasint>(k), alpha, a, static_cast<blasint>(a_t ? m : k), b,
                static_cast<blasint>(b_t ? k : n), beta, c, static_cast<blasint>(n));
}

inline float exp_fast(float x) { return fast_exp2(x * std::numbers::log2e_v<float>); }

// Rows of `x` [rows x d] scaled in place so that each has unit length (zero rows stay zero).
void normalise_rows(float* x, std::size_t rows, std::size_t d) {
    for (std::size_t r = 0; r < rows; ++r) {
        float* row = x + r * d;
        float sq = 0;
        for (std::size_t c = 0; c < d; ++c) sq += row[c] * row[c];
        const float inv = sq > 0 ? 1.0f / std::sqrt(sq) : 0.0f;
        for (std::size_t c = 0; c < d; ++c) row[c] *= inv;
    }
}

// out [rows x dv] = num / den row by row: the normalisation of the kernel methods.
void divide_rows(float* out, const float* num, const float* den, std::size_t rows, std::size_t dv) {
    for (std::size_t r = 0; r < rows; ++r) {
        const float inv = 1.0f / den[r];
        for (std::size_t c = 0; c < dv; ++c) out[r * dv + c] = num[r * dv + c] * inv;
    }
}

// Runs fn(q, k, v, out) on each (batch, head) slice: every method below is per head.
template <class Fn>
Tensor4<float> per_head(const Tensor4<float>& q, const Tensor4<float>& v, Fn fn) {
    Tensor4<float> out({q.shape.batch, q.shape.heads, q.shape.seq, v.shape.dim});
    for (std::size_t b = 0; b < q.shape.batch; ++b) {
        for (std::size_t h = 0; h < q.shape.heads; ++h) fn(b, h, out.row(b, h, 0));
    }
    return out;
}

}  // namespace

Tensor4<float> performer_blas(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v,
                              const std::vector<float>& w, std::size_t m) {
    const std::size_t len = q.shape.seq, keys = k.shape.seq, d = q.shape.dim, dv = v.shape.dim;
    // x = q * sqrt(scale) with scale = 1/sqrt(d): q / d^(1/4), and the same for k.
    const float root_scale = 1.0f / std::sqrt(std::sqrt(static_cast<float>(d)));
    // phi(x)_i = exp(w_i^T x - |x|^2 / 2 - shift) / sqrt(m); the 1/sqrt(m) and the shifts cancel in
    // D^-1 (...), so they are applied only as far as keeping the exponentials in range needs.
    auto features = [&](const float* x, std::size_t rows, std::vector<float>& phi, bool per_row_shift) {
        gemm(false, true, rows, m, d, root_scale, x, w.data(), 0.0f, phi.data());
        std::vector<float> half_sq(rows);
        for (std::size_t r = 0; r < rows; ++r) {
            float sq = 0;
            for (std::size_t c = 0; c < d; ++c) sq += x[r * d + c] * x[r * d + c];
            half_sq[r] = 0.5f * sq * root_scale * root_scale;
        }
        float global = kMinusInf;
        if (!per_row_shift) global = *std::max_element(phi.begin(), phi.end());
        parallel_rows(rows, [&](std::size_t r) {
            float* row = phi.data() + r * m;
            const float shift = per_row_shift ? *std::max_element(row, row + m) : global;
            for (std::size_t i = 0; i < m; ++i) row[i] = exp_fast(row[i] - shift - half_sq[r]);
        });
    };
    return per_head(q, v, [&](std::size_t b, std::size_t h, float* out) {
        std::vector<float> phi_k(keys * m), phi_q(len * m), kv(m * dv), k_sum(m, 0.0f), num(len * dv), den(len);
        features(k.row(b, h, 0), keys, phi_k, false);
        gemm(true, false, m, dv, keys, 1.0f, phi_k.data(), v.row(b, h, 0), 0.0f, kv.data());  // phi(K)^T V
        for (std::size_t j = 0; j < keys; ++j) {
            for (std::size_t i = 0; i < m; ++i) k_sum[i] += phi_k[j * m + i];  // phi(K)^T 1
        }
        features(q.row(b, h, 0), len, phi_q, true);
        gemm(false, false, len, dv, m, 1.0f, phi_q.data(), kv.data(), 0.0f, num.data());
        cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<blasint>(len), static_cast<blasint>(m), 1.0f, phi_q.data(),
                    static_cast<blasint>(m), k_sum.data(), 1, 0.0f, den.data(), 1);
        divide_rows(out, num.data(), den.data(), len, dv);
    });
}

Tensor4<float> linformer_blas(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v,
                              const std::vector<float>& e, const std::vector<float>& f, std::size_t p) {
    const std::size_t len = q.shape.seq, keys = k.shape.seq, d = q.shape.dim, dv = v.shape.dim;
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    return per_head(q, v, [&](std::size_t b, std::size_t h, float* out) {
        std::vector<float> ek(p * d), fv(p * dv), scores(len * p);
        gemm(false, false, p, d, keys, 1.0f, e.data(), k.row(b, h, 0), 0.0f, ek.data());
        gemm(false, false, p, dv, keys, 1.0f, f.data(), v.row(b, h, 0), 0.0f, fv.data());
        gemm(false, true, len, p, d, scale, q.row(b, h, 0), ek.data(), 0.0f, scores.data());
        parallel_rows(len, [&](std::size_t r) { softmax_row(scores.data() + r * p, p, p); });
        gemm(false, false, len, dv, p, 1.0f, scores.data(), fv.data(), 0.0f, out);
    });
}

Tensor4<float> linear_attention_blas(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v) {
    const std::size_t len = q.shape.seq, keys = k.shape.seq, d = q.shape.dim, dv = v.shape.dim;
    auto phi = [](const float* x, std::size_t n, std::vector<float>& out) {
        for (std::size_t i = 0; i < n; ++i) out[i] = x[i] > 0 ? x[i] + 1.0f : exp_fast(x[i]);  // elu(x) + 1
    };
    return per_head(q, v, [&](std::size_t b, std::size_t h, float* out) {
        std::vector<float> phi_k(keys * d), phi_q(len * d), kv(d * dv), z(d, 0.0f), num(len * dv), den(len);
        phi(k.row(b, h, 0), keys * d, phi_k);
        phi(q.row(b, h, 0), len * d, phi_q);
        gemm(true, false, d, dv, keys, 1.0f, phi_k.data(), v.row(b, h, 0), 0.0f, kv.data());  // sum_j phi(k_j) v_j^T
        for (std::size_t j = 0; j < keys; ++j) {
            for (std::size_t c = 0; c < d; ++c) z[c] += phi_k[j * d + c];  // sum_j phi(k_j)
        }
        gemm(false, false, len, dv, d, 1.0f, phi_q.data(), kv.data(), 0.0f, num.data());
        cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<blasint>(len), static_cast<blasint>(d), 1.0f, phi_q.data(),
                    static_cast<blasint>(d), z.data(), 1, 0.0f, den.data(), 1);
        divide_rows(out, num.data(), den.data(), len, dv);
    });
}

Tensor4<float> sliding_window_blas(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v,
                                   std::size_t w) {
    constexpr std::size_t kBlock = 64;
    const std::size_t len = q.shape.seq, d = q.shape.dim, dv = v.shape.dim;
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    return per_head(q, v, [&](std::size_t b, std::size_t h, float* out) {
        const std::size_t blocks = (len + kBlock - 1) / kBlock;
        parallel_rows(blocks, [&](std::size_t blk) {
            const std::size_t r0 = blk * kBlock, r1 = std::min(len, r0 + kBlock);
            const std::size_t c0 = r0 > w ? r0 - w : 0, c1 = std::min(len, r1 + w);  // the band these rows see
            const std::size_t rows = r1 - r0, cols = c1 - c0;
            std::vector<float> s(rows * cols);
            gemm(false, true, rows, cols, d, scale, q.row(b, h, r0), k.row(b, h, c0), 0.0f, s.data());
            for (std::size_t r = 0; r < rows; ++r) {
                const std::size_t i = r0 + r, lo = i > w ? i - w : 0, hi = std::min(len, i + w + 1);
                float* row = s.data() + r * cols;
                std::fill(row, row + (lo - c0), kMinusInf);
                std::fill(row + (hi - c0), row + cols, kMinusInf);
                softmax_row(row, cols, cols);
            }
            gemm(false, false, rows, dv, cols, 1.0f, s.data(), v.row(b, h, c0), 0.0f, out + r0 * dv);
        });
    });
}

Tensor4<float> lsh_attention_blas(const Tensor4<float>& q, const Tensor4<float>& v, const std::vector<float>& rot,
                                  std::size_t num_buckets, std::size_t chunk) {
    const std::size_t len = q.shape.seq, d = q.shape.dim, dv = v.shape.dim, half = num_buckets / 2;
    const std::size_t m = std::min(chunk, len);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    return per_head(q, v, [&](std::size_t b, std::size_t h, float* out) {
        std::vector<float> unit(q.row(b, h, 0), q.row(b, h, 0) + len * d);
        normalise_rows(unit.data(), len, d);
        // Buckets: argmax over [x R, -x R] (a positive rescaling of x does not move it).
        std::vector<float> xr(len * half);
        gemm(false, false, len, half, d, 1.0f, unit.data(), rot.data(), 0.0f, xr.data());
        std::vector<std::uint32_t> bucket(len);
        for (std::size_t j = 0; j < len; ++j) {
            const float* row = xr.data() + j * half;
            std::size_t best = 0;
            float best_value = kMinusInf;
            for (std::size_t i = 0; i < num_buckets; ++i) {
                const float value = i < half ? row[i] : -row[i - half];
                if (value > best_value) best_value = value, best = i;
            }
            bucket[j] = static_cast<std::uint32_t>(best);
        }
        // Sorted by (bucket, position): a stable counting sort.
        std::vector<std::size_t> start(num_buckets + 1, 0), order(len);
        for (std::uint32_t bk : bucket) ++start[bk + 1];
        std::partial_sum(start.begin(), start.end(), start.begin());
        for (std::size_t j = 0; j < len; ++j) order[start[bucket[j]]++] = j;

        const std::size_t chunks = (len + m - 1) / m;
        parallel_rows(chunks, [&](std::size_t c) {
            const std::size_t q0 = c * m, q1 = std::min(len, q0 + m), k0 = c > 0 ? q0 - m : 0;
            const std::size_t rows = q1 - q0, cols = q1 - k0;
            std::vector<float> qc(rows * d), kc(cols * d), vc(cols * dv), s(rows * cols), oc(rows * dv);
            for (std::size_t r = 0; r < rows; ++r) std::copy_n(q.row(b, h, order[q0 + r]), d, qc.data() + r * d);
            for (std::size_t t = 0; t < cols; ++t) {
                std::copy_n(unit.data() + order[k0 + t] * d, d, kc.data() + t * d);
                std::copy_n(v.row(b, h, order[k0 + t]), dv, vc.data() + t * dv);
            }
            gemm(false, true, rows, cols, d, scale, qc.data(), kc.data(), 0.0f, s.data());
            for (std::size_t r = 0; r < rows; ++r) {
                const std::size_t i = order[q0 + r];
                float* row = s.data() + r * cols;
                for (std::size_t t = 0; t < cols; ++t) {
                    const std::size_t j = order[k0 + t];
                    if (bucket[j] != bucket[i]) row[t] = kMinusInf;
                    else if (j == i) row[t] -= 1e5f;  // itself, only when it has no other target
                }
                softmax_row(row, cols, cols);
            }
            gemm(false, false, rows, dv, cols, 1.0f, s.data(), vc.data(), 0.0f, oc.data());
            for (std::size_t r = 0; r < rows; ++r) std::copy_n(oc.data() + r * dv, dv, out + order[q0 + r] * dv);
        });
    });
}

Tensor4<float> shared_qk_attention_blas(const Tensor4<float>& q, const Tensor4<float>& v) {
    const std::size_t len = q.shape.seq, d = q.shape.dim, dv = v.shape.dim;
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    return per_head(q, v, [&](std::size_t b, std::size_t h, float* out) {
        std::vector<float> unit(q.row(b, h, 0), q.row(b, h, 0) + len * d), s(len * len);
        normalise_rows(unit.data(), len, d);
        gemm(false, true, len, len, d, scale, q.row(b, h, 0), unit.data(), 0.0f, s.data());
        parallel_rows(len, [&](std::size_t r) {
            s[r * len + r] = kMinusInf;
            softmax_row(s.data() + r * len, len, len);
        });
        gemm(false, false, len, dv, len, 1.0f, s.data(), v.row(b, h, 0), 0.0f, out);
    });
}

}  // namespace attn::bench
