#pragma once
// Multi-head attention with its projections written out (Vaswani et al. 2017, arXiv:1706.03762,
// Sec. 3.2.2):
//
//   head_i   = softmax(mask(scale * (X_q W_i^Q)(X_kv W_i^K)^T)) (X_kv W_i^V)
//   MultiHead = Concat(head_1, ..., head_h) W^O
//
// with W_i^Q, W_i^K in R^{d_model x d_k}, W_i^V in R^{d_model x d_v}, W^O in R^{h d_v x d_model}
// and scale = 1/sqrt(d_k). No biases (the paper writes none).
//
// Two uses of the same function (Sec. 3.2.3):
//   * self-attention: queries, keys and values all come from one sequence X [B, L, d_model].
//     An encoder sees every position; a decoder's self-attention is causal (position i sees
//     positions <= i) so that training on a whole target sentence cannot peek at later words.
//   * cross-attention ("encoder-decoder attention"): queries come from the decoder sequence
//     [B, L_dec, d_model], keys and values from the encoder's output [B, L_enc, d_model], so every
//     decoder position may attend over all positions of the source. L_dec and L_enc differ in
//     general. Its only mask is the encoder's padding mask. It is never causal: decoder position i
//     and encoder position j index different sentences, the whole source is known before the
//     first target word is produced, and causality on the target side is already enforced by the
//     decoder's masked self-attention. A "causal" cross-attention would hide the end of the source
//     sentence from the first target words for no reason, so cross_attention refuses it.
//
// Padding: sequences in a batch are padded to a common length. key_lengths[b] marks keys at
// positions >= key_lengths[b] of batch entry b as padding; no query attends to them (PyTorch's
// key_padding_mask). Query rows at padded positions are still computed, as in PyTorch, and should
// be ignored by whatever consumes them.
//
// Sequences are Tensor4 with heads = 1: [B, 1, L, d_model]. The result exposes every intermediate
// (per-head Q, K, V, mask, weights and outputs) because the Part 1 figures draw them.
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/tensor.hpp"

namespace attn::classic {

struct MultiHeadWeights {
    std::size_t d_model = 0;    // in [1, 4096]
    std::size_t num_heads = 0;  // h, in [1, 256]
    std::size_t head_dim = 0;   // d_k, in [1, 4096]
    std::size_t value_dim = 0;  // d_v, in [1, 4096]
    std::vector<double> w_q;    // [num_heads, d_model, head_dim]: W_i^Q for head i
    std::vector<double> w_k;    // [num_heads, d_model, head_dim]
    std::vector<double> w_v;    // [num_heads, d_model, value_dim]
    std::vector<double> w_o;    // [num_heads * value_dim, d_model]: rows h*d_v .. h*d_v + d_v - 1 read head h
};

// Weights with i.i.d. N(0, 1/fan_in) entries (fan_in = d_model for W^Q, W^K, W^V and h d_v for
// W^O), so projections keep unit-scale inputs at unit scale. Seeded via attn::random_normal.
MultiHeadWeights random_multi_head_weights(std::size_t d_model, std::size_t num_heads, std::size_t head_dim,
                                           std::size_t value_dim, std::uint64_t seed);

struct MultiHeadOptions {
    bool causal = false;                    // self-attention only: query i sees keys 0..i
    std::vector<std::size_t> key_lengths;   // empty, or one length per batch entry, each in [1, L_kv]
    std::optional<double> scale;            // finite; default 1/sqrt(head_dim)
};

struct MultiHeadResult {
    Tensor4<double> q;             // [B, h, L_q, d_k]  X_q W_i^Q
    Tensor4<double> k;             // [B, h, L_kv, d_k] X_kv W_i^K
    Tensor4<double> v;             // [B, h, L_kv, d_v] X_kv W_i^V
    Tensor4<std::uint8_t> mask;    // [B, 1, L_q, L_kv] 1 = may attend (SDPA's boolean convention), shared by all heads
    Tensor4<double> weights;       // [B, h, L_q, L_kv] softmax weights per head, exactly 0 where masked
    Tensor4<double> head_outputs;  // [B, h, L_q, d_v]  head_i
    Tensor4<double> output;        // [B, 1, L_q, d_model] Concat(heads) W^O
};

// Self-attention over x [B, 1, L, d_model]; causal and key_lengths as in the options.
MultiHeadResult self_attention(const Tensor4<double>& x, const MultiHeadWeights& weights,
                               const MultiHeadOptions& options = {});

// Cross-attention: queries from `decoder` [B, 1, L_dec, d_model], keys and values from `encoder`
// [B, 1, L_enc, d_model]; key_lengths are the encoder's valid lengths. Throws attn::Error if
// options.causal is set (see above).
MultiHeadResult cross_attention(const Tensor4<double>& decoder, const Tensor4<double>& encoder,
                                const MultiHeadWeights& weights, const MultiHeadOptions& options = {});

}  // namespace attn::classic
