// JavaScript API of the unfused standard-attention breakdown (attn/cost/standard_breakdown.hpp):
// where the forward pass's time goes, kernel by kernel; arguments follow predictAttention's names
// and conventions (the shared cost_shape_arg).
#include <emscripten/bind.h>

#include <string>

#include "attn/cost/gpu_presets.hpp"
#include "attn/cost/roofline.hpp"
#include "attn/cost/standard_breakdown.hpp"
#include "convert.hpp"
#include "cost_args.hpp"
#include "limits.hpp"

namespace attn::wasm {
namespace {

using namespace attn::cost;

// {gpu, qLen, headDim, blockQ, batch?, heads?, kvLen?, valueDim?, causal?, precision?, dropout?}
val standard_attention_breakdown_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("gpu: missing (no arguments object given)");
        const AttentionShape s = cost_shape_arg(in);
        const GpuPreset& gpu = gpu_preset(string_arg(in, "gpu", nullptr));
        const Precision precision = precision_from_name(string_arg(in, "precision", "fp16"));
        const std::size_t block_q = required_integer(in, "blockQ", 1, kMaxCostSeqLen);
        const auto ops = standard_attention_forward_breakdown(s, gpu, precision, block_q, bool_arg(in, "dropout", false));
        val out = val::array();
        for (const auto& op : ops) {
            val o = val::object();
            o.set("name", val(std::string(op.name)));
            o.set("kind", val(std::string(operation_kind_name(op.kind))));
            o.set("flops", op.flops);
            o.set("hbmBytes", op.hbm_bytes);
            o.set("timeS", op.time_s);
            out.call<void>("push", o);
        }
        return out;
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(attn_standard_breakdown) {
    emscripten::function("standardAttentionBreakdown", &attn::wasm::standard_attention_breakdown_js);
}
