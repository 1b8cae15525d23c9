#include "trace_js.hpp"

#include <emscripten/emscripten.h>

#include <algorithm>

#include "attn/error.hpp"

// Builds the step objects from the flat arrays StepsBuilder filled (see trace_js.hpp). Typed
// arrays are copied out of wasm memory with slice(), so they survive later memory growth. Nothing
// here calls back into wasm, so the heap views stay valid during the call.
// clang-format off
EM_JS(emscripten::EM_VAL, attn_build_trace_steps,
      (const char* number_keys, const char* array_keys, int steps, const char* const* kinds, const double* numbers,
       const std::uint32_t* arrays, int with_transfers, const double* transfers), {
    var numberKeys = UTF8ToString(number_keys).split(',').filter(function(k) { return k.length > 0; });
    var arrayKeys = UTF8ToString(array_keys).split(',').filter(function(k) { return k.length > 0; });
    var names = {};
    function name(address) {
        var s = names[address];
        if (s === undefined) s = names[address] = UTF8ToString(address);
        return s;
    }
    var nn = numberKeys.length, na = arrayKeys.length, t = transfers >> 3;
    var out = new Array(steps);
    for (var i = 0; i < steps; i++) {
        var o = { kind: name(HEAPU32[(kinds >> 2) + i]) };
        for (var f = 0; f < nn; f++) o[numberKeys[f]] = HEAPF64[(numbers >> 3) + i * nn + f];
        for (var g = 0; g < na; g++) {
            var a = (arrays >> 2) + 2 * (i * na + g);
            var p = HEAPU32[a] >> 2;
            o[arrayKeys[g]] = HEAPF32.slice(p, p + HEAPU32[a + 1]);
        }
        if (with_transfers) {
            var count = HEAPF64[t++];
            var list = new Array(count);
            for (var c = 0; c < count; c++, t += 7) {
                list[c] = { matrix: name(HEAPF64[t]), direction: HEAPF64[t + 1] ? 'write' : 'read',
                            rowBegin: HEAPF64[t + 2], rowEnd: HEAPF64[t + 3], colBegin: HEAPF64[t + 4],
                            colEnd: HEAPF64[t + 5], bytes: HEAPF64[t + 6] };
            }
            o.transfers = list;
        }
        out[i] = o;
    }
    return Emval.toHandle(out);
});
// clang-format on

namespace attn::wasm {

const char* hbm_matrix_name(HbmMatrix m) {
    switch (m) {
        case HbmMatrix::q: return "Q";
        case HbmMatrix::k: return "K";
        case HbmMatrix::v: return "V";
        case HbmMatrix::o: return "O";
        case HbmMatrix::s: return "S";
        case HbmMatrix::p: return "P";
        case HbmMatrix::row_max: return "m";
        case HbmMatrix::row_sum: return "l";
        case HbmMatrix::lse: return "lse";
        case HbmMatrix::d_o: return "dO";
        case HbmMatrix::d_q: return "dQ";
        case HbmMatrix::d_k: return "dK";
        case HbmMatrix::d_v: return "dV";
        case HbmMatrix::delta: return "D";
    }
    return "";
}

StepsBuilder::StepsBuilder(const char* number_keys, const char* array_keys, bool with_transfers)
    : number_keys_(number_keys), array_keys_(array_keys), with_transfers_(with_transfers) {
    auto fields = [](const std::string& keys) {
        return keys.empty() ? std::size_t{0} : static_cast<std::size_t>(std::count(keys.begin(), keys.end(), ',')) + 1;
    };
    numbers_per_step_ = fields(number_keys_);
    arrays_per_step_ = fields(array_keys_);
}

void StepsBuilder::add(const char* kind, std::initializer_list<double> numbers,
                       std::initializer_list<const std::vector<float>*> arrays,
                       const std::vector<HbmTransfer>& transfers) {
    if (numbers.size() != numbers_per_step_ || arrays.size() != arrays_per_step_) {
        throw Error("StepsBuilder: a step needs " + std::to_string(numbers_per_step_) + " numbers and " +
                    std::to_string(arrays_per_step_) + " arrays");
    }
    kinds_.push_back(kind);
    numbers_.insert(numbers_.end(), numbers);
    for (const std::vector<float>* a : arrays) {
        arrays_.push_back(static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(a->data())));
        arrays_.push_back(static_cast<std::uint32_t>(a->size()));
    }
    if (!with_transfers_) return;
    transfers_.push_back(static_cast<double>(transfers.size()));
    for (const HbmTransfer& t : transfers) {
        transfers_.insert(transfers_.end(),
                          {static_cast<double>(reinterpret_cast<std::uintptr_t>(hbm_matrix_name(t.matrix))),
                           t.direction == HbmDirection::write ? 1.0 : 0.0, static_cast<double>(t.row_begin),
                           static_cast<double>(t.row_end), static_cast<double>(t.col_begin),
                           static_cast<double>(t.col_end), static_cast<double>(t.bytes)});
    }
}

emscripten::val StepsBuilder::build() const {
    return emscripten::val::take_ownership(attn_build_trace_steps(
        number_keys_.c_str(), array_keys_.c_str(), static_cast<int>(kinds_.size()), kinds_.data(), numbers_.data(),
        arrays_.data(), with_transfers_ ? 1 : 0, transfers_.data()));
}

}  // namespace attn::wasm
