#include "attn/attention/sram_blocks.hpp"

#include <algorithm>
#include <string>

#include "attn/error.hpp"

namespace attn {

BlockSizes blocks_from_sram(std::size_t sram_elements, std::size_t head_dim) {
    if (head_dim == 0) throw Error("head_dim: must be >= 1, got 0");
    const std::size_t per_row = 4 * head_dim;
    // ceil(M / 4d) without the overflow of (M + 4d - 1) / 4d.
    const std::size_t bc = sram_elements / per_row + (sram_elements % per_row != 0);
    if (sram_elements == 0 || bc > kMaxDerivedBlock) {
        throw Error("sram_elements: must be in [1, " + std::to_string(kMaxDerivedBlock * per_row) +
                    "] for head_dim " + std::to_string(head_dim) + " (Bc = ceil(M / 4d) <= " +
                    std::to_string(kMaxDerivedBlock) + "), got " + std::to_string(sram_elements));
    }
    return {std::min(bc, head_dim), bc};
}

}  // namespace attn
