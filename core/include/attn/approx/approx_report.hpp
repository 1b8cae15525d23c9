#pragma once
// What every Part 2 method reports next to its output: how far it is from exact attention and
// what it cost. The error is measured against the dense reference (attn::sdpa in double) on the
// same inputs; the costs are exact counts of the work the implementation did, so the figures can
// plot "error vs. cost" from real runs.
#include <cstdint>

#include "attn/attention/sdpa.hpp"
#include "attn/tensor.hpp"

namespace attn::approx {

struct ErrorVsDense {
    double relative_frobenius = 0;  // ||O_approx - O_dense||_F / ||O_dense||_F (0 when both are zero)
    double max_abs = 0;             // max |O_approx - O_dense| over every element
    // Retrieval check: fraction of query rows whose output lies closest (Euclidean) to the value
    // row of the key the dense attention weights most. 1.0 = every row still retrieves its
    // top-1 key. Meaningful on retrieval-style inputs (one key much closer than the rest).
    double top1_preserved = 0;
};

struct CostCounts {
    std::uint64_t score_entries = 0;  // query-key scores computed (dense: B*H*L*S)
    std::uint64_t flops = 0;          // multiply-adds counted as 2 FLOPs, exp/div as 1
    std::uint64_t peak_bytes = 0;     // largest working set beyond inputs and output, at 8 bytes/element
};

struct ApproxResult {
    Tensor4<double> output;  // [B, H, L, Dv]
    ErrorVsDense error;
    CostCounts cost;
};

// Compares an approximate output with the dense one on the same q, k, v (unmasked, default scale
// 1/sqrt(d) unless `scale` > 0). Throws attn::Error if shapes disagree.
ErrorVsDense compare_with_dense(const Tensor4<double>& approx_output, const Tensor4<double>& q,
                                const Tensor4<double>& k, const Tensor4<double>& v, double scale = 0);

// The same measures against a dense run with `options` (scale, causal flag, mask): for methods
// whose exact counterpart is masked, e.g. causal linear attention, or Reformer's shared-QK
// attention in which a token does not attend to itself.
ErrorVsDense compare_with_dense(const Tensor4<double>& approx_output, const Tensor4<double>& q,
                                const Tensor4<double>& k, const Tensor4<double>& v, const SdpaOptions& options);

// The dense attention cost for the same shapes, as the baseline of every comparison.
CostCounts dense_cost(const Shape4& q_shape, const Shape4& k_shape, std::size_t value_dim);

}  // namespace attn::approx
