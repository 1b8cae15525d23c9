#include "convert.hpp"

#include <cmath>

#include <emscripten/bind.h>
#include <emscripten/em_macros.h>  // before em_js.h, which uses EMSCRIPTEN_KEEPALIVE
#include <emscripten/em_js.h>

#include "limits.hpp"

// Array reads done in JavaScript, inside try/catch: a Proxy's trap, a getter or a BigInt entry
// would otherwise throw an engine TypeError through the bindings. Each returns a status instead.

// Length of a numeric typed array or an array; -1 for anything else, -2 if reading it threw.
EM_JS(double, attn_js_array_length, (void* handle), {
    try {
        const v = Emval.toValue(handle);
        if (Array.isArray(v)) return v.length;
        if (ArrayBuffer.isView(v) && !(v instanceof DataView) && !(v instanceof BigInt64Array) &&
            !(v instanceof BigUint64Array)) {
            return v.length;
        }
        return -1;
    } catch (e) {
        return -2;
    }
});

// Copies `count` entries into wasm memory at `dest` (Float64 when `is_double`, else Float32).
// Returns -1 when done, the index of the first entry that is not a number, or -2 if reading threw.
EM_JS(double, attn_js_copy_numbers, (void* handle, void* dest, double count, int is_double), {
    try {
        const v = Emval.toValue(handle);
        const out = is_double ? HEAPF64.subarray(dest >> 3, (dest >> 3) + count)
                              : HEAPF32.subarray(dest >> 2, (dest >> 2) + count);
        if (!Array.isArray(v)) {
            out.set(v.subarray(0, count));
            return -1;
        }
        for (let i = 0; i < count; ++i) {
            const x = v[i];
            if (typeof x !== 'number') return i;
            out[i] = x;
        }
        return -1;
    } catch (e) {
        return -2;
    }
});

// Length in bytes of a Uint8Array or an ArrayBuffer; -1 for anything else, -2 if reading it threw.
EM_JS(double, attn_js_byte_length, (void* handle), {
    try {
        const v = Emval.toValue(handle);
        if (v instanceof Uint8Array || v instanceof ArrayBuffer) return v.byteLength;
        return -1;
    } catch (e) {
        return -2;
    }
});

// Copies `count` bytes of a Uint8Array or ArrayBuffer (measured by attn_js_byte_length) to `dest`.
EM_JS(int, attn_js_copy_bytes, (void* handle, void* dest, double count), {
    try {
        const v = Emval.toValue(handle);
        const bytes = v instanceof ArrayBuffer ? new Uint8Array(v, 0, count) : v.subarray(0, count);
        HEAPU8.set(bytes, dest);
        return 0;
    } catch (e) {
        return -2;
    }
});

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

void copy_numbers_into(const val& v, const std::string& name, void* out, std::size_t count, bool is_double) {
    const double status = attn_js_copy_numbers(v.as_handle(), out, static_cast<double>(count), is_double ? 1 : 0);
    if (status == -2) throw Error(name + ": could not be read");
    if (status >= 0) {
        const std::size_t i = static_cast<std::size_t>(status);
        throw Error(name + ": element " + std::to_string(i) + " is not a number (its type is " + val(v[i]).typeOf().as<std::string>() + ")");
    }
}

}  // namespace

std::size_t array_length_arg(const val& v, const std::string& name, std::size_t min_length, std::size_t max_length) {
    const double length = attn_js_array_length(v.as_handle());
    if (length == -2) throw Error(name + ": could not be read");
    if (length < 0) throw Error(name + ": must be a Float32Array, Float64Array or array of numbers");
    if (length < static_cast<double>(min_length) || length > static_cast<double>(max_length)) {
        throw Error(name + ": has " + num(length) + " entries, expected " +
                    (min_length == max_length ? std::to_string(min_length)
                     : min_length == 0        ? "at most " + std::to_string(max_length)
                                              : "between " + std::to_string(min_length) + " and " + std::to_string(max_length)));
    }
    return static_cast<std::size_t>(length);
}

void copy_numbers(const val& v, const std::string& name, float* out, std::size_t count) {
    copy_numbers_into(v, name, out, count, false);
}
void copy_numbers(const val& v, const std::string& name, double* out, std::size_t count) {
    copy_numbers_into(v, name, out, count, true);
}

