#pragma once
// Trace steps as JavaScript objects, built in ONE call into JavaScript per trace.
//
// Setting ~20 fields and 6-7 typed arrays per step through emscripten::val costs ~50 crossings of
// the wasm/JS boundary per step (each decoding its key string); for a 64-token trace that was half
// of the time. StepsBuilder instead collects every step's numbers, array addresses and HBM
// transfers in flat C++ arrays and hands them to a JavaScript function that builds all the step
// objects at once (tests/wasm/io.test.mjs times it).
#include <emscripten/val.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "attn/attention/io_trace.hpp"

namespace attn::wasm {

const char* hbm_matrix_name(HbmMatrix m);

class StepsBuilder {
public:
    // Comma-separated names of each step's number fields and Float32Array fields, in the order
    // add() receives them. With `with_transfers` each step also gets a `transfers` array of
    // {matrix, direction, rowBegin, rowEnd, colBegin, colEnd, bytes}.
    StepsBuilder(const char* number_keys, const char* array_keys, bool with_transfers);

    // `kind` must be a string literal; the vectors must stay alive until build() returns.
    void add(const char* kind, std::initializer_list<double> numbers,
             std::initializer_list<const std::vector<float>*> arrays, const std::vector<HbmTransfer>& transfers = {});

    // The array of step objects.
    emscripten::val build() const;

private:
    std::string number_keys_, array_keys_;
    std::size_t numbers_per_step_, arrays_per_step_;
    bool with_transfers_;
    std::vector<const char*> kinds_;
    std::vector<double> numbers_;
    std::vector<std::uint32_t> arrays_;  // (byte address, element count) per array field
    std::vector<double> transfers_;      // per step: count, then 7 numbers per transfer
};

}  // namespace attn::wasm
