#include "approx_result_js.hpp"

#include "attention_args.hpp"
#include "convert.hpp"

namespace attn::wasm {

using emscripten::val;

val approx_result_js(const approx::ApproxResult& r) {
    val error = val::object();
    error.set("relativeFrobenius", r.error.relative_frobenius);
    error.set("maxAbs", r.error.max_abs);
    error.set("top1Preserved", r.error.top1_preserved);
    val cost = val::object();
    cost.set("scoreEntries", counter(r.cost.score_entries));
    cost.set("flops", counter(r.cost.flops));
    cost.set("peakBytes", counter(r.cost.peak_bytes));
    val out = val::object();
    out.set("output", to_float32_array(r.output.data));
    out.set("outputShape", shape_to_js(r.output.shape));
    out.set("error", error);
    out.set("cost", cost);
    return out;
}

}  // namespace attn::wasm
