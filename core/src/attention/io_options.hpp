#pragma once
// Private to the core: the option checks the IO-aware algorithms share (block sizes or an SRAM
// budget, the element size of the traffic model, the traced head).
#include <algorithm>
#include <string>

#include "attn/attention/options.hpp"
#include "attn/attention/sram_blocks.hpp"

namespace attn::detail {

// `O` has block_q, block_k, sram_elements, element_bytes, trace, trace_batch and trace_head.
// Returns the block sizes to use: derived from sram_elements when set (with d the wider of the
// key and value widths), block_q and block_k otherwise.
template <class O>
BlockSizes io_blocks(const O& o, const AttentionProblem& p) {
    if (o.block_q < 1 || o.block_q > kMaxDerivedBlock) {
        throw Error("block_q: must be in [1, " + std::to_string(kMaxDerivedBlock) + "], got " +
                    std::to_string(o.block_q));
    }
    if (o.block_k < 1 || o.block_k > kMaxDerivedBlock) {
        throw Error("block_k: must be in [1, " + std::to_string(kMaxDerivedBlock) + "], got " +
                    std::to_string(o.block_k));
    }
    if (o.element_bytes != 1 && o.element_bytes != 2 && o.element_bytes != 4 && o.element_bytes != 8) {
        throw Error("element_bytes: must be 1, 2, 4 or 8, got " + std::to_string(o.element_bytes));
    }
    if (o.trace && (o.trace_batch >= p.batch || o.trace_head >= p.q_heads)) {
        throw Error("trace_batch/trace_head: must be < (" + std::to_string(p.batch) + ", " + std::to_string(p.q_heads) +
                    "), got (" + std::to_string(o.trace_batch) + ", " + std::to_string(o.trace_head) + ")");
    }
    if (o.sram_elements) return blocks_from_sram(*o.sram_elements, std::max(p.head_dim, p.value_dim));
    return {o.block_q, o.block_k};
}

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return a / b + (a % b != 0); }

}  // namespace attn::detail
