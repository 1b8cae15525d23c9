// JavaScript API of the IO-aware exact-attention algorithms of Part 3: standard attention as a GPU
// runs it (traced), the recomputing FlashAttention backward, and Rabe & Staats' chunked attention.
// flashForwardTrace (both loop orders) is bound in bind_attention.cpp. Thin by design: read and
// check the JS arguments, call the core, copy results into typed arrays.
#include <emscripten/bind.h>

#include <string>

#include "attn/attention/chunked_attention.hpp"
#include "attn/attention/flash_backward.hpp"
#include "attn/attention/standard_attention.hpp"
#include "attention_args.hpp"
#include "trace_js.hpp"

namespace attn::wasm {
namespace {

const char* standard_kind_name(StandardStepKind k) {
    switch (k) {
        case StandardStepKind::load_q: return "load_q";
        case StandardStepKind::score_tile: return "score_tile";
        case StandardStepKind::softmax_rows: return "softmax_rows";
        case StandardStepKind::pv_tile: return "pv_tile";
        case StandardStepKind::write_o: return "write_o";
    }
    return "";
}

val standard_attention_trace_js(const val& in) {
    return guarded([&] {
        const Qkv t = qkv_arg(in);
        require_trace_length(t);
        require_score_budget(t);
        StandardAttentionOptions o;
        static_cast<AttentionOptions&>(o) = attention_options_arg(in);
        const BlockSizes b = io_options_arg(in, t, o);
        require_trace_tiles(t, b, bool(o.sram_elements));
        o.trace = true;
        const StandardAttentionResult<float> r = standard_attention(t.q, t.k, t.v, o);

        val out = forward_result_js(r.output, r.lse);
        set_blocking(out, r);
        val stats = val::object();
        stats.set("hbmBytesRead", counter(r.stats.hbm_bytes_read));
        stats.set("hbmBytesWritten", counter(r.stats.hbm_bytes_written));
        stats.set("flops", counter(r.stats.flops));
        stats.set("peakSramBytes", counter(r.stats.peak_sram_bytes));
        stats.set("hbmIntermediateBytes", counter(r.stats.hbm_intermediate_bytes));
        out.set("stats", stats);
        StepsBuilder steps("qBlock,kBlock,rowBegin,rowEnd,colBegin,colEnd,hbmBytesRead,hbmBytesWritten,hbmBytesStored,"
                           "sramBytesHeld,flops",
                           "scores,probs,m,l,output", true);
        for (const auto& s : r.trace) {
            steps.add(standard_kind_name(s.kind),
                      {double(s.q_block), double(s.k_block), double(s.row_begin), double(s.row_end), double(s.col_begin),
                       double(s.col_end), counter(s.hbm_bytes_read), counter(s.hbm_bytes_written),
                       counter(s.hbm_bytes_stored), counter(s.sram_bytes_held), counter(s.flops)},
                      {&s.scores, &s.probs, &s.m, &s.l, &s.output}, s.transfers);
        }
        out.set("steps", steps.build());
        return out;
    });
}

const char* backward_kind_name(FlashBackwardStepKind k) {
    switch (k) {
        case FlashBackwardStepKind::compute_delta: return "compute_delta";
        case FlashBackwardStepKind::load_kv: return "load_kv";
        case FlashBackwardStepKind::tile: return "tile";
        case FlashBackwardStepKind::skip: return "skip";
        case FlashBackwardStepKind::write_dkdv: return "write_dkdv";
    }
    return "";
}

// obj[key] as a tensor of `shape` (the output's shape for o and dO).
Tensor4<float> tensor_of_shape(const val& in, const char* key, Shape4 shape) {
    return Tensor4<float>(shape, number_array_arg<float>(in[key], key, shape.numel(), shape.numel()), key);
}

val flash_backward_js(const val& in) {
    return guarded([&] {
        const Qkv t = qkv_arg(in, kMaxHeavyAttentionWork);
        require_score_budget(t);
        FlashBackwardOptions o;
        static_cast<AttentionOptions&>(o) = attention_options_arg(in);
        const BlockSizes b = io_options_arg(in, t, o);
        o.trace = bool_arg(in, "trace", false);
        if (o.trace) {
            require_trace_length(t);
            const std::size_t group = t.q.shape.heads / std::max<std::size_t>(t.k.shape.heads, 1);
            require_trace_tiles(group * ceil_div(t.q.shape.seq, b.block_q) * ceil_div(t.k.shape.seq, b.block_k),
                                bool(o.sram_elements));
        }
        const Shape4 out_shape{t.q.shape.batch, t.q.shape.heads, t.q.shape.seq, t.v.shape.dim};
        const Tensor4<float> o_t = tensor_of_shape(in, "o", out_shape);
        const Tensor4<float> d_o = tensor_of_shape(in, "dO", out_shape);
        // Capped before the copy; its exact length (B * Hq * L) is the core's check.
        const std::vector<float> lse = number_array_arg<float>(in["lse"], "lse", 0, kMaxTensorElements);
        const FlashBackwardResult<float> r = flash_backward(t.q, t.k, t.v, o_t, d_o, lse, o);

        val out = val::object();
        out.set("dQ", to_float32_array(r.dq.data));
        out.set("dK", to_float32_array(r.dk.data));
        out.set("dV", to_float32_array(r.dv.data));
        out.set("dQShape", shape_to_js(r.dq.shape));
        out.set("dKShape", shape_to_js(r.dk.shape));
        out.set("dVShape", shape_to_js(r.dv.shape));
        set_blocking(out, r);
        val stats = val::object();
        stats.set("hbmBytesRead", counter(r.stats.hbm_bytes_read));
        stats.set("hbmBytesWritten", counter(r.stats.hbm_bytes_written));
        stats.set("flops", counter(r.stats.flops));
        stats.set("recomputeFlops", counter(r.stats.recompute_flops));
        stats.set("tilesComputed", counter(r.stats.tiles_computed));
        stats.set("tilesSkipped", counter(r.stats.tiles_skipped));
        stats.set("peakSramBytes", counter(r.stats.peak_sram_bytes));
        stats.set("bytesNotStored", counter(r.stats.bytes_not_stored));
        out.set("stats", stats);
        StepsBuilder steps("qHead,qBlock,kBlock,rowBegin,rowEnd,colBegin,colEnd,hbmBytesRead,hbmBytesWritten,"
                           "sramBytesHeld,flops",
                           "probs,dScores,delta", true);
        for (const auto& s : r.trace) {
            steps.add(backward_kind_name(s.kind),
                      {double(s.q_head), double(s.q_block), double(s.k_block), double(s.row_begin), double(s.row_end),
                       double(s.col_begin), double(s.col_end), counter(s.hbm_bytes_read),
                       counter(s.hbm_bytes_written), counter(s.sram_bytes_held), counter(s.flops)},
                      {&s.probs, &s.d_scores, &s.delta}, s.transfers);
        }
        out.set("steps", steps.build());
        return out;
    });
}

val chunked_attention_js(const val& in) {
    return guarded([&] {
        const Qkv t = qkv_arg(in);
        require_score_budget(t);
        ChunkedAttentionOptions o;
        static_cast<AttentionOptions&>(o) = attention_options_arg(in);
        if (!in["queryChunk"].isUndefined()) o.query_chunk = integer_arg(in, "queryChunk", 1, kMaxTraceLength * 1024, 1);
        if (!in["keyChunk"].isUndefined()) o.key_chunk = integer_arg(in, "keyChunk", 1, kMaxTraceLength * 1024, 1);
        o.element_bytes = integer_arg(in, "elementBytes", 1, 8, 4);
        o.trace = bool_arg(in, "trace", false);
        o.trace_batch = integer_arg(in, "traceBatch", 0, t.q.shape.batch - 1, 0);
        o.trace_head = integer_arg(in, "traceHead", 0, t.q.shape.heads - 1, 0);
        const ChunkSizes c = chunk_sizes(t.q.shape.seq, t.k.shape.seq, o);
        const std::size_t trace_steps = ceil_div(t.q.shape.seq, c.query_chunk) * (ceil_div(t.k.shape.seq, c.key_chunk) + 1);
        if (o.trace && trace_steps > kMaxTraceSteps) {
            throw Error("queryChunk/keyChunk: " + std::to_string(trace_steps) +
                        " trace steps exceed the in-browser trace limit of " + std::to_string(kMaxTraceSteps) +
                        "; use larger chunks");
        }
        const ChunkedAttentionResult<float> r = chunked_attention(t.q, t.k, t.v, o);

        val out = forward_result_js(r.output, r.lse);
        out.set("queryChunk", r.query_chunk);
        out.set("keyChunk", r.key_chunk);
        out.set("numQChunks", r.num_q_chunks);
        out.set("numKChunks", r.num_k_chunks);
        val stats = val::object();
        stats.set("peakIntermediateElements", counter(r.stats.peak_intermediate_elements));
        stats.set("peakIntermediateBytes", counter(r.stats.peak_intermediate_bytes));
        stats.set("denseScoreElements", counter(r.stats.dense_score_elements));
        stats.set("flops", counter(r.stats.flops));
        out.set("stats", stats);
        StepsBuilder steps("qChunk,kChunk,rowBegin,rowEnd,colBegin,colEnd,liveElements", "m,l,output", false);
        for (const auto& s : r.trace) {
            steps.add(s.kind == ChunkedStepKind::summarize ? "summarize" : "combine",
                      {double(s.q_chunk), double(s.k_chunk), double(s.row_begin), double(s.row_end),
                       double(s.col_begin), double(s.col_end), counter(s.live_elements)},
                      {&s.m, &s.l, &s.output});
        }
        out.set("steps", steps.build());
        return out;
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(io) {
    emscripten::function("standardAttentionTrace", &attn::wasm::standard_attention_trace_js);
    emscripten::function("flashBackward", &attn::wasm::flash_backward_js);
    emscripten::function("chunkedAttention", &attn::wasm::chunked_attention_js);
}
