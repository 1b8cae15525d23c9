// JavaScript API of the roofline cost model: GPU and model presets with their sources (the shared
// implementation in common/presets_js.hpp, which the inference module binds too), roofline queries,
// attention FLOPs and HBM traffic, predictions per GPU, and the N x N footprint.
// Thin by design: read and check the JS arguments, call the core (attn::cost, attn::models),
// return plain objects. Numbers a primary source does not publish come back as null.
#include <emscripten/bind.h>

#include <cmath>
#include <string>

#include "attn/cost/attention_cost.hpp"
#include "attn/cost/gpu_presets.hpp"
#include "attn/cost/roofline.hpp"
#include "convert.hpp"
#include "cost_args.hpp"
#include "limits.hpp"
#include "presets_js.hpp"

namespace attn::wasm {
namespace {

using namespace attn::cost;

// ---- arguments -------------------------------------------------------------------------------

double finite_number(const val& v, const char* name) {
    if (!v.isNumber()) throw Error(std::string(name) + ": must be a number");
    const double x = v.as<double>();
    if (!std::isfinite(x)) throw Error(std::string(name) + ": must be a finite number, got " + std::to_string(x));
    return x;
}

Precision precision_arg(const val& obj) { return precision_from_name(string_arg(obj, "precision", "fp16")); }

Pass pass_arg(const val& obj) {
    const std::string p = string_arg(obj, "pass", "forward");
    for (Pass pass : {Pass::forward, Pass::backward, Pass::forward_backward}) {
        if (pass_name(pass) == p) return pass;
    }
    throw Error("pass: must be 'forward', 'backward' or 'forward_backward'");
}

Algorithm algorithm_arg(const val& obj) {
    const std::string a = string_arg(obj, "algorithm", nullptr);
    if (a == "standard") return Algorithm::standard;
    if (a == "flash") return Algorithm::flash;
    throw Error("algorithm: must be 'standard' or 'flash'");
}

// The flash cost walks the query blocks once; keep that walk within a frame.
void require_row_blocks(const AttentionShape& s, const FlashBlocks& b) {
    const std::size_t row_blocks = (s.q_len + b.block_q - 1) / b.block_q;
    if (row_blocks > kMaxCostRowBlocks) {
        throw Error("qLen/blockQ: " + std::to_string(row_blocks) + " query blocks exceed the in-browser limit of " +
                    std::to_string(kMaxCostRowBlocks) + "; use larger blocks or a shorter sequence");
    }
}

// ---- results ---------------------------------------------------------------------------------

val traffic_to_js(const HbmTraffic& t) {
    val o = val::object();
    o.set("hbmBytesRead", t.bytes_read);
    o.set("hbmBytesWritten", t.bytes_written);
    o.set("hbmBytes", t.bytes());
    return o;
}

val prediction_to_js(const AttentionPrediction& p) {
    val o = val::object();
    o.set("algorithm", val(std::string(algorithm_name(p.algorithm))));
    o.set("pass", val(std::string(pass_name(p.pass))));
    o.set("precision", val(std::string(precision_name(p.precision))));
    o.set("blockQ", p.blocks.block_q);
    o.set("blockK", p.blocks.block_k);
    o.set("flops", p.flops);
    o.set("usefulFlops", p.useful_flops);
    o.set("hbmBytesRead", p.hbm_bytes_read);
    o.set("hbmBytesWritten", p.hbm_bytes_written);
    o.set("hbmBytes", p.hbm_bytes);
    o.set("peakFlopsPerS", p.peak_flops_per_s);
    o.set("hbmBytesPerS", p.hbm_bytes_per_s);
    o.set("computeTimeS", p.compute_time_s);
    o.set("memoryTimeS", p.memory_time_s);
    o.set("timeS", p.time_s);
    o.set("arithmeticIntensity", p.arithmetic_intensity);
    o.set("attainedFlopsPerS", p.attained_flops_per_s);
    o.set("bound", val(std::string(bound_name(p.bound))));
    return o;
}

// FA1 blocks of `gpu` at `precision` for `s`, checked against the in-browser walk limit.
void check_flash_walk(const AttentionShape& s, const GpuPreset& gpu, Precision precision) {
    const double sram = gpu.sram_per_sm_bytes.value;
    const auto eb = static_cast<double>(bytes_per_element(precision));
    if (sram >= eb) require_row_blocks(s, fa1_block_sizes(static_cast<std::size_t>(sram / eb), s.head_dim, s.value_dim));
}

// ---- bound functions -------------------------------------------------------------------------

// {gpu, precision}
val peak_flops_js(const val& in) {
    return guarded([&] {
        return val(roofline::peak_flops(gpu_preset(string_arg(in, "gpu", nullptr)), precision_arg(in)));
    });
}

val ridge_point_js(const val& in) {
    return guarded([&] {
        return val(roofline::ridge_point(gpu_preset(string_arg(in, "gpu", nullptr)), precision_arg(in)));
    });
}

// {gpu, precision, intensityFlopsPerByte}
val attainable_flops_js(const val& in) {
    return guarded([&] {
        const GpuPreset& g = gpu_preset(string_arg(in, "gpu", nullptr));
        const Precision p = precision_arg(in);
        const double intensity = number_arg(in, "intensityFlopsPerByte", 0, 1e12, NAN);
        if (std::isnan(intensity)) throw Error("intensityFlopsPerByte: missing");
        return val(roofline::attainable_flops(g, p, intensity));
    });
}

val arithmetic_intensity_js(const val& flops, const val& bytes) {
    return guarded([&] {
        return val(roofline::arithmetic_intensity(finite_number(flops, "flops"), finite_number(bytes, "bytes")));
    });
}

// {gpu, precision, flops, bytes}
val roofline_bound_js(const val& in) {
    return guarded([&] {
        const GpuPreset& g = gpu_preset(string_arg(in, "gpu", nullptr));
        const Precision p = precision_arg(in);
        if (in["flops"].isUndefined() || in["bytes"].isUndefined()) throw Error("flops/bytes: missing");
        const double flops = finite_number(in["flops"], "flops"), bytes = finite_number(in["bytes"], "bytes");
        return val(std::string(bound_name(roofline::bound(g, p, flops, bytes))));
    });
}

// shape + {pass}
val attention_flops_js(const val& in) {
    return guarded([&] {
        const AttentionShape s = cost_shape_arg(in);
        const Pass pass = pass_arg(in);
        val o = val::object();
        o.set("flops", exact_count(attention_flops(s, pass), "flops"));
        o.set("attendedPairs", exact_count(attended_pairs(s.q_len, s.kv_len, s.causal), "attendedPairs"));
        // The benchmark convention is defined for self-attention with d = dv only.
        if (s.q_len == s.kv_len && s.head_dim == s.value_dim) {
            o.set("benchmarkFlops", exact_count(benchmark_flops(s.batch, s.heads, s.q_len, s.head_dim,
                                                                s.causal != Causal::none, pass), "benchmarkFlops"));
        } else {
            o.set("benchmarkFlops", val::null());
        }
        return o;
    });
}

// {sramElements, headDim, valueDim}
val fa1_block_sizes_js(const val& in) {
    return guarded([&] {
        const std::size_t m = required_integer(in, "sramElements", 1, std::size_t{1} << 30);
        const std::size_t d = required_integer(in, "headDim", 1, 1024);
        const FlashBlocks b = fa1_block_sizes(m, d, integer_arg(in, "valueDim", 1, 1024, d));
        val o = val::object();
        o.set("blockQ", b.block_q);
        o.set("blockK", b.block_k);
        return o;
    });
}

// shape + {algorithm, pass, elementBytes, blockQ, blockK, loopOrder}
val attention_hbm_traffic_js(const val& in) {
    return guarded([&] {
        const AttentionShape s = cost_shape_arg(in);
        const Algorithm algorithm = algorithm_arg(in);
        const Pass pass = pass_arg(in);
        const std::size_t eb = integer_arg(in, "elementBytes", 1, 8, 2);
        // Flash only: 'fa2' (FlashAttention-2's order, query blocks outer: the default for the forward
        // pass, as in flashForwardTrace) or 'fa1' (the original Algorithm 1, K/V blocks outer: the only
        // order modelled for the backward pass, and its default there).
        const std::string order =
            string_arg(in, "loopOrder", algorithm == Algorithm::flash && pass == Pass::forward ? "fa2" : "fa1");
        if (order != "fa1" && order != "fa2") {
            throw Error("loopOrder: must be 'fa1' (key/value blocks outer) or 'fa2' (query blocks outer)");
        }
        if (order == "fa2" && (algorithm != Algorithm::flash || pass != Pass::forward)) {
            throw Error("loopOrder: 'fa2' is modelled for algorithm 'flash' and pass 'forward' only");
        }
        if (algorithm == Algorithm::standard) {
            const std::size_t block_q = integer_arg(in, "blockQ", 1, kMaxCostSeqLen, s.q_len);
            require_row_blocks(s, {block_q, 1});
            val o = traffic_to_js(standard_attention_io(s, pass, eb, block_q));
            o.set("flops", executed_flops(s, pass, algorithm, {0, 0}));
            return o;
        }
        const FlashBlocks b{required_integer(in, "blockQ", 1, kMaxCostSeqLen),
                            required_integer(in, "blockK", 1, kMaxCostSeqLen)};
        require_row_blocks(s, b);
        val o = traffic_to_js(order == "fa2" ? flash2_forward_io(s, eb, b) : flash_attention_io(s, pass, eb, b));
        o.set("flops", executed_flops(s, pass, algorithm, b));
        // Whole-launch tiles (every batch entry and head), in the unit of the bytes and FLOPs above and
        // of flashForwardTrace's stats.
        const TileCounts t = tile_counts(s.q_len, s.kv_len, s.causal, b);
        const double heads = static_cast<double>(s.batch) * static_cast<double>(s.heads);
        o.set("tilesComputed", exact_count(static_cast<double>(t.tiles_computed) * heads, "tilesComputed"));
        o.set("tilesSkipped", exact_count(static_cast<double>(t.tiles_skipped) * heads, "tilesSkipped"));
        return o;
    });
}

// shape + {algorithm, pass, gpu, precision}
val predict_attention_js(const val& in) {
    return guarded([&] {
        const AttentionShape s = cost_shape_arg(in);
        const Algorithm algorithm = algorithm_arg(in);
        const Pass pass = pass_arg(in);
        const GpuPreset& g = gpu_preset(string_arg(in, "gpu", nullptr));
        const Precision p = precision_arg(in);
        if (algorithm == Algorithm::flash) check_flash_walk(s, g, p);
        return prediction_to_js(predict(s, algorithm, pass, g, p));
    });
}

// shape + {algorithm, pass, precision}: one entry per GPU preset; a GPU that cannot run the
// precision gets prediction null and the error's message.
val predict_attention_per_gpu_js(const val& in) {
    return guarded([&] {
        const AttentionShape s = cost_shape_arg(in);
        const Algorithm algorithm = algorithm_arg(in);
        const Pass pass = pass_arg(in);
        const Precision p = precision_arg(in);
        val a = val::array();
        for (const GpuPreset& g : gpu_presets()) {
            val entry = val::object();
            entry.set("gpu", val(std::string(g.id)));
            try {
                if (algorithm == Algorithm::flash) check_flash_walk(s, g, p);
                entry.set("prediction", prediction_to_js(predict(s, algorithm, pass, g, p)));
                entry.set("error", val::null());
            } catch (const Error& e) {
                entry.set("prediction", val::null());
                entry.set("error", val(std::string(e.what())));
            }
            a.call<void>("push", entry);
        }
        return a;
    });
}

// {seqLen, heads, layers, elementBytes}
val score_matrix_footprint_js(const val& in) {
    return guarded([&] {
        const ScoreMatrixFootprint f = score_matrix_footprint(
            required_integer(in, "seqLen", 1, kMaxCostSeqLen), integer_arg(in, "heads", 1, 4096, 1),
            integer_arg(in, "layers", 1, 1024, 1), integer_arg(in, "elementBytes", 1, 8, 2));
        val o = val::object();
        o.set("perHeadBytes", exact_count(f.per_head_bytes, "perHeadBytes"));
        o.set("perLayerBytes", exact_count(f.per_layer_bytes, "perLayerBytes"));
        o.set("perModelBytes", exact_count(f.per_model_bytes, "perModelBytes"));
        return o;
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(cost) {
    // Shared with the inference module (common/presets_js.hpp).
    emscripten::function("gpuPresets", &attn::wasm::gpu_presets_js);
    emscripten::function("gpuPreset", &attn::wasm::gpu_preset_js);
    emscripten::function("modelPresets", &attn::wasm::model_presets_js);
    emscripten::function("modelPreset", &attn::wasm::model_preset_js);
    emscripten::function("peakFlops", &attn::wasm::peak_flops_js);
    emscripten::function("ridgePoint", &attn::wasm::ridge_point_js);
    emscripten::function("attainableFlops", &attn::wasm::attainable_flops_js);
    emscripten::function("arithmeticIntensity", &attn::wasm::arithmetic_intensity_js);
    emscripten::function("rooflineBound", &attn::wasm::roofline_bound_js);
    emscripten::function("attentionFlops", &attn::wasm::attention_flops_js);
    emscripten::function("fa1BlockSizes", &attn::wasm::fa1_block_sizes_js);
    emscripten::function("attentionHbmTraffic", &attn::wasm::attention_hbm_traffic_js);
    emscripten::function("predictAttention", &attn::wasm::predict_attention_js);
    emscripten::function("predictAttentionPerGpu", &attn::wasm::predict_attention_per_gpu_js);
    emscripten::function("scoreMatrixFootprint", &attn::wasm::score_matrix_footprint_js);
}
