#pragma once
// Causal masking as index arithmetic, shared by the reference, the tiled algorithm and kernels.
//
// With L query rows and S keys, PyTorch's `is_causal=True` aligns the triangle to the top-left
// corner (row i sees keys 0..i), while `causal_lower_right` -- the FlashAttention and decoding
// convention -- aligns it to the bottom-right corner (the last query sees every key; row i sees
// keys 0..i+S-L). They agree when L == S. Under bottom-right alignment with L > S the first L-S
// rows see no key at all; such rows produce zeros (see sdpa.hpp).
#include <cstddef>

#include "attn/host_device.hpp"

namespace attn {

enum class Causal { none, top_left, bottom_right };

// One past the last key index that query `row` may attend to under the causal rule alone.
ATTN_HD inline std::size_t causal_key_end(std::size_t row, std::size_t num_queries, std::size_t num_keys,
                                          Causal causal) {
    if (causal == Causal::none) return num_keys;
    // Top-left: row + 1. Bottom-right: row + 1 + (S - L), clamped to [0, S].
    const std::size_t shift = causal == Causal::bottom_right ? num_keys : num_queries;
    const std::size_t end_plus_l = row + 1 + shift;  // row + 1 + shift - L, kept unsigned
    if (end_plus_l <= num_queries) return 0;
    const std::size_t end = end_plus_l - num_queries;
    return end < num_keys ? end : num_keys;
}

}  // namespace attn
