#pragma once
// The random orthogonal transform of FlashAttention-3's "incoherent processing" (Shah et al.
// 2024, arXiv:2407.08608, §3.3; after QuIP, Chee et al. 2023): M = D H / sqrt(d), with D a random
// diagonal of +-1 and H the d x d Walsh-Hadamard matrix (Sylvester's construction, d a power of
// two). M M^T = I, so (Q M)(K M)^T = Q K^T: rotating both Q and K leaves the scores unchanged in
// exact arithmetic, while each rotated entry is a +-1-weighted sum of a whole row, which spreads
// an outlier over all d entries before FP8 quantisation. Applying M costs O(d log d) per row.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace attn {

// The sign D_ii of column i for `seed`: +1 or -1, each with probability 1/2.
double hadamard_sign(std::uint64_t seed, std::size_t i);

// Replaces each row x (consecutive runs of `dim` values) by x M. Throws attn::Error if dim is not a
// power of two in [1, 65536] or rows.size() is not a multiple of dim.
void apply_random_hadamard(std::span<double> rows, std::size_t dim, std::uint64_t seed);

// M itself, row-major dim x dim (for tests and figures).
std::vector<double> random_hadamard_matrix(std::size_t dim, std::uint64_t seed);

}  // namespace attn
