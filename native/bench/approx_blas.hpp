#pragma once
// Part 2's approximate attention methods in FP32 on OpenBLAS, optimised as far as the exact
// baselines they are timed against (standard_attention_blas, attn::flash_forward_fast): every
// product is an sgemm, every exponential the vectorised one, independent rows spread over the
// hardware threads. The core's versions (attn/approx/) are the readable double-precision
// references; each function here computes the same function with the same parameters, and the
// benchmark checks it against them before timing (approx_benchmarks.cpp).
//
// One K/V head per query head, non-causal, q/k/v [B, H, N, d] with k, v of N rows, as in Part 2.
#include <cstddef>
#include <vector>

#include "attn/tensor.hpp"

namespace attn::bench {

// Performer FAVOR+ (attn/approx/performer.hpp): features w [m x d] row-major, scale 1/sqrt(d),
// per-query and one global key shift of the exponents, O = D^-1 phi(Q) (phi(K)^T V).
Tensor4<float> performer_blas(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v,
                              const std::vector<float>& w, std::size_t num_features);

// Linformer (attn/approx/linformer.hpp): e, f [projected x N] row-major,
// O = softmax(Q (E K)^T / sqrt(d)) (F V).
Tensor4<float> linformer_blas(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v,
                              const std::vector<float>& e, const std::vector<float>& f, std::size_t projected);

// Linear Transformer, non-causal (attn/approx/linear_attention.hpp): phi = elu + 1,
// O_i = phi(q_i)^T (phi(K)^T V) / phi(q_i)^T (phi(K)^T 1).
Tensor4<float> linear_attention_blas(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v);

// Longformer's sliding window without global tokens (attn/approx/sparse_patterns.hpp,
// longformer_pattern(window, 0)): query i attends to keys j with |i - j| <= window, computed in
// blocks of 64 queries against the band of keys they can see.
Tensor4<float> sliding_window_blas(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v,
                                   std::size_t one_sided_window);

// Reformer's LSH attention, one round (attn/approx/lsh_attention.hpp): shared-QK keys (unit
// queries; `k` is not read), buckets argmax([x R; -x R]) with rotation r [d x num_buckets / 2],
// positions sorted by (bucket, position), each query attending to the same-bucket keys of its
// chunk and the previous chunk of `chunk` sorted positions, itself only when alone.
Tensor4<float> lsh_attention_blas(const Tensor4<float>& q, const Tensor4<float>& v, const std::vector<float>& r,
                                  std::size_t num_buckets, std::size_t chunk);

// What LSH attention approximates, exactly: softmax(Q U^T / sqrt(d)) V with U the unit queries and
// the diagonal masked (a token does not attend to itself), as standard attention computes it.
Tensor4<float> shared_qk_attention_blas(const Tensor4<float>& q, const Tensor4<float>& v);

}  // namespace attn::bench
