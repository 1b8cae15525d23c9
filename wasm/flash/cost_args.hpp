#pragma once
// The attention problem of the cost queries, read from a JavaScript object the same way by every
// cost binding (bind_cost.cpp, bind_standard_breakdown.cpp).
#include <emscripten/val.h>

#include "attn/cost/attention_cost.hpp"

namespace attn::wasm {

// {batch, heads, qLen, kvLen, headDim, valueDim, causal}; kvLen defaults to qLen, valueDim to headDim.
cost::AttentionShape cost_shape_arg(const emscripten::val& in);

}  // namespace attn::wasm
