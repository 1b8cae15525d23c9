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

// Context vectors c = weights * values: [queries, keys] x [keys, value_dim] -> [queries, value_dim].
Matrix weighted_sum(const Matrix& weights, const Matrix& values);

}  // namespace attn::classic
