#pragma once
// Rotary position embedding (Su et al., "RoFormer", arXiv:2104.09864, Sec. 3.4.2, eq. 34): the
// vector at position m is cut into d/2 pairs and pair i is rotated by the angle m * theta_i,
//
//   theta_i = base^(-2i/d),  i = 0 .. d/2 - 1,  base = 10000 in the paper.
//
// Because rotations compose, <RoPE(q, m), RoPE(k, n)> = q^T R(n - m) k depends on the positions
// only through m - n (eq. 16), which is what makes attention scores relative.
//
// Two layouts of the pairs are in use:
//   * half_split (the default): pair i is (x_i, x_{i + d/2}) -- GPT-NeoX's rotate_half, used by
//     Llama and Hugging Face transformers, so checkpoints of those models expect it;
//   * interleaved: pair i is (x_{2i}, x_{2i+1}) -- eq. 34 as printed (and the original GPT-J /
//     RoFormer code).
// They give the same angles to different coordinates: one is the other conjugated by a fixed
// permutation of the dimensions.
#include <cstdint>
#include <span>
#include <vector>

#include "attn/tensor.hpp"

namespace attn {

enum class RopeLayout { half_split, interleaved };

struct RopeOptions {
    double base = 10000.0;  // finite and > 1
    RopeLayout layout = RopeLayout::half_split;
};

// theta_i = base^(-2i/dim) for pair i in [0, dim/2); dim even and >= 2.
double rope_theta(std::size_t pair, std::size_t dim, double base = 10000.0);

// The rotation angles position * theta_i of every pair (in radians, not reduced mod 2 pi).
std::vector<double> rope_angles(std::size_t dim, std::uint64_t position, const RopeOptions& options = {});

// Rotates `x` in place as the vector at `position`. x.size() even and >= 2, position <= 2^32,
// entries finite.
template <class T>
void apply_rope(std::span<T> x, std::uint64_t position, const RopeOptions& options = {});

// The same, returning a rotated copy.
template <class T>
std::vector<T> rope(std::span<const T> x, std::uint64_t position, const RopeOptions& options = {});

// Every row of a [batch, heads, seq, dim] tensor rotated as position first_position + seq index.
template <class T>
Tensor4<T> rope_rows(const Tensor4<T>& x, std::uint64_t first_position, const RopeOptions& options = {});

}  // namespace attn
