#pragma once
// Standard attention the way a framework's CPU "math" backend runs it (PyTorch's
// scaled_dot_product_attention without a fused kernel): three passes over an N x N matrix that
// lives in main memory (FlashAttention paper, Algorithm 0).
//
//   S = scale * Q K^T        one OpenBLAS sgemm per head, into a [B, H, L, S] buffer
//   P = softmax(S) row-wise  numerically stable (max subtracted), causal entries -> 0, in place,
//                            rows split over std::threads, exponentials by fast_exp2 (vectorised,
//                            as frameworks' vectorised exp -- a fair baseline, not a strawman)
//   O = P V                  one sgemm per head
//
// It is a benchmark baseline, not part of the core. P overwrites S in place, so it needs one
// L x S buffer per head, all heads at once (a framework's batched matmul output); a framework
// usually holds two (softmax returns a new tensor), so this baseline's memory is a lower bound.
#include "attn/attention/causal.hpp"
#include "attn/tensor.hpp"

namespace attn::bench {

// q [B, Hq, L, d], k [B, Hkv, S, d], v [B, Hkv, S, dv]; Hkv divides Hq (GQA). Rows that see no
// key give zeros. Shapes are assumed valid (the benchmark builds them).
Tensor4<float> standard_attention_blas(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v,
                                       Causal causal);

}  // namespace attn::bench
