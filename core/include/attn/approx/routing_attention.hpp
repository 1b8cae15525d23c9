#pragma once
// Routing Transformer attention (Roy, Saffar, Vaswani & Grangier 2021, arXiv:2003.05997,
// Section 4, "Routing Attention"), non-causal, in its simplest form:
//   - queries and keys are normalised to unit length and clustered together by k-means with one
//     shared set of centroids (Section 4: "the same centroids for queries and keys"), here by
//     plain Lloyd iterations: centroids initialised to distinct points drawn from the seed, then
//     `iterations` rounds of (assign each point to the nearest centroid, move each centroid to the
//     mean of its points; an empty cluster keeps its centroid);
//   - query i attends, with scaled softmax scores on the original q and k, only to the keys in
//     its own cluster (Section 4: X'_i = sum over j with mu(K_j) = mu(Q_i) of A_ij V_j).
// Deviations, stated: the paper learns the centroids by online mini-batch k-means during training
// (exponential moving averages) and, in its implementation, routes a fixed top-w of tokens to
// each centroid so that clusters are balanced; here clusters are the plain k-means partition of
// the given Q and K, so sizes vary, and a query whose cluster holds no key gets a zero output
// row (counted in queries_without_keys).
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/approx/approx_report.hpp"

namespace attn::approx {

struct RoutingOptions {
    std::size_t num_clusters = 8;  // in [1, 4096] and at most L + S
    std::size_t iterations = 4;    // Lloyd iterations, in [0, 100]
    std::uint64_t seed = 0;
    std::optional<double> scale;   // default 1/sqrt(d); must be finite
};

struct RoutingResult {
    ApproxResult approx;
    // Cluster of each query and key: index (b * H + h) * L + i, resp. (b * H + h) * S + j.
    std::vector<std::uint32_t> query_cluster, key_cluster;
    std::uint64_t queries_without_keys = 0;
};

RoutingResult routing_attention(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                                const RoutingOptions& options = {});

// What routing_attention counts, per (b, h), with c clusters, P = L + S points, T iterations:
//   score_entries = sum over clusters of (queries in it) * (keys in it)   -- data-dependent
//   flops = P (3d + 1)                                  (unit vectors: squares, sqrt, divisions)
//         + (T + 1) (P c (2d + 1) + 2 c d)              (assignments: x.mu - ||mu||^2 / 2 per pair,
//                                                        and ||mu||^2 per centroid)
//         + T (P d + c d)                               (centroid sums and means)
//         + score_entries (2d + 2Dv + 2)                (as dense, within clusters)
//   peak elements = P d + 2 c d + 2c + P + max over clusters of (queries * keys)
//   (unit points, centroids and their sums, ||mu||^2, assignments, counts, one cluster's scores).
// The formula is applied by routing_attention to the clusters it found; the figure's curves need
// an assumption about cluster sizes (balanced: score_entries = L S / c).

}  // namespace attn::approx
