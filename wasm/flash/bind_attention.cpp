// JavaScript API of the exact-attention algorithms: sdpa, flashForwardTrace.
// Thin by design: read and check the JS arguments, call the core, copy results into typed arrays.
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>

#include "attn/attention/flash_forward.hpp"
#include "attn/attention/sdpa.hpp"
#include "attention_args.hpp"
#include "trace_js.hpp"

namespace attn::wasm {
namespace {

val sdpa_js(const val& in) {
    return guarded([&] {
        const Qkv t = qkv_arg(in);
        require_score_budget(t);
        SdpaOptions o;
        static_cast<AttentionOptions&>(o) = attention_options_arg(in);
        o.dropout_p = number_arg(in, "dropoutP", 0.0, 0.999999, 0.0);
        o.dropout_seed = integer_arg(in, "dropoutSeed", 0, kMaxSeed, 0);
        o.return_probs = bool_arg(in, "returnProbs", false);
        const SdpaResult<float> r = sdpa(t.q, t.k, t.v, o);

        val out = forward_result_js(r.output, r.lse);
        if (o.return_probs) out.set("probs", to_float32_array(r.probs));
        return out;
    });
}

const char* step_kind_name(FlashStepKind k) {
    switch (k) {
        case FlashStepKind::load_q: return "load_q";
        case FlashStepKind::tile: return "tile";
        case FlashStepKind::skip: return "skip";
        case FlashStepKind::write_o: return "write_o";
        case FlashStepKind::init_o: return "init_o";
        case FlashStepKind::load_kv: return "load_kv";
    }
    return "";
}

val steps_to_js(const std::vector<FlashTraceStep<float>>& trace) {
    // Byte and FLOP counters stay far below 2^53 under the caps, so JS numbers are exact.
    StepsBuilder steps("qBlock,kBlock,rowBegin,rowEnd,colBegin,colEnd,hbmBytesRead,hbmBytesWritten,sramBytesHeld,flops",
                       "scores,weights,m,l,rescale,acc,output", true);
    for (const auto& s : trace) {
        steps.add(step_kind_name(s.kind),
                  {double(s.q_block), double(s.k_block), double(s.row_begin), double(s.row_end), double(s.col_begin),
                   double(s.col_end), double(s.hbm_bytes_read), double(s.hbm_bytes_written), double(s.sram_bytes_held),
                   double(s.flops)},
                  {&s.scores, &s.weights, &s.m, &s.l, &s.rescale, &s.acc, &s.output}, s.transfers);
    }
    return steps.build();
}

FlashLoopOrder loop_order_arg(const val& in) {
    const val order = in["loopOrder"];
    if (order.isUndefined()) return FlashLoopOrder::fa2_q_outer;
    const std::string name = order.isString() ? order.as<std::string>() : "";
    if (name == "fa2") return FlashLoopOrder::fa2_q_outer;
    if (name == "fa1") return FlashLoopOrder::fa1_kv_outer;
    throw Error("loopOrder: must be 'fa2' (query blocks outer) or 'fa1' (key/value blocks outer)");
}

val flash_forward_trace_js(const val& in) {
    return guarded([&] {
        const Qkv t = qkv_arg(in);
        require_trace_length(t);
        FlashOptions o;
        static_cast<AttentionOptions&>(o) = attention_options_arg(in);
        o.trace = true;
        o.loop_order = loop_order_arg(in);
        const BlockSizes b = io_options_arg(in, t, o);
        require_trace_tiles(t, b, bool(o.sram_elements));
        const FlashResult<float> r = flash_forward(t.q, t.k, t.v, o);

        val out = forward_result_js(r.output, r.lse);
        set_blocking(out, r);
        val stats = val::object();
        stats.set("hbmBytesRead", static_cast<double>(r.stats.hbm_bytes_read));
        stats.set("hbmBytesWritten", static_cast<double>(r.stats.hbm_bytes_written));
        stats.set("flops", static_cast<double>(r.stats.flops));
        stats.set("tilesComputed", static_cast<double>(r.stats.tiles_computed));
        stats.set("tilesSkipped", static_cast<double>(r.stats.tiles_skipped));
        stats.set("peakSramBytes", static_cast<double>(r.stats.peak_sram_bytes));
        out.set("stats", stats);
        out.set("steps", steps_to_js(r.trace));
        return out;
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(attention) {
    emscripten::function("sdpa", &attn::wasm::sdpa_js);
    emscripten::function("flashForwardTrace", &attn::wasm::flash_forward_trace_js);
}
