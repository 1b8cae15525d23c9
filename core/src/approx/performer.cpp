#include "attn/approx/performer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/error.hpp"
#include "attn/random.hpp"
#include "method_args.hpp"

namespace attn::approx {
namespace {

void check_feature_sizes(std::size_t m, std::size_t d) {
    detail::require_in_range("num_features", m, 1, 65536);
    detail::require_in_range("head_dim", d, 1, 4096);
}

// exponents[i] = w_i^T x - ||x||^2 / 2 for the m rows of W.
void feature_exponents(const double* x, std::size_t d, const std::vector<double>& w, double* exponents) {
    const std::size_t m = w.size() / d;
    const double half_norm = 0.5 * detail::dot(x, x, d);
    for (std::size_t i = 0; i < m; ++i) exponents[i] = detail::dot(w.data() + i * d, x, d) - half_norm;
}

}  // namespace

std::vector<double> performer_features(std::size_t m, std::size_t d, bool orthogonal, std::uint64_t seed) {
    check_feature_sizes(m, d);
    if (!orthogonal) return detail::gaussian_matrix(m, d, 1.0, splitmix64(seed ^ 0x1D1Dull));
    std::vector<double> w;
    w.reserve(m * d);
    for (std::size_t block = 0; w.size() < m * d; ++block) {
        std::vector<double> g = detail::gaussian_matrix(d, d, 1.0, splitmix64(seed + 2 * block));
        // Gram-Schmidt: rows of g become orthonormal (a Gaussian block has full rank almost surely).
        for (std::size_t r = 0; r < d; ++r) {
            double* row = g.data() + r * d;
            for (std::size_t prev = 0; prev < r; ++prev) {
                const double* u = g.data() + prev * d;
                const double proj = detail::dot(row, u, d);
                for (std::size_t c = 0; c < d; ++c) row[c] -= proj * u[c];
            }
            const double norm = std::sqrt(detail::dot(row, row, d));
            for (std::size_t c = 0; c < d; ++c) row[c] /= norm;
        }
        // Row lengths as those of N(0, I_d) vectors (chi with d degrees of freedom), drawn independently.
        const std::vector<double> lengths = detail::gaussian_matrix(d, d, 1.0, splitmix64(seed + 2 * block + 1));
        for (std::size_t r = 0; r < d && w.size() < m * d; ++r) {
            const double len = std::sqrt(detail::dot(lengths.data() + r * d, lengths.data() + r * d, d));
            for (std::size_t c = 0; c < d; ++c) w.push_back(g[r * d + c] * len);
        }
    }
    return w;
}

double favor_kernel_estimate(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& w) {
    const std::size_t d = x.size();
    if (d == 0 || y.size() != d) {
        throw Error("y: must have the length of x (" + std::to_string(d) + ", at least 1), got " + std::to_string(y.size()));
    }
    if (w.empty() || w.size() % d != 0) {
        throw Error("w: must hold m rows of " + std::to_string(d) + " entries, got " + std::to_string(w.size()));
    }
    const std::size_t m = w.size() / d;
    std::vector<double> ex(m), ey(m);
    feature_exponents(x.data(), d, w, ex.data());
    feature_exponents(y.data(), d, w, ey.data());
    double sum = 0;
    for (std::size_t i = 0; i < m; ++i) sum += std::exp(ex[i]) * std::exp(ey[i]);  // phi_i(x) phi_i(y) * m
    return sum / static_cast<double>(m);
}

CostCounts performer_cost(std::size_t batch_heads, std::size_t l, std::size_t s, std::size_t d, std::size_t dv,
                          std::size_t m) {
    check_feature_sizes(m, d);
    if (batch_heads == 0 || l == 0 || s == 0 || dv == 0) throw Error("performer_cost: sizes must be >= 1");
    const std::uint64_t M = m, D = d, Dv = dv, L = l, S = s;
    const std::uint64_t flops = (L + S) * (M * (2 * D + 2) + 3 * D) + S * M * (2 * Dv + 1) + L * M * (2 * Dv + 2) + L * Dv;
    return {0, batch_heads * flops, 8 * (M * D + S * M + M * Dv + 2 * M + D)};
}

ApproxResult performer(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                       const PerformerOptions& o) {
    const AttentionProblem p = detail::check_qkv(q, k, v, o.scale);
    if (!(p.scale > 0)) throw Error("scale: FAVOR+ needs a scale > 0 (it enters as sqrt(scale)), got " + std::to_string(p.scale));
    const std::size_t m = o.num_features, d = p.head_dim, dv = p.value_dim, S = p.kv_len;
    const std::vector<double> w = performer_features(m, d, o.orthogonal, o.seed);
    const double root_scale = std::sqrt(p.scale);

    ApproxResult r{Tensor4<double>(p.output_shape()), {}, performer_cost(p.batch * p.q_heads, p.q_len, S, d, dv, m)};
    std::vector<double> phi_k(S * m), kv(m * dv), k_sum(m), phi_q(m), x(d);
    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            double shift = -std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j < S; ++j) {
                for (std::size_t c = 0; c < d; ++c) x[c] = root_scale * k.at(b, h, j, c);
                feature_exponents(x.data(), d, w, phi_k.data() + j * m);
                shift = std::max(shift, *std::max_element(phi_k.begin() + static_cast<std::ptrdiff_t>(j * m),
                                                          phi_k.begin() + static_cast<std::ptrdiff_t>((j + 1) * m)));
            }
            std::fill(kv.begin(), kv.end(), 0.0);
            std::fill(k_sum.begin(), k_sum.end(), 0.0);
            for (std::size_t j = 0; j < S; ++j) {
                const double* vj = v.row(b, h, j);
                for (std::size_t i = 0; i < m; ++i) {
                    const double f = std::exp(phi_k[j * m + i] - shift);
                    k_sum[i] += f;
                    for (std::size_t c = 0; c < dv; ++c) kv[i * dv + c] += f * vj[c];
                }
            }
            for (std::size_t row = 0; row < p.q_len; ++row) {
                for (std::size_t c = 0; c < d; ++c) x[c] = root_scale * q.at(b, h, row, c);
                feature_exponents(x.data(), d, w, phi_q.data());
                const double row_shift = *std::max_element(phi_q.begin(), phi_q.end());
                for (double& e : phi_q) e = std::exp(e - row_shift);
                double* out = r.output.row(b, h, row);
                double denominator = 0;
                for (std::size_t i = 0; i < m; ++i) {
                    denominator += phi_q[i] * k_sum[i];
                    for (std::size_t c = 0; c < dv; ++c) out[c] += phi_q[i] * kv[i * dv + c];
                }
                for (std::size_t c = 0; c < dv; ++c) out[c] /= denominator;
            }
        }
    }
    SdpaOptions dense;
    dense.scale = p.scale;
    r.error = compare_with_dense(r.output, q, k, v, dense);
    return r;
}

}  // namespace attn::approx
