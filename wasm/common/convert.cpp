#include "convert.hpp"

#include <cmath>

#include <emscripten/bind.h>

#include "limits.hpp"

namespace attn::wasm {
namespace {

std::string num(double x) {
    std::string s = std::to_string(x);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

val property(const val& obj, const char* key) {
    if (obj.isUndefined() || obj.isNull()) throw Error(std::string(key) + ": missing (no arguments object given)");
    return obj[key];
}

double to_number(const val& v, const char* key) {
    if (!v.isNumber()) throw Error(std::string(key) + ": must be a number, got " + v.typeOf().as<std::string>());
    return v.as<double>();
}

}  // namespace

std::size_t integer_arg(const val& obj, const char* key, std::size_t lo, std::size_t hi, std::size_t fallback) {
    const val v = property(obj, key);
    if (v.isUndefined()) return fallback;
    const double x = to_number(v, key);
    if (!(x >= static_cast<double>(lo) && x <= static_cast<double>(hi)) || std::floor(x) != x) {
        throw Error(std::string(key) + ": must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "], got " + num(x));
    }
    return static_cast<std::size_t>(x);
}

double number_arg(const val& obj, const char* key, double lo, double hi, double fallback) {
    const val v = property(obj, key);
    if (v.isUndefined()) return fallback;
    const double x = to_number(v, key);
    if (!(x >= lo && x <= hi)) {
        throw Error(std::string(key) + ": must be a number in [" + num(lo) + ", " + num(hi) + "], got " + num(x));
    }
    return x;
}

bool bool_arg(const val& obj, const char* key, bool fallback) {
    const val v = property(obj, key);
    if (v.isUndefined()) return fallback;
    if (v.typeOf().as<std::string>() != "boolean") throw Error(std::string(key) + ": must be true or false");
    return v.as<bool>();
}

Shape4 shape_arg(const val& obj, const char* key, std::size_t max_elements, const char* name) {
    const val v = property(obj, key);
    if (name == nullptr) name = key;
    if (!v.isArray() || v["length"].as<int>() != 4) {
        throw Error(std::string(name) + ": must be an array [batch, heads, seq, dim] of 4 integers");
    }
    std::size_t dims[4];
    double count = 1;
    for (int i = 0; i < 4; ++i) {
        const val d = v[i];
        const double x = d.isNumber() ? d.as<double>() : NAN;
        if (!(x >= 1) || std::floor(x) != x || x > static_cast<double>(max_elements)) {
            throw Error(std::string(name) + ": dimension " + std::to_string(i) + " must be an integer in [1, " +
                        std::to_string(max_elements) + "], got " + (d.isNumber() ? num(x) : "a non-number"));
        }
        dims[i] = static_cast<std::size_t>(x);
        count *= x;
    }
    if (count > static_cast<double>(max_elements)) {
        throw Error(std::string(name) + ": " + num(count) + " elements exceed the in-browser limit of " +
                    std::to_string(max_elements));
    }
    return {dims[0], dims[1], dims[2], dims[3]};
}

Tensor4<float> tensor_arg(const val& obj, const char* data_key, const char* shape_key, std::size_t max_elements) {
    const Shape4 shape = shape_arg(obj, shape_key, max_elements);
    const val data = property(obj, data_key);
    if (!data.instanceof(val::global("Float32Array")) && !data.isArray()) {
        throw Error(std::string(data_key) + ": must be a Float32Array or an array of numbers");
    }
    const auto length = data["length"].as<std::size_t>();
    if (length != shape.numel()) {
        throw Error(std::string(data_key) + ": has " + std::to_string(length) + " elements but " + shape_key + " " +
                    shape.str() + " needs " + std::to_string(shape.numel()));
    }
    return Tensor4<float>(shape, emscripten::convertJSArrayToNumberVector<float>(data), data_key);
}

AttentionOptions attention_options_arg(const val& obj) {
    AttentionOptions o;
    if (!property(obj, "scale").isUndefined()) {
        const double s = to_number(obj["scale"], "scale");
        if (!std::isfinite(s)) throw Error("scale: must be a finite number, got " + num(s));
        o.scale = s;
    }
    const val causal = obj["causal"];
    if (!causal.isUndefined()) {
        const std::string c = causal.typeOf().as<std::string>() == "string" ? causal.as<std::string>() : "";
        if (c == "none") o.causal = Causal::none;
        else if (c == "top_left") o.causal = Causal::top_left;
        else if (c == "bottom_right") o.causal = Causal::bottom_right;
        else throw Error("causal: must be 'none', 'top_left' or 'bottom_right'");
    }
    const val mask = obj["mask"];
    if (!mask.isUndefined()) {
        const Shape4 shape = shape_arg(mask, "shape", kMaxTensorElements, "mask.shape");
        const std::string kind = mask["kind"].isString() ? mask["kind"].as<std::string>() : "";
        const val data = mask["data"];
        if (!data.isArray() && !data.instanceof(val::global("Uint8Array")) &&
            !data.instanceof(val::global("Float32Array"))) {
            throw Error("mask.data: must be a Uint8Array, Float32Array or array of numbers");
        }
        if (kind == "boolean") {
            o.mask = AttentionMask::boolean(shape, emscripten::convertJSArrayToNumberVector<std::uint8_t>(data));
        } else if (kind == "additive") {
            o.mask = AttentionMask::additive(shape, emscripten::convertJSArrayToNumberVector<float>(data));
        } else {
            throw Error("mask.kind: must be 'boolean' or 'additive'");
        }
    }
    return o;
}


val shape_to_js(const Shape4& s) {
    val a = val::array();
    a.call<void>("push", s.batch, s.heads, s.seq, s.dim);
    return a;
}

}  // namespace attn::wasm
