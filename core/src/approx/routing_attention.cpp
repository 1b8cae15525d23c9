#include "attn/approx/routing_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/error.hpp"
#include "attn/random.hpp"
#include "method_args.hpp"

namespace attn::approx {
namespace {

// Nearest centroid by Euclidean distance: argmin ||x - mu||^2 = argmax x.mu - ||mu||^2 / 2.
std::uint32_t nearest(const double* x, const std::vector<double>& centroids, const std::vector<double>& half_norms,
                      std::size_t d) {
    std::uint32_t best = 0;
    double best_value = -std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < half_norms.size(); ++c) {
        const double value = detail::dot(x, centroids.data() + c * d, d) - half_norms[c];
        if (value > best_value) best_value = value, best = static_cast<std::uint32_t>(c);
    }
    return best;
}

}  // namespace

RoutingResult routing_attention(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                                const RoutingOptions& o) {
    const AttentionProblem p = detail::check_qkv(q, k, v, o.scale);
    const std::size_t L = p.q_len, S = p.kv_len, P = L + S, d = p.head_dim, dv = p.value_dim, c = o.num_clusters;
    detail::require_in_range("num_clusters", c, 1, std::min<std::size_t>(4096, P));
    detail::require_in_range("iterations", o.iterations, 0, 100);
    const std::uint64_t T = o.iterations;

    RoutingResult r;
    r.approx.output = Tensor4<double>(p.output_shape());
    r.query_cluster.resize(p.batch * p.q_heads * L);
    r.key_cluster.resize(p.batch * p.q_heads * S);
    std::vector<double> points(P * d), centroids(c * d), sums(c * d), half_norms(c);
    std::vector<std::uint32_t> assignment(P), members(P);
    std::vector<std::uint64_t> counts(c);
    std::vector<double> block;
    std::vector<std::size_t> cluster_queries, cluster_keys;
    std::vector<const double*> v_rows;
    std::uint64_t entries = 0, max_block = 0;

    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            detail::unit_rows(q, b, h, points.data());
            detail::unit_rows(k, b, h, points.data() + L * d);
            // Initial centroids: c distinct points, by a partial Fisher-Yates shuffle of the indices.
            for (std::size_t t = 0; t < P; ++t) members[t] = static_cast<std::uint32_t>(t);
            const std::uint64_t head_seed = splitmix64(o.seed ^ splitmix64(b * p.q_heads + h));
            for (std::size_t t = 0; t < c; ++t) {
                const auto pick = t + static_cast<std::size_t>(uniform_from_hash(head_seed, t) * static_cast<double>(P - t));
                std::swap(members[t], members[std::min(pick, P - 1)]);
                std::copy_n(points.data() + members[t] * d, d, centroids.data() + t * d);
            }
            for (std::uint64_t it = 0; it <= T; ++it) {
                for (std::size_t a = 0; a < c; ++a) {
                    half_norms[a] = 0.5 * detail::dot(centroids.data() + a * d, centroids.data() + a * d, d);
                }
                for (std::size_t t = 0; t < P; ++t) assignment[t] = nearest(points.data() + t * d, centroids, half_norms, d);
                if (it == T) break;
                std::fill(sums.begin(), sums.end(), 0.0);
                std::fill(counts.begin(), counts.end(), 0);
                for (std::size_t t = 0; t < P; ++t) {
                    ++counts[assignment[t]];
                    for (std::size_t e = 0; e < d; ++e) sums[assignment[t] * d + e] += points[t * d + e];
                }
                for (std::size_t a = 0; a < c; ++a) {
                    if (counts[a] == 0) continue;  // an empty cluster keeps its centroid
                    for (std::size_t e = 0; e < d; ++e) centroids[a * d + e] = sums[a * d + e] / static_cast<double>(counts[a]);
                }
            }
            std::copy_n(assignment.begin(), L, r.query_cluster.begin() + static_cast<std::ptrdiff_t>((b * p.q_heads + h) * L));
            std::copy_n(assignment.begin() + static_cast<std::ptrdiff_t>(L), S,
                        r.key_cluster.begin() + static_cast<std::ptrdiff_t>((b * p.q_heads + h) * S));

            for (std::size_t a = 0; a < c; ++a) {
                cluster_queries.clear();
                cluster_keys.clear();
                for (std::size_t i = 0; i < L; ++i) {
                    if (assignment[i] == a) cluster_queries.push_back(i);
                }
                for (std::size_t j = 0; j < S; ++j) {
                    if (assignment[L + j] == a) cluster_keys.push_back(j);
                }
                const std::size_t nk = cluster_keys.size();
                if (nk == 0) {
                    r.queries_without_keys += cluster_queries.size();
                    continue;
                }
                block.resize(cluster_queries.size() * nk);
                entries += block.size();
                max_block = std::max<std::uint64_t>(max_block, block.size());
                v_rows.clear();
                for (std::size_t j : cluster_keys) v_rows.push_back(v.row(b, h, j));
                for (std::size_t qi = 0; qi < cluster_queries.size(); ++qi) {
                    const std::size_t i = cluster_queries[qi];
                    double* row = block.data() + qi * nk;
                    for (std::size_t t = 0; t < nk; ++t) row[t] = p.scale * detail::dot(q.row(b, h, i), k.row(b, h, cluster_keys[t]), d);
                    detail::softmax_combine(row, nk, v_rows, dv, r.approx.output.row(b, h, i));
                }
            }
        }
    }
    const std::uint64_t bh = p.batch * p.q_heads, D = d;
    r.approx.cost.score_entries = entries;
    r.approx.cost.flops = bh * (P * (3 * D + 1) + (T + 1) * (P * c * (2 * D + 1) + 2 * c * D) + T * (P * D + c * D)) +
                          entries * (2 * D + 2 * dv + 2);
    r.approx.cost.peak_bytes = 8 * (P * D + 2 * c * D + 2 * c + P + max_block);
    SdpaOptions dense;
    dense.scale = p.scale;
    r.approx.error = compare_with_dense(r.approx.output, q, k, v, dense);
    return r;
}

}  // namespace attn::approx
