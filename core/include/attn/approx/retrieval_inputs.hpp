#pragma once
// Retrieval-style inputs for the top-1 check of the approximate methods: keys and values are
// i.i.d. N(0, 1); each query is a scaled noisy copy of one key, its target, drawn uniformly:
//   q_i = sharpness * (k_{t(i)} + noise * e_i),   e_i ~ N(0, I_d).
// With the default scale 1/sqrt(d) the target's score is about sharpness * sqrt(d) while the
// others are N(0, sharpness^2 (1 + noise^2)). At d = 64, N = 1024, noise 0.1: with sharpness 1
// the target gets about 2/3 of the weight (and the output is then not always nearest to its value
// row); with sharpness 2 about 0.999, so dense attention clearly retrieves it and a method that
// drops or blurs the target is caught by the top-1 check.
#include <cstdint>
#include <vector>

#include "attn/tensor.hpp"

namespace attn::approx {

struct RetrievalInputs {
    Tensor4<double> q, k, v;
    std::vector<std::uint32_t> targets;  // t(i) for each (b, h, i): index (b * H + h) * L + i
};

// q is [shape.batch, shape.heads, shape.seq, shape.dim]; k, v have kv_len rows (v value_dim wide).
// noise in [0, 100], sharpness in (0, 100]; every size >= 1.
RetrievalInputs retrieval_inputs(Shape4 q_shape, std::size_t kv_len, std::size_t value_dim, double noise,
                                 double sharpness, std::uint64_t seed);

}  // namespace attn::approx
