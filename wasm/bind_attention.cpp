// JavaScript API of the exact-attention algorithms: sdpa, flashForwardTrace, randomNormal.
// Thin by design: read and check the JS arguments, call the core, copy results into typed arrays.
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>

#include "attn/attention/flash_forward.hpp"
#include "attn/attention/sdpa.hpp"
#include "attn/attention/sram_blocks.hpp"
#include "attn/random.hpp"
#include "convert.hpp"
#include "limits.hpp"
#include "trace_js.hpp"

namespace attn::wasm {
namespace {

struct Qkv {
    Tensor4<float> q, k, v;
};

Qkv qkv_arg(const val& in) {
    return {tensor_arg(in, "q", "qShape", kMaxTensorElements), tensor_arg(in, "k", "kShape", kMaxTensorElements),
            tensor_arg(in, "v", "vShape", kMaxTensorElements)};
}

val sdpa_js(const val& in) {
    return guarded([&] {
        const Qkv t = qkv_arg(in);
        const double scores = static_cast<double>(t.q.shape.batch * t.q.shape.heads * t.q.shape.seq) *
                              static_cast<double>(t.k.shape.seq);
        if (scores > static_cast<double>(kMaxScoreElements)) {
            throw Error("qShape/kShape: batch * heads * L * S = " + std::to_string(static_cast<long long>(scores)) +
                        " exceeds the in-browser limit of " + std::to_string(kMaxScoreElements));
        }
        SdpaOptions o;
        static_cast<AttentionOptions&>(o) = attention_options_arg(in);
        o.dropout_p = number_arg(in, "dropoutP", 0.0, 0.999999, 0.0);
        o.dropout_seed = integer_arg(in, "dropoutSeed", 0, kMaxSeed, 0);
        o.return_probs = bool_arg(in, "returnProbs", false);
        const SdpaResult<float> r = sdpa(t.q, t.k, t.v, o);

        val out = val::object();
        out.set("output", to_float32_array(r.output.data));
        out.set("outputShape", shape_to_js(r.output.shape));
        out.set("lse", to_float32_array(r.lse));
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
        if (t.q.shape.seq > kMaxTraceLength || t.k.shape.seq > kMaxTraceLength) {
            throw Error("qShape/kShape: a traced run allows sequence lengths up to " + std::to_string(kMaxTraceLength) +
                        ", got L = " + std::to_string(t.q.shape.seq) + ", S = " + std::to_string(t.k.shape.seq));
        }
        FlashOptions o;
        static_cast<AttentionOptions&>(o) = attention_options_arg(in);
        o.block_q = integer_arg(in, "blockQ", 1, kMaxTraceLength, 64);
        o.block_k = integer_arg(in, "blockK", 1, kMaxTraceLength, 64);
        o.element_bytes = integer_arg(in, "elementBytes", 1, 8, 4);
        o.trace = true;
        o.trace_batch = integer_arg(in, "traceBatch", 0, t.q.shape.batch - 1, 0);
        o.trace_head = integer_arg(in, "traceHead", 0, t.q.shape.heads - 1, 0);
        o.loop_order = loop_order_arg(in);
        if (!in["sramElements"].isUndefined()) {
            o.sram_elements = integer_arg(in, "sramElements", 1, kMaxSramElements, 0);
            const BlockSizes b = blocks_from_sram(*o.sram_elements, std::max(t.q.shape.dim, t.v.shape.dim));
            o.block_q = b.block_q;
            o.block_k = b.block_k;
        }
        const std::size_t steps = ((t.q.shape.seq + o.block_q - 1) / o.block_q) * ((t.k.shape.seq + o.block_k - 1) / o.block_k);
        if (steps > kMaxTraceSteps) {
            throw Error(std::string(o.sram_elements ? "sramElements" : "blockQ/blockK") + ": " + std::to_string(steps) +
                        " tiles exceed the in-browser trace limit of " +
                        std::to_string(kMaxTraceSteps) + "; use larger blocks");
        }
        const FlashResult<float> r = flash_forward(t.q, t.k, t.v, o);

        val out = val::object();
        out.set("output", to_float32_array(r.output.data));
        out.set("outputShape", shape_to_js(r.output.shape));
        out.set("lse", to_float32_array(r.lse));
        out.set("numQBlocks", r.num_q_blocks);
        out.set("numKBlocks", r.num_k_blocks);
        out.set("blockQ", r.block_q);
        out.set("blockK", r.block_k);
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

val random_normal_js(const val& shape_holder, double seed, double stddev) {
    return guarded([&] {
        val args = val::object();
        args.set("shape", shape_holder);
        const Shape4 shape = shape_arg(args, "shape", kMaxTensorElements);
        if (!(seed >= 0 && seed <= static_cast<double>(kMaxSeed)) || std::floor(seed) != seed) {
            throw Error("seed: must be an integer in [0, " + std::to_string(kMaxSeed) + "]");
        }
        const auto t = random_normal(shape, static_cast<std::uint64_t>(seed), stddev);
        const std::vector<float> values(t.data.begin(), t.data.end());
        return to_float32_array(values);
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(attention) {
    emscripten::function("sdpa", &attn::wasm::sdpa_js);
    emscripten::function("flashForwardTrace", &attn::wasm::flash_forward_trace_js);
    emscripten::function("randomNormal", &attn::wasm::random_normal_js);
}
