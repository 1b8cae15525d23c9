#pragma once
// The JavaScript form of an attn::approx::ApproxResult, shared by every Part 2 binding (sparse
// patterns and the approximate methods), so each figure reads one shape:
//   { output, outputShape, error: {relativeFrobenius, maxAbs, top1Preserved},
//     cost: {scoreEntries, flops, peakBytes} }
#include <emscripten/val.h>

#include "attn/approx/approx_report.hpp"

namespace attn::wasm {

emscripten::val approx_result_js(const approx::ApproxResult& r);

}  // namespace attn::wasm
