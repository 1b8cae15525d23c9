#pragma once
// The dense reference: attention exactly as PyTorch's scaled_dot_product_attention defines it
// (the "math" backend), materialising every score. Every other algorithm in the core is tested
// against this function evaluated in double precision.
//
//   scores = scale * Q K^T + mask        (masked entries -inf; causal masks as in causal.hpp)
//   P      = softmax(scores, row-wise)
//   P'     = dropout(P, p): each weight kept with probability 1-p and scaled by 1/(1-p)
//   O      = P' V,   lse = log(sum_j exp(scores_j))   (log-sum-exp before dropout)
//
// Rows in which every key is masked have no softmax; SDPA returns NaN there, this reference
// returns a zero output row and lse = -inf (the FlashAttention convention), and the
// probabilities of that row are all zero.
#include <cstdint>
#include <vector>

#include "attn/attention/options.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct SdpaOptions : AttentionOptions {
    double dropout_p = 0.0;          // in [0, 1)
    std::uint64_t dropout_seed = 0;  // the same seed drops the same weights
    bool return_probs = false;       // also return P' as [B, Hq, L, S]
};

template <class T>
struct SdpaResult {
    Tensor4<T> output;     // [B, Hq, L, Dv]
    std::vector<T> lse;    // [B, Hq, L]
    std::vector<T> probs;  // [B, Hq, L, S], the weights that multiplied V; empty unless requested
};

template <class T>
SdpaResult<T> sdpa(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v, const SdpaOptions& options = {});

// Whether dropout keeps weight (b, h, i, j): a counter-based hash of the position, so the
// decision does not depend on the order in which an algorithm visits the scores.
bool dropout_keeps(std::uint64_t seed, double p, std::size_t b, std::size_t h, std::size_t i, std::size_t j);

}  // namespace attn
