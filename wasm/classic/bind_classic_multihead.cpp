// JavaScript API of multi-head self- and cross-attention (attn::classic::self_attention /
// cross_attention) for the Part 1 figures: every intermediate comes back (per-head Q, K, V, the
// shared mask, per-head weights and outputs, the projected output) so a figure can draw any of them.
#include <emscripten/bind.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attn/classic/multi_head.hpp"
#include "convert.hpp"
#include "limits.hpp"

namespace attn::wasm {
namespace {

using namespace attn::classic;

constexpr std::size_t kMaxHeads = 64;
constexpr std::size_t kMaxWidth = 1024;

val tensor_to_js(const Tensor4<double>& t) {
    val out = val::object();
    out.set("data", typed_array(t.data));
    out.set("shape", shape_to_js(t.shape));
    return out;
}

// obj[key] / obj[shape_key] = [batch, seq, d_model] as a [batch, 1, seq, d_model] tensor.
Tensor4<double> sequence_arg(const val& obj, const char* key, const char* shape_key) {
    const val shape = obj[shape_key];
    if (!shape.isArray() || shape["length"].as<int>() != 3) {
        throw Error(std::string(shape_key) + ": must be an array [batch, seq, dModel] of 3 integers");
    }
    val as4 = val::object();
    val dims = val::array();
    dims.call<void>("push", shape[0], 1, shape[1], shape[2]);
    as4.set(shape_key, dims);
    const Shape4 s = shape_arg(as4, shape_key, kMaxTensorElements);
    return Tensor4<double>(s, number_array_arg<double>(obj[key], key, s.numel(), s.numel()), key);
}

// A projection matrix; its exact size is the core's check, the cap comes first so that a huge
// array is refused before it is copied.
std::vector<double> weight_arg(const val& in, const char* key) {
    return number_array_arg<double>(in[key], key, 0, kMaxTensorElements);
}

MultiHeadWeights weights_arg(const val& in, std::size_t d_model) {
    const std::size_t heads = integer_arg(in, "numHeads", 1, kMaxHeads, 0);
    const std::size_t head_dim = integer_arg(in, "headDim", 1, kMaxWidth, 0);
    const std::size_t value_dim = integer_arg(in, "valueDim", 1, kMaxWidth, head_dim);
    // With a seed, each projection not given is drawn (a figure may fix W^Q, W^K to show a pattern
    // and let W^V, W^O be generic); without one, all four must be given. Sizes and finiteness are
    // checked by the core.
    if (in["weightsSeed"].isUndefined()) {
        for (const char* key : {"wQ", "wK", "wV", "wO"}) {
            if (in[key].isUndefined()) throw Error("weightsSeed: give either weightsSeed or wQ, wK, wV and wO");
        }
        return {d_model, heads, head_dim, value_dim, weight_arg(in, "wQ"), weight_arg(in, "wK"), weight_arg(in, "wV"),
                weight_arg(in, "wO")};
    }
    MultiHeadWeights w =
        random_multi_head_weights(d_model, heads, head_dim, value_dim, integer_arg(in, "weightsSeed", 0, kMaxSeed, 0));
    const std::pair<const char*, std::vector<double>*> given[] = {{"wQ", &w.w_q}, {"wK", &w.w_k}, {"wV", &w.w_v}, {"wO", &w.w_o}};
    for (const auto& [key, field] : given) {
        if (!in[key].isUndefined()) *field = weight_arg(in, key);
    }
    return w;
}

val multi_head_attention_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("mode: missing (no arguments object given)");
        const std::string mode = in["mode"].isString() ? in["mode"].as<std::string>() : "";
        if (mode != "self" && mode != "cross") throw Error("mode: must be 'self' or 'cross'");
        const Tensor4<double> x = sequence_arg(in, "x", "xShape");
        const MultiHeadWeights w = weights_arg(in, x.shape.dim);
        MultiHeadOptions o;
        o.causal = causal_arg(in) != Causal::none;  // self-attention: L = S, both alignments alike
        if (!in["scale"].isUndefined()) o.scale = number_arg(in, "scale", -1e6, 1e6, 0);
        if (!in["keyLengths"].isUndefined()) {
            const val lengths = in["keyLengths"];
            if (!lengths.isArray()) throw Error("keyLengths: must be an array with one integer per batch entry");
            const std::size_t count = lengths["length"].as<std::size_t>();
            if (count > x.shape.batch) {
                throw Error("keyLengths: must hold one length per batch entry (" + std::to_string(x.shape.batch) +
                            "), got " + std::to_string(count));
            }
            for (std::size_t b = 0; b < count; ++b) {
                val holder = val::object();
                holder.set("keyLengths", lengths[b]);
                o.key_lengths.push_back(integer_arg(holder, "keyLengths", 0, kMaxTensorElements, 0));
            }
        }
        Tensor4<double> encoder;
        if (mode == "cross") {
            if (in["encoder"].isUndefined()) throw Error("encoder: missing (cross-attention reads keys and values from it)");
            encoder = sequence_arg(in, "encoder", "encoderShape");
        } else if (!in["encoder"].isUndefined()) {
            throw Error("encoder: self-attention takes no encoder sequence; use mode 'cross'");
        }
        const std::size_t kv_len = mode == "cross" ? encoder.shape.seq : x.shape.seq;
        const double scores = double(x.shape.batch) * double(w.num_heads) * double(x.shape.seq) * double(kv_len);
        if (scores > static_cast<double>(kMaxScoreElements)) {
            throw Error("xShape: batch x numHeads x L_q x L_kv = " + std::to_string(scores) +
                        " weights exceed the in-browser limit of " + std::to_string(kMaxScoreElements));
        }
        const MultiHeadResult r = mode == "cross" ? cross_attention(x, encoder, w, o) : self_attention(x, w, o);
        val mask = val::object();
        mask.set("data", typed_array(r.mask.data));
        mask.set("shape", shape_to_js(r.mask.shape));
        val out = val::object();
        out.set("q", tensor_to_js(r.q));
        out.set("k", tensor_to_js(r.k));
        out.set("v", tensor_to_js(r.v));
        out.set("mask", mask);
        out.set("weights", tensor_to_js(r.weights));
        out.set("headOutputs", tensor_to_js(r.head_outputs));
        out.set("output", tensor_to_js(r.output));
        return out;
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(classic_multihead) {
    emscripten::function("multiHeadAttention", &attn::wasm::multi_head_attention_js);
}