std::vector<std::uint8_t> bytes_arg(const val& v, const std::string& name, std::size_t max_length) {
    const double length = attn_js_byte_length(v.as_handle());
    if (length == -2) throw Error(name + ": could not be read");
    if (length < 0) throw Error(name + ": must be a Uint8Array or an ArrayBuffer");
    if (length > static_cast<double>(max_length)) {
        throw Error(name + ": has " + num(length) + " bytes, expected at most " + std::to_string(max_length));
    }
    std::vector<std::uint8_t> out(static_cast<std::size_t>(length));
    if (!out.empty() && attn_js_copy_bytes(v.as_handle(), out.data(), length) != 0) throw Error(name + ": could not be read");
    return out;
}

std::size_t checked_product(std::size_t a, std::size_t b, std::size_t limit, const std::string& name) {
    if (b != 0 && a > limit / b) {
        throw Error(name + ": " + num(static_cast<double>(a) * static_cast<double>(b)) +
                    " exceeds the in-browser limit of " + std::to_string(limit));
    }
    return a * b;
}

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
    const std::size_t length = array_length_arg(data, data_key, 0, SIZE_MAX);
    if (length != shape.numel()) {
        throw Error(std::string(data_key) + ": has " + std::to_string(length) + " elements but " + shape_key + " " +
                    shape.str() + " needs " + std::to_string(shape.numel()));
    }
    std::vector<float> values(length);
    copy_numbers(data, data_key, values.data(), length);
    return Tensor4<float>(shape, std::move(values), data_key);
}

std::string string_arg(const val& obj, const char* key, const char* fallback) {
    const val v = property(obj, key);
    if (v.isUndefined()) {
        if (fallback == nullptr) throw Error(std::string(key) + ": missing");
        return fallback;
    }
    if (!v.isString()) throw Error(std::string(key) + ": must be a string");
    return v.as<std::string>();
}

std::size_t required_integer(const val& obj, const char* key, std::size_t lo, std::size_t hi) {
    if (property(obj, key).isUndefined()) throw Error(std::string(key) + ": missing");
    return integer_arg(obj, key, lo, hi, lo);
}

Causal causal_arg(const val& obj) {
    const val causal = property(obj, "causal");
    if (causal.isUndefined()) return Causal::none;
    const std::string c = causal.typeOf().as<std::string>() == "string" ? causal.as<std::string>() : "";
    if (c == "none") return Causal::none;
    if (c == "top_left") return Causal::top_left;
    if (c == "bottom_right") return Causal::bottom_right;
    throw Error("causal: must be 'none', 'top_left' or 'bottom_right'");
}

AttentionOptions attention_options_arg(const val& obj) {
    AttentionOptions o;
    if (!property(obj, "scale").isUndefined()) {
        const double s = to_number(obj["scale"], "scale");
        if (!std::isfinite(s)) throw Error("scale: must be a finite number, got " + num(s));
        o.scale = s;
    }
    o.causal = causal_arg(obj);
    const val mask = obj["mask"];
    if (!mask.isUndefined()) {
        const Shape4 shape = shape_arg(mask, "shape", kMaxTensorElements, "mask.shape");
        const std::string kind = mask["kind"].isString() ? mask["kind"].as<std::string>() : "";
        const val data = mask["data"];
        if (kind != "boolean" && kind != "additive") throw Error("mask.kind: must be 'boolean' or 'additive'");
        // The entry count is checked against the shape before anything is copied. Doubles, so that a tiny nonzero boolean entry (1e-50) is not rounded to 0 by float.
        const std::vector<double> values = number_array_arg<double>(data, "mask.data", shape.numel(), shape.numel());
        if (kind == "boolean") {
            // Nonzero means "may attend" (SDPA's convention): 0.5, 256 or Infinity allow a key,
            // which a conversion through uint8_t would wrap or truncate to 0. NaN is neither.
            std::vector<std::uint8_t> allowed(values.size());
            for (std::size_t i = 0; i < values.size(); ++i) {
                if (std::isnan(values[i])) {
                    throw Error("mask.data: entry " + std::to_string(i) + " is NaN; a boolean mask takes 0 (masked) or nonzero (may attend)");
                }
                allowed[i] = values[i] != 0.0;
            }
            o.mask = AttentionMask::boolean(shape, std::move(allowed));
        } else {
            o.mask = AttentionMask::additive(shape, std::vector<float>(values.begin(), values.end()));
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
