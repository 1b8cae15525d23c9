// JavaScript API of the KV-cache schemes: cache sizes with the formula's terms for a model preset
// or an explicit configuration, the MHA / MQA / GQA / MLA comparison, RoPE of one vector, a small
// MLA run in its explicit and absorbed forms, and what GQA's mean-pooling changes in a layer.
// Thin by design: read and check the JS arguments, call the core, return plain objects.
#include <emscripten/bind.h>

#include <cmath>
#include <string>
#include <vector>

#include "attn/attention/mla.hpp"
#include "attn/attention/rope.hpp"
#include "attn/kvcache/gqa_conversion.hpp"
#include "attn/kvcache/kv_schemes.hpp"
#include "attn/models/model_presets.hpp"
#include "attn/random.hpp"
#include "convert.hpp"
#include "kv_js.hpp"
#include "limits.hpp"

namespace attn::wasm {
namespace {

using namespace attn::kvcache;

// {model} for a preset, otherwise {scheme, layers, qHeads, kvHeads (gqa), headDim, latentDim and
// ropeDim (mla), slidingWindow}.
KvConfig kv_config_arg(const val& in) {
    if (in.isUndefined() || in.isNull()) throw Error("model: missing (no arguments object given)");
    if (!in["model"].isUndefined()) return kv_config_from_preset(models::model_preset(string_arg(in, "model", nullptr)));
    const std::string scheme = string_arg(in, "scheme", nullptr);
    const std::size_t layers = required_integer(in, "layers", 1, kMaxKvCount);
    const std::size_t q_heads = required_integer(in, "qHeads", 1, kMaxKvCount);
    KvConfig c;
    if (scheme == "mla") {
        c = mla_config(layers, q_heads, required_integer(in, "latentDim", 1, kMaxKvCount),
                       required_integer(in, "ropeDim", 1, kMaxKvCount));
    } else {
        const std::size_t head_dim = required_integer(in, "headDim", 1, kMaxKvCount);
        if (scheme == "mha") {
            c = mha_config(layers, q_heads, head_dim);
        } else if (scheme == "mqa") {
            c = mqa_config(layers, q_heads, head_dim);
        } else if (scheme == "gqa") {
            c = gqa_config(layers, q_heads, required_integer(in, "kvHeads", 1, kMaxKvCount), head_dim);
        } else {
            throw Error("scheme: must be 'mha', 'mqa', 'gqa' or 'mla', got '" + scheme + "'");
        }
    }
    c.sliding_window = integer_arg(in, "slidingWindow", 0, kMaxKvContextTokens, 0);
    validate_kv_config(c);
    return c;
}

val kv_cache_bytes_js(const val& in) {
    return guarded([&] {
        const KvConfig c = kv_config_arg(in);
        return kv_bytes_to_js(kv_cache_bytes(c, dtype_arg(in), required_integer(in, "contextTokens", 1, kMaxKvContextTokens),
                                             integer_arg(in, "batch", 1, kMaxKvBatch, 1)));
    });
}

val kv_scheme_comparison_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("contextTokens: missing (no arguments object given)");
        SchemeComparisonShape s;
        s.layers = integer_arg(in, "layers", 1, kMaxKvCount, s.layers);
        s.q_heads = integer_arg(in, "qHeads", 1, kMaxKvCount, s.q_heads);
        s.head_dim = integer_arg(in, "headDim", 1, kMaxKvCount, s.head_dim);
        s.gqa_groups = integer_arg(in, "gqaGroups", 1, kMaxKvCount, s.gqa_groups);
        s.latent_dim = integer_arg(in, "latentDim", 1, kMaxKvCount, s.latent_dim);
        s.rope_dim = integer_arg(in, "ropeDim", 1, kMaxKvCount, s.rope_dim);
        const auto rows = compare_kv_schemes(s, dtype_arg(in), required_integer(in, "contextTokens", 1, kMaxKvContextTokens),
                                             integer_arg(in, "batch", 1, kMaxKvBatch, 1));
        val a = val::array();
        for (const KvBytes& r : rows) a.call<void>("push", kv_bytes_to_js(r));
        return a;
    });
}

RopeLayout layout_arg(const val& in) {
    const std::string l = string_arg(in, "layout", "half_split");
    if (l == "half_split") return RopeLayout::half_split;
    if (l == "interleaved") return RopeLayout::interleaved;
    throw Error("layout: must be 'half_split' or 'interleaved', got '" + l + "'");
}

std::vector<double> vector_arg(const val& in, const char* key, std::size_t max_len) {
    const val v = in[key];
    if (v.isUndefined()) throw Error(std::string(key) + ": missing");
    return number_array_arg<double>(v, key, 0, max_len);
}

val number_array(const std::vector<double>& x) {
    val a = val::array();
    for (double v : x) a.call<void>("push", val(v));
    return a;
}

val rope_vector_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("x: missing (no arguments object given)");
        std::vector<double> x = vector_arg(in, "x", kMaxRopeDim);
        const std::uint64_t position = required_integer(in, "position", 0, kMaxRopePosition);
        const RopeOptions o{number_arg(in, "base", 1.0, 1e12, 10000.0), layout_arg(in)};
        apply_rope(std::span<double>(x), position, o);
        const std::vector<double> angles = rope_angles(x.size(), position, o);
        std::vector<double> thetas(x.size() / 2);
        for (std::size_t i = 0; i < thetas.size(); ++i) thetas[i] = rope_theta(i, x.size(), o.base);
        val out = val::object();
        out.set("rotated", number_array(x));
        out.set("thetas", number_array(thetas));
        out.set("anglesRad", number_array(angles));
        return out;
    });
}

