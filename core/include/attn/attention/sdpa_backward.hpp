#pragma once
// The dense backward reference: gradients of O = softmax(scale * Q K^T + mask) V with every L x S
// matrix materialised, the textbook chain rule that FlashAttention's recomputing backward must
// reproduce (FA1 paper, arXiv:2205.14135, Appendix B.2, eqs. for dV, dP, dS, dQ, dK):
//
//   P  = softmax(scale * Q K^T + mask)     (as sdpa computes it, without dropout)
//   dV = P^T dO
//   dP = dO V^T
//   D  = rowsum(P o dP)                    (equal to rowsum(dO o O); computed from P and dP here so
//                                           the reference does not share the shortcut it checks)
//   dS = P o (dP - D)
//   dQ = scale * dS K,   dK = scale * dS^T Q
//
// With grouped-query attention each key/value head receives the sum of the gradients of the
// query heads that read it. Rows in which every key is masked have P = 0 and get zero gradients.
#include "attn/attention/options.hpp"
#include "attn/tensor.hpp"

namespace attn {

template <class T>
struct AttentionGradients {
    Tensor4<T> dq;  // [B, Hq, L, D]
    Tensor4<T> dk;  // [B, Hkv, S, D]
    Tensor4<T> dv;  // [B, Hkv, S, Dv]
};

// d_o: the gradient of the loss with respect to the output, [B, Hq, L, Dv], finite.
template <class T>
AttentionGradients<T> sdpa_backward(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                    const Tensor4<T>& d_o, const AttentionOptions& options = {});

}  // namespace attn
