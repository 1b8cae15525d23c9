#pragma once
// The JavaScript form of an attn::classic::Matrix, shared by the Part 1 bindings:
// { data: Float64Array (row-major), shape: [rows, cols] }.
#include <emscripten/val.h>

#include <cstddef>

#include "attn/classic/matrix.hpp"

namespace attn::wasm {

emscripten::val pair_to_js(std::size_t a, std::size_t b);
emscripten::val matrix_to_js(const classic::Matrix& m);

}  // namespace attn::wasm
