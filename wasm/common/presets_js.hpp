#pragma once
// The GPU and model presets as JavaScript objects, each number with its source: one implementation
// of gpuPresets / gpuPreset / modelPresets / modelPreset that every module needing the presets binds
// (the flash module for Part 3's cost figures, the inference module for Part 4's), so a Part 4 page
// lists presets without loading Part 3's module.
#include <emscripten/val.h>

namespace attn::wasm {

emscripten::val gpu_presets_js();
emscripten::val gpu_preset_js(const emscripten::val& id);
emscripten::val model_presets_js();
emscripten::val model_preset_js(const emscripten::val& id);

}  // namespace attn::wasm