Causal causal_arg(const val& in) {
    const std::string c = string_arg(in, "causal", "bottom_right");
    if (c == "none") return Causal::none;
    if (c == "top_left") return Causal::top_left;
    if (c == "bottom_right") return Causal::bottom_right;
    throw Error("causal: must be 'none', 'top_left' or 'bottom_right', got '" + c + "'");
}

val mla_compare_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("modelDim: missing (no arguments object given)");
        MlaShape s;
        s.model_dim = required_integer(in, "modelDim", 1, kMaxMlaSize);
        s.heads = required_integer(in, "heads", 1, kMaxMlaSize);
        s.latent_dim = required_integer(in, "latentDim", 1, kMaxMlaSize);
        s.nope_dim = required_integer(in, "nopeDim", 1, kMaxMlaSize);
        s.rope_dim = required_integer(in, "ropeDim", 1, kMaxMlaSize);
        s.value_dim = required_integer(in, "valueDim", 1, kMaxMlaSize);
        const std::size_t seq = required_integer(in, "seqLen", 1, kMaxMlaSeqLen);
        const std::size_t batch = integer_arg(in, "batch", 1, 4, 1);
        MlaOptions o;
        o.query_len = integer_arg(in, "queryLen", 0, seq, 0);
        o.causal = causal_arg(in);
        const std::uint64_t seed = integer_arg(in, "seed", 0, kMaxSeed, 0);
        const double work = static_cast<double>(batch * s.heads) * static_cast<double>(seq * seq) *
                            static_cast<double>(s.latent_dim + s.rope_dim);
        if (work > static_cast<double>(kMaxMlaWork)) {
            throw Error("seqLen/heads/latentDim: batch * heads * seqLen^2 * (latentDim + ropeDim) = " +
                        std::to_string(static_cast<long long>(work)) + " exceeds the in-browser limit of " +
                        std::to_string(kMaxMlaWork));
        }
        const MlaWeights w = random_mla_weights(s, seed);
        const Tensor4<double> x = random_normal({batch, 1, seq, s.model_dim}, splitmix64(seed ^ 0x5eedull));
        const MlaExplicitResult e = mla_explicit(w, x, o);
        const MlaAbsorbedResult a = mla_absorbed(w, x, o);
        double diff = 0;
        for (std::size_t n = 0; n < e.output.data.size(); ++n) diff = std::max(diff, std::abs(e.output.data[n] - a.output.data[n]));

        const std::vector<float> ef(e.output.data.begin(), e.output.data.end());
        const std::vector<float> af(a.output.data.begin(), a.output.data.end());
        val out = val::object();
        out.set("explicitOutput", to_float32_array(ef));
        out.set("absorbedOutput", to_float32_array(af));
        out.set("outputShape", shape_to_js(e.output.shape));
        out.set("maxAbsDiff", val(diff));
        out.set("explicitCacheElementsPerToken", val(static_cast<double>(e.k.shape.heads * (e.k.shape.dim + e.v.shape.dim))));
        out.set("absorbedCacheElementsPerToken", val(static_cast<double>(a.cache.elements_per_token())));
        out.set("cacheTokens", val(static_cast<double>(a.cache.tokens())));
        return out;
    });
}

}  // namespace
// What GQA's mean-pooling does to a random multi-head layer before any uptraining, per group count.
val gqa_conversion_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("heads: missing (no arguments object given)");
        const std::size_t model_dim = required_integer(in, "modelDim", 1, kMaxGqaWidth);
        const std::size_t heads = required_integer(in, "heads", 1, kMaxGqaHeads);
        const std::size_t head_dim = required_integer(in, "headDim", 1, kMaxGqaWidth);
        const std::size_t seq = required_integer(in, "seqLen", 1, kMaxGqaWidth);
        const double similarity = number_arg(in, "similarity", 0.0, 1.0, 0.0);
        const std::uint64_t seed = integer_arg(in, "seed", 0, kMaxSeed, 0);
        const AttentionProjections mha = similar_head_projections(model_dim, heads, head_dim, head_dim, similarity, seed);
        const Tensor4<double> x = random_normal({1, 1, seq, model_dim}, splitmix64(seed ^ 0x6a0ull));
        val out = val::array();
        for (const GqaConversionEffect& e : gqa_conversion_effects(mha, x)) {
            val o = val::object();
            o.set("groups", val(static_cast<double>(e.groups)));
            o.set("relativeChange", val(e.relative_change));
            out.call<void>("push", o);
        }
        return out;
    });
}

}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(kvschemes) {
    emscripten::function("kvCacheBytes", &attn::wasm::kv_cache_bytes_js);
    emscripten::function("kvSchemeComparison", &attn::wasm::kv_scheme_comparison_js);
    emscripten::function("ropeVector", &attn::wasm::rope_vector_js);
    emscripten::function("mlaCompare", &attn::wasm::mla_compare_js);
    emscripten::function("gqaConversion", &attn::wasm::gqa_conversion_js);
}
