#pragma once
// Block sizes from an SRAM budget, as FlashAttention-1 chooses them (Dao et al. 2022,
// arXiv:2205.14135, Algorithm 1 line 1): with M elements of on-chip memory and head dimension d,
//
//   Bc = ceil(M / 4d),   Br = min(Bc, d).
//
// The 4d is what one step keeps on chip: a K and a V block (Bc x d each) and a Q and an O block
// (Br x d each, Br <= Bc), about 4 Bc d elements. M counts ELEMENTS, as in the paper, not bytes.
#include <cstddef>

namespace attn {

struct BlockSizes {
    std::size_t block_q;  // Br, rows of Q (and O, S) per block
    std::size_t block_k;  // Bc, rows of K and V per block
};

inline constexpr std::size_t kMaxDerivedBlock = 4096;  // the largest block the tiled algorithms accept

// `head_dim` is the d of the formula; with different key and value widths pass the larger one.
// Throws attn::Error if sram_elements or head_dim is 0, or if Bc would exceed kMaxDerivedBlock
// (M > 4d * 4096: a budget that large needs only one block per sequence anyway, so clamp M).
BlockSizes blocks_from_sram(std::size_t sram_elements, std::size_t head_dim);

}  // namespace attn
