#include "attn/approx/linformer.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/random.hpp"
#include "method_args.hpp"

namespace attn::approx {
namespace {

void check_sizes(std::size_t k, std::size_t n) {
    detail::require_in_range("projected_length", k, 1, std::size_t{1} << 20);
    detail::require_in_range("seq_len", n, 1, std::size_t{1} << 24);
    if (static_cast<std::uint64_t>(k) * n > (std::uint64_t{1} << 26)) {
        throw Error("projected_length * seq_len must be at most 2^26, got " + std::to_string(k) + " * " +
                    std::to_string(n));
    }
}

}  // namespace

LinformerProjections linformer_random_projections(std::size_t k, std::size_t n, std::uint64_t seed) {
    check_sizes(k, n);
    const double stddev = 1.0 / std::sqrt(static_cast<double>(n));
    return {k, n, detail::gaussian_matrix(k, n, stddev, splitmix64(seed ^ 0xEull)),
            detail::gaussian_matrix(k, n, stddev, splitmix64(seed ^ 0xFull))};
}

LinformerProjections linformer_identity_projections(std::size_t n) {
    check_sizes(n, n);
    LinformerProjections p{n, n, std::vector<double>(n * n, 0.0), {}};
    for (std::size_t i = 0; i < n; ++i) p.e[i * n + i] = 1.0;
    p.f = p.e;
    return p;
}

CostCounts linformer_cost(std::size_t batch_heads, std::size_t l, std::size_t n, std::size_t d, std::size_t dv,
                          std::size_t k) {
    check_sizes(k, n);
    if (batch_heads == 0 || l == 0 || d == 0 || dv == 0) throw Error("linformer_cost: sizes must be >= 1");
    const std::uint64_t bh = batch_heads, entries = std::uint64_t{l} * k;
    const std::uint64_t flops = 2ull * k * n * d + 2ull * k * n * dv + entries * (2 * d + 2 * dv + 2);
    return {bh * entries, bh * flops, 8 * (std::uint64_t{k} * d + std::uint64_t{k} * dv + entries)};
}

ApproxResult linformer(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                       const LinformerProjections& proj, std::optional<double> scale) {
    const AttentionProblem p = detail::check_qkv(q, k, v, scale);
    check_sizes(proj.projected_length, proj.seq_len);
    const std::size_t kp = proj.projected_length, n = proj.seq_len, d = p.head_dim, dv = p.value_dim;
    if (p.kv_len != n) {
        throw Error("key: the projections are for " + std::to_string(n) + " keys, got " + std::to_string(p.kv_len));
    }
    if (proj.e.size() != kp * n || proj.f.size() != kp * n) {
        throw Error("projections: E and F must have projected_length * seq_len = " + std::to_string(kp * n) +
                    " entries, got " + std::to_string(proj.e.size()) + " and " + std::to_string(proj.f.size()));
    }
    for (std::size_t t = 0; t < kp * n; ++t) {
        if (!std::isfinite(proj.e[t]) || !std::isfinite(proj.f[t])) throw Error("projections: entries must be finite");
    }

    ApproxResult r{Tensor4<double>(p.output_shape()), {}, linformer_cost(p.batch * p.q_heads, p.q_len, n, d, dv, kp)};
    std::vector<double> ek(kp * d), fv(kp * dv), scores(p.q_len * kp);
    std::vector<const double*> v_rows(kp);
    for (std::size_t t = 0; t < kp; ++t) v_rows[t] = fv.data() + t * dv;
    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            // E K and F V: each projected row is a weighted sum of all N rows.
            std::fill(ek.begin(), ek.end(), 0.0);
            std::fill(fv.begin(), fv.end(), 0.0);
            for (std::size_t t = 0; t < kp; ++t) {
                for (std::size_t j = 0; j < n; ++j) {
                    const double e = proj.e[t * n + j], f = proj.f[t * n + j];
                    for (std::size_t c = 0; c < d; ++c) ek[t * d + c] += e * k.at(b, h, j, c);
                    for (std::size_t c = 0; c < dv; ++c) fv[t * dv + c] += f * v.at(b, h, j, c);
                }
            }
            for (std::size_t i = 0; i < p.q_len; ++i) {
                for (std::size_t t = 0; t < kp; ++t) {
                    scores[i * kp + t] = p.scale * detail::dot(q.row(b, h, i), ek.data() + t * d, d);
                }
            }
            for (std::size_t i = 0; i < p.q_len; ++i) {
                detail::softmax_combine(scores.data() + i * kp, kp, v_rows, dv, r.output.row(b, h, i));
            }
        }
    }
    SdpaOptions dense;
    dense.scale = p.scale;
    r.error = compare_with_dense(r.output, q, k, v, dense);
    return r;
}

}  // namespace attn::approx
