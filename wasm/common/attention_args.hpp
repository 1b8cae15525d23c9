#pragma once
// JavaScript arguments shared by the bound attention algorithms (bind_attention.cpp, bind_io.cpp):
// the Q, K, V tensors, the in-browser size caps, and the blocking/trace options.
#include <algorithm>
#include <cstdint>

#include "attn/attention/sram_blocks.hpp"
#include "convert.hpp"
#include "limits.hpp"

namespace attn::wasm {

struct Qkv {
    Tensor4<float> q, k, v;
};

// B * Hq * L * S * (D + Dv), the multiply-adds of one exact attention pass, at most `limit`
// (kMaxAttentionWork, or kMaxHeavyAttentionWork for calls doing about twice that); names the
// shapes otherwise.
void require_attention_work(const Shape4& q, const Shape4& k, const Shape4& v, std::size_t limit);

// in.q / in.qShape, in.k / in.kShape, in.v / in.vShape, after require_attention_work.
Qkv qkv_arg(const val& in, std::size_t work_limit = kMaxAttentionWork);

// B * H * L * S bounds the work of every call (the size of sdpa's score matrix).
void require_score_budget(const Qkv& t);
// Traced runs keep every step: L and S at most kMaxTraceLength.
void require_trace_length(const Qkv& t);
// At most kMaxTraceSteps tiles; names the option that set the blocks.
void require_trace_tiles(std::size_t tiles, bool from_sram);

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// The tiles of one (batch, head) under blocks `b`, capped as require_trace_tiles does.
inline void require_trace_tiles(const Qkv& t, BlockSizes b, bool from_sram) {
    require_trace_tiles(ceil_div(t.q.shape.seq, b.block_q) * ceil_div(t.k.shape.seq, b.block_k), from_sram);
}
inline double counter(std::uint64_t n) { return static_cast<double>(n); }  // exact in JS below 2^53

// blockQ, blockK, sramElements, elementBytes, traceBatch, traceHead into any of the options structs
// of the tiled algorithms; returns the block sizes the core will use (sramElements overrides the
// explicit blocks, as in the core) and checks the trace's tile count.
template <class Options>
BlockSizes io_options_arg(const val& in, const Qkv& t, Options& o) {
    o.block_q = integer_arg(in, "blockQ", 1, kMaxTraceLength, 64);
    o.block_k = integer_arg(in, "blockK", 1, kMaxTraceLength, 64);
    o.element_bytes = integer_arg(in, "elementBytes", 1, 8, 4);
    o.trace_batch = integer_arg(in, "traceBatch", 0, t.q.shape.batch - 1, 0);
    o.trace_head = integer_arg(in, "traceHead", 0, t.q.shape.heads - 1, 0);
    if (in["sramElements"].isUndefined()) return {o.block_q, o.block_k};
    o.sram_elements = integer_arg(in, "sramElements", 1, kMaxSramElements, 0);
    return blocks_from_sram(*o.sram_elements, std::max(t.q.shape.dim, t.v.shape.dim));
}

// { output, outputShape, lse } of a forward pass.
val forward_result_js(const Tensor4<float>& output, const std::vector<float>& lse);

// numQBlocks, numKBlocks, blockQ, blockK of any tiled result (they share these field names).
template <class Result>
void set_blocking(val& out, const Result& r) {
    out.set("numQBlocks", r.num_q_blocks);
    out.set("numKBlocks", r.num_k_blocks);
    out.set("blockQ", r.block_q);
    out.set("blockK", r.block_k);
}

}  // namespace attn::wasm
