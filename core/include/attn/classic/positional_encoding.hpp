#pragma once
// Sinusoidal positional encodings (Vaswani et al. 2017, arXiv:1706.03762, Sec. 3.5):
//
//   PE(pos, 2i)     = sin(pos / base^(2i / d_model))
//   PE(pos, 2i + 1) = cos(pos / base^(2i / d_model)),   base = 10000,  i = 0 .. d_model/2 - 1
//
// Why they are needed: attention itself has no notion of order. Self-attention is permutation-
// equivariant -- permuting the input tokens permutes the outputs the same way (each output
// depends on its own token and on the *set* of the others) -- so "dog bites man" and "man bites
// dog" would get the same per-word representations. (The plan's "permutation-invariant" is not
// quite right: a single query's attention-weighted sum is invariant to the order of the keys,
// but the sequence-to-sequence map is equivariant.) Adding PE(pos) to the token at position pos
// breaks the symmetry. test_classic_positional.cpp demonstrates both facts.
//
// The paper chose sinusoids because "for any fixed offset k, PE(pos + k) can be represented as a
// linear function of PE(pos)": positional_offset_matrix is that linear map.
#include <cstdint>

#include "attn/classic/matrix.hpp"
#include "attn/tensor.hpp"

namespace attn::classic {

// [num_positions, d_model] table, row pos = PE(pos). num_positions in [1, 65536], d_model even
// in [2, 4096], base finite and > 1.
Matrix sinusoidal_positional_encoding(std::size_t num_positions, std::size_t d_model, double base = 10000.0);

// x [B, 1, L, d_model] with PE(l) added to every token at position l (the encoder and decoder
// inputs: embeddings + positional encodings).
Tensor4<double> add_positional_encoding(const Tensor4<double>& x, double base = 10000.0);

// The [d_model, d_model] matrix M with PE(pos + offset) = M PE(pos) for every pos: block diagonal,
// one 2x2 rotation by offset * base^(-2i/d_model) per (sin, cos) pair. |offset| <= 65536.
Matrix positional_offset_matrix(std::size_t d_model, std::int64_t offset, double base = 10000.0);

}  // namespace attn::classic
