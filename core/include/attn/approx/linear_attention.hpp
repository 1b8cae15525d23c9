#pragma once
// Linear Transformer attention (Katharopoulos et al. 2020, arXiv:2006.16236, Section 3):
// softmax(q^T k) is replaced by the kernel phi(q)^T phi(k) with phi(x) = elu(x) + 1 (Section 3.2.1),
//
//   O_i = phi(q_i)^T sum_j phi(k_j) v_j^T  /  phi(q_i)^T sum_j phi(k_j)          (Section 3.2)
//
// where the sums run over every key, or over j <= i when causal (Section 3.3). Two forms:
//   parallel:  the N x N kernel matrix phi(Q) phi(K)^T (lower triangle when causal) applied to V
//              and normalised row by row -- quadratic in N.
//   recurrent: Section 3.4 ("Transformers are RNNs"): running state
//              S_i = S_{i-1} + phi(k_i) v_i^T, z_i = z_{i-1} + phi(k_i), O_i = phi(q_i)^T S_i /
//              phi(q_i)^T z_i -- linear in N, constant memory; non-causal uses the final S and z.
// Both compute the same function; no scale is applied (the kernel replaces scaled exp). The
// error is reported against dense softmax attention with the default scale (causal when causal):
// this is a different kernel, not an approximation of softmax.
#include <cstdint>

#include "attn/approx/approx_report.hpp"

namespace attn::approx {

enum class LinearForm { parallel, recurrent };

struct LinearAttentionOptions {
    bool causal = false;  // key j visible to query i iff j <= i (top-left); needs L == S
    LinearForm form = LinearForm::recurrent;
};

ApproxResult linear_attention(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                              const LinearAttentionOptions& options = {});

// The cost linear_attention counts, per (b, h), for L queries, S keys (phi costs 2 FLOPs per
// element: exp or comparison, and the +1):
// recurrent:
//   score_entries = 0
//   flops = 2d (L + S) + S (2 d Dv + d) + L (2 d Dv + 2d + Dv)
//   peak elements = d Dv + d + 2d          (S, z, one phi(q) and one phi(k) row)
// parallel (E = L S entries, or L (L + 1) / 2 when causal):
//   score_entries = E
//   flops = 2d (L + S) + E (2d + 2Dv + 1) + L Dv
//   peak elements = L d + S d + L S        (phi(Q), phi(K), the kernel matrix)
// peak_bytes = 8 * peak elements.
CostCounts linear_attention_cost(std::size_t batch_heads, std::size_t q_len, std::size_t kv_len, std::size_t head_dim,
                                 std::size_t value_dim, const LinearAttentionOptions& options);

}  // namespace attn::approx
