#pragma once
// Conversions between JavaScript values and core types, with the argument checks a typed
// language would otherwise do: every failure throws attn::Error naming the JS property.
#include <emscripten/val.h>
#include <emscripten/wire.h>

#include <cstdint>
#include <string>
#include <vector>

#include "attn/attention/options.hpp"
#include "attn/tensor.hpp"

namespace attn::wasm {

using emscripten::val;

// obj[key] as an integer in [lo, hi]; `fallback` when the property is absent.
std::size_t integer_arg(const val& obj, const char* key, std::size_t lo, std::size_t hi, std::size_t fallback);
// obj[key] as a finite number in [lo, hi]; `fallback` when absent.
double number_arg(const val& obj, const char* key, double lo, double hi, double fallback);
bool bool_arg(const val& obj, const char* key, bool fallback);
// obj[key] as a string; `fallback` when it is absent, or an error naming it when fallback is null.
std::string string_arg(const val& obj, const char* key, const char* fallback);
// obj[key], which must be present, as an integer in [lo, hi].
std::size_t required_integer(const val& obj, const char* key, std::size_t lo, std::size_t hi);

// obj[key] as [batch, heads, seq, dim], each an integer >= 1, with at most `max_elements` elements.
// Messages name the argument `name` (default: key).
Shape4 shape_arg(const val& obj, const char* key, std::size_t max_elements, const char* name = nullptr);

// The length of `v`, a typed array of numbers (Float32Array, Float64Array, Uint8Array, ...) or an
// array, checked to lie in [min_length, max_length] before anything is copied. Anything else (a
// BigInt64Array, a Proxy, an object with a length) is rejected naming `name`.
std::size_t array_length_arg(const val& v, const std::string& name, std::size_t min_length, std::size_t max_length);
// Copies the first `count` entries of `v` (already measured by array_length_arg) into `out`; an
// entry that is not a number (BigInt, Symbol, string, object) is rejected naming `name` and its
// index, so no engine TypeError escapes.
void copy_numbers(const val& v, const std::string& name, float* out, std::size_t count);
void copy_numbers(const val& v, const std::string& name, double* out, std::size_t count);

// `v` as numbers, with between min_length and max_length entries: length first, then the copy.
template <class T>
std::vector<T> number_array_arg(const val& v, const std::string& name, std::size_t min_length, std::size_t max_length) {
    std::vector<T> out(array_length_arg(v, name, min_length, max_length));
    copy_numbers(v, name, out.data(), out.size());
    return out;
}

// The bytes of `v`, a Uint8Array or an ArrayBuffer of at most max_length bytes (checked before the
// copy); anything else is rejected naming `name`.
std::vector<std::uint8_t> bytes_arg(const val& v, const std::string& name, std::size_t max_length);

// a * b, or throws naming `name` when the product would pass `limit` (size_t is 32 bits in
// WebAssembly, so unchecked products of JS sizes wrap).
std::size_t checked_product(std::size_t a, std::size_t b, std::size_t limit, const std::string& name);

// obj[data_key] (a Float32Array or array of numbers) with obj[shape_key]'s element count.
Tensor4<float> tensor_arg(const val& obj, const char* data_key, const char* shape_key, std::size_t max_elements);

// A count or byte total returned to JavaScript, whose numbers hold integers exactly only up to 2^53:
// a larger one is refused, naming it, rather than returned rounded (one behaviour in every module).
inline constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53
[[noreturn]] inline void refuse_inexact(const std::string& value, const char* name) {
    throw Error(std::string(name) + ": " + value +
                " exceeds 2^53, the largest integer a JavaScript number holds exactly; choose smaller sizes");
}
inline double exact_count(double x, const char* name) {
    if (!(x <= kMaxExactInteger)) refuse_inexact(std::to_string(x), name);
    return x;
}
inline double exact_count(std::uint64_t x, const char* name) {
    if (x > (std::uint64_t{1} << 53)) refuse_inexact(std::to_string(x), name);
    return static_cast<double>(x);
}

// obj.causal, the one convention of every module: 'none' (default), 'top_left' or 'bottom_right'.
Causal causal_arg(const val& obj);

// The shared attention options: scale, causal ('none' | 'top_left' | 'bottom_right'), mask.
AttentionOptions attention_options_arg(const val& obj);

// A JavaScript typed array (Float32Array, Float64Array, Uint8Array, ... by T) holding a copy of
// `count` elements. A view on wasm memory would be invalidated by the next allocation; slice()
// copies it out.
template <class T>
val typed_array(const T* data, std::size_t count) {
    return val(emscripten::typed_memory_view(count, data)).call<val>("slice");
}
template <class T>
val typed_array(const std::vector<T>& v) {
    return typed_array(v.data(), v.size());
}
inline val to_float32_array(const float* data, std::size_t count) { return typed_array(data, count); }
inline val to_float32_array(const std::vector<float>& v) { return typed_array(v); }
// Doubles narrowed to a Float32Array (what the figures draw).
inline val to_float32_array(const std::vector<double>& v) { return typed_array(std::vector<float>(v.begin(), v.end())); }
val shape_to_js(const Shape4& s);

// Runs `body`; a C++ exception becomes a JavaScript Error carrying the same message. The
// message is kept in static storage because throwing into JavaScript skips C++ destructors.
template <class F>
val guarded(F&& body) {
    static std::string message;
    try {
        return body();
    } catch (const std::exception& e) {
        message = e.what();
    }
    val::global("Error").new_(val(message)).throw_();
}

}  // namespace attn::wasm
