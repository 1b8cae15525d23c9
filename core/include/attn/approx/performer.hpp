#pragma once
// Performer's FAVOR+ (Choromanski et al. 2021, arXiv:2009.14794), non-causal:
//
//   softmax kernel  SM(x, y) = exp(x^T y),  with x = q * sqrt(scale), y = k * sqrt(scale)
//     (scale = 1/sqrt(d) gives the paper's q / d^{1/4}, k / d^{1/4}, Section 2.2)
//   positive random features (Lemma 1, with h(x) = exp(-||x||^2 / 2), f = exp):
//     phi(x) = exp(-||x||^2 / 2) / sqrt(m) * [exp(w_1^T x), ..., exp(w_m^T x)],
//     E[phi(x)^T phi(y)] = SM(x, y) for w_i ~ N(0, I_d)
//   orthogonal random features (Section 2.4): w_1..w_m in blocks of d mutually orthogonal rows
//     (Gram-Schmidt of a Gaussian block), each row rescaled to the length of an independent
//     N(0, I_d) vector, so every w_i is still marginally N(0, I_d) and the estimator unbiased
//   associative order (Section 2, Figure 1): O = D^-1 (phi(Q) (phi(K)^T V)),
//     D = diag(phi(Q) (phi(K)^T 1_N)) -- no N x N matrix is formed.
//
// For stability the exponents are shifted as in the authors' implementation: per query row by
// its largest w_i^T x, for the keys by one shift over all keys and features; both shifts cancel
// between numerator and D (they do not enter favor_kernel_estimate).
//
// Variance: the positive estimator's mean squared error is (1/m) exp(||x+y||^2) SM(x, y)^2
// (1 - exp(-||x+y||^2)) for i.i.d. features (Lemma 2), exponential in the input norms. With
// q, k ~ N(0, I_64) and scale 1/8, ||x + y||^2 is about 16, so even thousands of features leave
// errors of order one or more (tools/approx_error_table shows it); inputs of smaller norm fare far better.
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/approx/approx_report.hpp"

namespace attn::approx {

struct PerformerOptions {
    std::size_t num_features = 64;  // m, in [1, 65536]
    bool orthogonal = true;         // false: i.i.d. Gaussian w_i
    std::uint64_t seed = 0;
    std::optional<double> scale;    // default 1/sqrt(d); must be > 0 (the kernel needs sqrt(scale))
};

// The m x d feature matrix W (rows w_i) drawn as described above. m in [1, 65536], d in [1, 4096].
std::vector<double> performer_features(std::size_t num_features, std::size_t dim, bool orthogonal, std::uint64_t seed);

// phi(x)^T phi(y) with the features W (m x d): the unbiased estimate of exp(x^T y).
double favor_kernel_estimate(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& w);

ApproxResult performer(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                       const PerformerOptions& options = {});

// The cost performer counts, per (b, h), with m features, L queries, S keys:
//   score_entries = 0                                   (no query-key score is formed)
//   flops = (L + S) (m (2d + 2) + 3d)                   (per row: x = sqrt(scale) q, ||x||^2; per
//                                                        feature: w^T x, subtract, exp)
//         + S m (2Dv + 1)                               (phi(K)^T V and phi(K)^T 1)
//         + L m (2Dv + 2) + L Dv                        (phi(q)^T (..) for numerator and D, division)
//   peak elements = m d + S m + m Dv + 2m + d           (W, phi(K), phi(K)^T V, phi(K)^T 1, one phi(q)
//                                                        row, one scaled input row);
//   peak_bytes = 8 * that. Linear in L and S for fixed m, d, Dv.
CostCounts performer_cost(std::size_t batch_heads, std::size_t q_len, std::size_t kv_len, std::size_t head_dim,
                          std::size_t value_dim, std::size_t num_features);

}  // namespace attn::approx
