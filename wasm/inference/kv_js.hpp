#pragma once
// The KV-cache size as the inference module returns it, and the cache's element type as it reads it:
// shared by the KV-scheme bindings (bind_kvschemes.cpp) and the decode roofline (bind_roofline.cpp),
// so a cache reads the same wherever a page meets it.
#include <emscripten/val.h>

#include "attn/kvcache/kv_schemes.hpp"

namespace attn::wasm {

// obj.dtype: 'fp32' | 'fp16' (default) | 'bf16' | 'fp8'.
kvcache::KvDtype dtype_arg(const emscripten::val& obj);

// {scheme, dtype, layers, qHeads, kvHeads, ..., bytesPerToken, bytesPerRequest, totalBytes} (kvschemes.d.ts).
emscripten::val kv_bytes_to_js(const kvcache::KvBytes& r);

}  // namespace attn::wasm
