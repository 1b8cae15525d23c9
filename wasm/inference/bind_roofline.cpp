// JavaScript API of the decode step on the roofline (attn/cost/decode_roofline.hpp): one step of a
// model preset under a KV scheme, at a context and batch, on a GPU preset; and the GPU and model
// presets themselves, from the implementation the flash module binds too (common/presets_js.hpp).
// Thin by design: read and check the JS arguments, call the core, return plain objects.
#include <emscripten/bind.h>

#include <string>

#include "attn/cost/decode_roofline.hpp"
#include "attn/cost/gpu_presets.hpp"
#include "attn/models/model_presets.hpp"
#include "convert.hpp"
#include "kv_js.hpp"
#include "limits.hpp"
#include "presets_js.hpp"

namespace attn::wasm {
namespace {

using namespace attn::cost;
using namespace attn::kvcache;

// {model, scheme, gqaGroups, contextTokens, batch, dtype, weights, gpu}
val decode_roofline_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull() || in.typeOf().as<std::string>() != "object") {
            throw Error("model: missing (no arguments object given)");
        }
        const models::ModelPreset& model = models::model_preset(string_arg(in, "model", nullptr));
        const KvConfig own = kv_config_from_preset(model);
        const KvScheme scheme = kv_scheme_from_name(string_arg(in, "scheme", std::string(kv_scheme_name(own.scheme)).c_str()));
        const std::size_t groups = integer_arg(in, "gqaGroups", 1, kMaxKvCount, 0);
        if (groups != 0 && scheme != KvScheme::gqa) throw Error("gqaGroups: applies to scheme 'gqa' only");
        const bool weights = bool_arg(in, "weights", true);
        const GpuPreset& gpu = gpu_preset(string_arg(in, "gpu", "h100-sxm"));

        DecodeProblem p;
        p.cache = kv_config_for_scheme(model, scheme, groups);
        p.dtype = dtype_arg(in);
        p.context_tokens = required_integer(in, "contextTokens", 1, kMaxKvContextTokens);
        p.batch = integer_arg(in, "batch", 1, kMaxKvBatch, 1);
        p.weight_parameters = weights ? model.active_parameters.value : 0;
        const DecodeRoofline r = decode_roofline(p, gpu);

        val o = val::object();
        o.set("model", val(std::string(model.id)));
        o.set("scheme", val(std::string(kv_scheme_name(scheme))));
        o.set("ownScheme", val(scheme == own.scheme && (scheme != KvScheme::gqa || r.kv.config.kv_heads == own.kv_heads)));
        o.set("gpu", val(std::string(gpu.id)));
        o.set("precision", val(std::string(precision_name(r.precision))));
        o.set("weightsCounted", val(weights));
        o.set("weightParameters", exact_count(p.weight_parameters, "weightParameters"));
        o.set("groupSize", val(r.group_size));
        o.set("kv", kv_bytes_to_js(r.kv));
        o.set("attentionFlops", exact_count(r.attention_flops, "attentionFlops"));
        o.set("weightFlops", exact_count(r.weight_flops, "weightFlops"));
        o.set("flops", exact_count(r.flops, "flops"));
        o.set("kvBytesRead", exact_count(r.kv_bytes_read, "kvBytesRead"));
        o.set("weightBytesRead", exact_count(r.weight_bytes_read, "weightBytesRead"));
        o.set("bytesRead", exact_count(r.bytes_read, "bytesRead"));
        o.set("attentionIntensity", val(r.attention_intensity));
        o.set("arithmeticIntensity", val(r.arithmetic_intensity));
        o.set("peakFlopsPerS", val(r.peak_flops_per_s));
        o.set("hbmBytesPerS", val(r.hbm_bytes_per_s));
        o.set("ridgePoint", val(r.ridge_point));
        o.set("attainableFlopsPerS", val(r.attainable_flops_per_s));
        o.set("bound", val(std::string(bound_name(r.bound))));
        o.set("memoryTimeS", val(r.memory_time_s));
        o.set("kvMemoryTimeS", val(r.kv_memory_time_s));
        o.set("computeTimeS", val(r.compute_time_s));
        o.set("tpotLowerBoundS", val(r.tpot_lower_bound_s));
        o.set("footprintBytes", exact_count(r.footprint_bytes, "footprintBytes"));
        o.set("hbmCapacityBytes", val(r.hbm_capacity_bytes));
        o.set("fits", val(r.fits));
        o.set("maxContextFitting", r.max_context_fitting ? val(exact_count(*r.max_context_fitting, "maxContextFitting")) : val::null());
        return o;
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(roofline) {
    emscripten::function("decodeRoofline", &attn::wasm::decode_roofline_js);
    // Shared with the flash module (common/presets_js.hpp).
    emscripten::function("gpuPresets", &attn::wasm::gpu_presets_js);
    emscripten::function("gpuPreset", &attn::wasm::gpu_preset_js);
    emscripten::function("modelPresets", &attn::wasm::model_presets_js);
    emscripten::function("modelPreset", &attn::wasm::model_preset_js);
}
