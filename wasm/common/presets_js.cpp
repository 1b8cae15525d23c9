#include "presets_js.hpp"

#include <cmath>
#include <string>

#include "attn/cost/gpu_presets.hpp"
#include "attn/models/model_presets.hpp"
#include "convert.hpp"

namespace attn::wasm {
namespace {

using namespace attn::cost;

std::string string_value(const val& v, const char* name) {
    if (!v.isString()) throw Error(std::string(name) + ": must be a string");
    return v.as<std::string>();
}

// Numbers a primary source does not publish (NaN in the core) come back as null.
val number_or_null(double x) { return std::isnan(x) ? val::null() : val(x); }

template <class Count>
val sourced_to_js(const Count& s) {
    val o = val::object();
    o.set("value", number_or_null(static_cast<double>(s.value)));
    o.set("source", val(std::string(s.source)));
    return o;
}

val gpu_to_js(const GpuPreset& g) {
    val o = val::object();
    o.set("id", val(std::string(g.id)));
    o.set("name", val(std::string(g.name)));
    o.set("architecture", val(std::string(g.architecture)));
    o.set("memoryType", val(std::string(g.memory_type)));
    o.set("smCount", sourced_to_js(g.sm_count));
    o.set("boostClockHz", sourced_to_js(g.boost_clock_hz));
    o.set("registerFilePerSmBytes", sourced_to_js(g.register_file_per_sm_bytes));
    o.set("sramPerSmBytes", sourced_to_js(g.sram_per_sm_bytes));
    o.set("sramBytesPerS", sourced_to_js(sram_bytes_per_s(g)));
    o.set("l2Bytes", sourced_to_js(g.l2_bytes));
    o.set("l2BytesPerS", sourced_to_js(g.l2_bytes_per_s));
    o.set("hbmBytes", sourced_to_js(g.hbm_bytes));
    o.set("hbmBytesPerS", sourced_to_js(g.hbm_bytes_per_s));
    o.set("hostLinkBytesPerS", sourced_to_js(g.host_link_bytes_per_s));
    o.set("fp32Flops", sourced_to_js(g.fp32_flops));
    o.set("tf32Flops", sourced_to_js(g.tf32_flops));
    o.set("fp16Flops", sourced_to_js(g.fp16_flops));
    o.set("fp8Flops", sourced_to_js(g.fp8_flops));
    return o;
}

val model_to_js(const models::ModelPreset& m) {
    val o = val::object();
    o.set("id", val(std::string(m.id)));
    o.set("name", val(std::string(m.name)));
    o.set("layers", sourced_to_js(m.layers));
    o.set("hiddenSize", sourced_to_js(m.hidden_size));
    o.set("qHeads", sourced_to_js(m.q_heads));
    o.set("kvHeads", sourced_to_js(m.kv_heads));
    o.set("headDim", sourced_to_js(m.head_dim));
    o.set("maxContext", sourced_to_js(m.max_context));
    o.set("slidingWindow", sourced_to_js(m.sliding_window));
    o.set("activeParameters", sourced_to_js(m.active_parameters));
    o.set("totalParameters", m.total_parameters ? sourced_to_js(*m.total_parameters) : val::null());
    if (m.mla) {
        val mla = val::object();
        mla.set("kvLoraRank", sourced_to_js(m.mla->kv_lora_rank));
        mla.set("qkRopeHeadDim", sourced_to_js(m.mla->qk_rope_head_dim));
        mla.set("qkNopeHeadDim", sourced_to_js(m.mla->qk_nope_head_dim));
        mla.set("vHeadDim", sourced_to_js(m.mla->v_head_dim));
        mla.set("qLoraRank", sourced_to_js(m.mla->q_lora_rank));
        o.set("mla", mla);
    } else {
        o.set("mla", val::null());
    }
    return o;
}

}  // namespace

val gpu_presets_js() {
    return guarded([] {
        val a = val::array();
        for (const GpuPreset& g : gpu_presets()) a.call<void>("push", gpu_to_js(g));
        return a;
    });
}

val gpu_preset_js(const val& id) {
    return guarded([&] { return gpu_to_js(gpu_preset(string_value(id, "gpu"))); });
}

val model_presets_js() {
    return guarded([] {
        val a = val::array();
        for (const models::ModelPreset& m : models::model_presets()) a.call<void>("push", model_to_js(m));
        return a;
    });
}

val model_preset_js(const val& id) {
    return guarded([&] { return model_to_js(models::model_preset(string_value(id, "model"))); });
}

}  // namespace attn::wasm
