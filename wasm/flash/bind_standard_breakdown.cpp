// JavaScript API of the unfused standard-attention breakdown (attn/cost/standard_breakdown.hpp):
// where the forward pass's time goes, kernel by kernel. Its own file so the cost bindings stay
// as they are; arguments follow predictAttention's names and conventions.
#include <emscripten/bind.h>

#include <string>

#include "attn/cost/gpu_presets.hpp"
#include "attn/cost/roofline.hpp"
#include "attn/cost/standard_breakdown.hpp"
#include "convert.hpp"
#include "limits.hpp"

namespace attn::wasm {
namespace {

using namespace attn::cost;

std::string string_or(const val& in, const char* key, const char* fallback) {
    const val v = in[key];
    if (v.isUndefined()) {
        if (fallback == nullptr) throw Error(std::string(key) + ": missing");
        return fallback;
    }
    if (!v.isString()) throw Error(std::string(key) + ": must be a string");
    return v.as<std::string>();
}

std::size_t required(const val& in, const char* key, std::size_t lo, std::size_t hi) {
    if (in[key].isUndefined()) throw Error(std::string(key) + ": missing");
    return integer_arg(in, key, lo, hi, lo);
}

Causal causal_of(const val& in) {
    const std::string c = string_or(in, "causal", "none");
    if (c == "none") return Causal::none;
    if (c == "top_left") return Causal::top_left;
    if (c == "bottom_right") return Causal::bottom_right;
    throw Error("causal: must be 'none', 'top_left' or 'bottom_right'");
}

// {gpu, qLen, headDim, blockQ, batch?, heads?, kvLen?, valueDim?, causal?, precision?, dropout?}
val standard_attention_breakdown_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("gpu: missing (no arguments object given)");
        AttentionShape s;
        s.batch = integer_arg(in, "batch", 1, 65536, 1);
        s.heads = integer_arg(in, "heads", 1, 4096, 1);
        s.q_len = required(in, "qLen", 1, kMaxCostSeqLen);
        s.kv_len = integer_arg(in, "kvLen", 1, kMaxCostSeqLen, s.q_len);
        s.head_dim = required(in, "headDim", 1, 1024);
        s.value_dim = integer_arg(in, "valueDim", 1, 1024, s.head_dim);
        s.causal = causal_of(in);
        const GpuPreset& gpu = gpu_preset(string_or(in, "gpu", nullptr));
        const Precision precision = precision_from_name(string_or(in, "precision", "fp16"));
        const std::size_t block_q = required(in, "blockQ", 1, kMaxCostSeqLen);
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
