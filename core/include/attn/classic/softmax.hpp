#pragma once
// The softmax that turns one row of alignment scores into attention weights, its entropy (how
// spread out the weights are), and the context vectors the weights select:
//
//   alpha_ij = exp(e_ij) / sum_k exp(e_ik),   c_i = sum_j alpha_ij h_j
//
// (Bahdanau, Cho & Bengio 2015, arXiv:1409.0473, eqs. 5-6).
#include <span>
#include <vector>

#include "attn/classic/matrix.hpp"

namespace attn::classic {

// Softmax of one row, computed as exp(e - max e) so large scores cannot overflow. Entries may be
// -inf (masked: weight exactly 0); at least one must be finite and none NaN or +inf.
std::vector<double> softmax(std::span<const double> scores);

// softmax applied to every row of a [queries, keys] score matrix.
Matrix softmax_rows(const Matrix& scores);

// Shannon entropy -sum p ln p in nats (0 ln 0 = 0): ln(n) for uniform weights over n keys, 0 for
// one-hot weights. `weights` must be >= 0, finite, and sum to 1 within 1e-9.
double entropy_nats(std::span<const double> weights);

// Frobenius norm of the softmax's Jacobian d alpha / d e = diag(alpha) - alpha alpha^T, from the
// weights alpha (same requirements as entropy_nats). It measures how much the weights can still
// move when the scores do: 0 for one-hot weights (a saturated softmax passes no gradient back to
// its scores -- Vaswani et al. 2017, footnote 4), sqrt(1/n - 1/n^2) for uniform weights over n keys.
double softmax_jacobian_norm(std::span<const double> weights);

// Context vectors c = weights * values: [queries, keys] x [keys, value_dim] -> [queries, value_dim].
Matrix weighted_sum(const Matrix& weights, const Matrix& values);

}  // namespace attn::classic
