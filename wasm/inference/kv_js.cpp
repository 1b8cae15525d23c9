#include "kv_js.hpp"

#include <string>

#include "convert.hpp"

namespace attn::wasm {

using namespace attn::kvcache;

KvDtype dtype_arg(const val& in) { return kv_dtype_from_name(string_arg(in, "dtype", "fp16")); }

val kv_bytes_to_js(const KvBytes& r) {
    val o = val::object();
    o.set("scheme", val(std::string(kv_scheme_name(r.config.scheme))));
    o.set("dtype", val(std::string(kv_dtype_name(r.dtype))));
    o.set("layers", val(static_cast<double>(r.config.layers)));
    o.set("qHeads", val(static_cast<double>(r.config.q_heads)));
    o.set("kvHeads", val(static_cast<double>(r.config.kv_heads)));
    o.set("headDim", val(static_cast<double>(r.config.head_dim)));
    o.set("latentDim", val(static_cast<double>(r.config.latent_dim)));
    o.set("ropeDim", val(static_cast<double>(r.config.rope_dim)));
    o.set("slidingWindow", val(static_cast<double>(r.config.sliding_window)));
    o.set("formula", val(r.formula));
    val terms = val::array();
    for (const KvTerm& t : r.terms) {
        val term = val::object();
        term.set("symbol", val(t.symbol));
        term.set("meaning", val(t.meaning));
        term.set("value", val(static_cast<double>(t.value)));
        terms.call<void>("push", term);
    }
    o.set("terms", terms);
    o.set("elementsPerTokenPerLayer", exact_count(r.elements_per_token_per_layer, "elementsPerTokenPerLayer"));
    o.set("bytesPerToken", exact_count(r.bytes_per_token, "bytesPerToken"));
    o.set("contextTokens", val(static_cast<double>(r.context_tokens)));
    o.set("cachedTokens", val(static_cast<double>(r.cached_tokens)));
    o.set("batch", val(static_cast<double>(r.batch)));
    o.set("bytesPerRequest", exact_count(r.bytes_per_request, "bytesPerRequest"));
    o.set("totalBytes", exact_count(r.total_bytes, "totalBytes"));
    return o;
}

}  // namespace attn::wasm

