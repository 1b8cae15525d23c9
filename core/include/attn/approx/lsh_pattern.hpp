#pragma once
// Reformer's attention pattern at lengths where running LSH attention (and the dense reference it
// is measured against) is out of reach in a browser: the queries are hashed, sorted and chunked
// exactly as lsh_attention does (the same rotations from the same seed, the same (bucket,
// position) order, chunks of m with a look back of one chunk), and only the pairs it attends are
// counted into a density image -- no score is formed.
//
// Pair (i, j) is attended when, in at least one round, j is in i's bucket and in i's chunk or the
// one before it (in sorted order). The diagonal follows Appendix A's penalty: i attends itself only
// when it has no other target in any round (lsh_attention's combined softmax gives the self pair a
// weight below exp(-1e5) otherwise). The implementation still forms every score of a chunk block
// before masking: `cost` is lsh_attention_cost, the scores computed, of which `attended_pairs` are kept.
#include <cstdint>

#include "attn/approx/lsh_attention.hpp"
#include "attn/approx/sparse_patterns.hpp"

namespace attn::approx {

struct LshPattern {
    DensityImage image;                // attended pairs per pixel (edges as pattern_density_image)
    std::uint64_t attended_pairs = 0;  // sum of the image
    std::size_t chunk_length = 0;      // m used (clamped to N)
    CostCounts cost;                   // lsh_attention_cost(1, N, d, d, options)
};

// q is one head's queries, [1, 1, N, d] (keys are the unit queries, shared-QK), N <= 2^20 and
// N * d <= 2^24; pixels in [1, min(N, 2048)]. Work: rounds * N * (d * num_buckets / 2 + 2 m).
// Throws attn::Error naming the bad argument.
LshPattern lsh_pattern(const Tensor4<double>& q, const LshOptions& options, std::size_t pixels);

}  // namespace attn::approx
