#pragma once
// Synthesizer (Tay et al. 2021, arXiv:2005.00743, Section 3): attention weights that do not come
// from query-key dot products.
//   dense  (Section 3.1): B_i = W_2 relu(W_1 x_i) in R^N for each token x_i, Y = softmax(B) V
//   random (Section 3.2): Y = softmax(R) V with R in R^{N x N} a fixed random matrix
// The token representations x_i are the query rows q_i; G(X) is the given V. In the paper W_1,
// W_2 and R are trained; here they are random: W_1 (d x h) and W_2 (h x N) with i.i.d.
// N(0, 1/fan_in) entries, R with i.i.d. N(0, 1) entries, from the seed. The biases b_1, b_2 of
// the dense MLP are left out (initialised to zero they add nothing). Self-attention only: the MLP's
// output width is the number of keys, so L = N. The error against dense sdpa measures how far
// an untrained synthetic pattern is from content-based attention: it is large by construction.
#include <cstdint>

#include "attn/approx/approx_report.hpp"

namespace attn::approx {

enum class SynthesizerKind { dense, random };

struct SynthesizerOptions {
    SynthesizerKind kind = SynthesizerKind::dense;
    std::size_t hidden = 0;  // h of the dense MLP, in [1, 4096]; 0 = head_dim
    std::uint64_t seed = 0;
};

ApproxResult synthesizer(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                         const SynthesizerOptions& options = {});

// The cost synthesizer counts, per (b, h), with N tokens (L = S = N):
//   score_entries = N^2                     (synthesized weights, one per (query, key))
//   dense:  flops = N (2 d h + h + 2 h N) + N^2 (2 + 2Dv)     (MLP with ReLU; exp, normalise, p v)
//           peak elements = h + N^2                            (one hidden row, B)
//   random: flops = N^2 (2 + 2Dv);  peak elements = N^2        (R, turned into weights in place)
// peak_bytes = 8 * peak elements.
CostCounts synthesizer_cost(std::size_t batch_heads, std::size_t seq_len, std::size_t head_dim, std::size_t value_dim,
                            const SynthesizerOptions& options);

}  // namespace attn::approx
