#pragma once
// The decode problems the CPU and GPU decode benchmarks share: one layer of the Llama 3 8B and
// 70B attention shapes (attn::models presets: GQA, 8 KV heads, head_dim 128) at contexts 1k ...
// 128k. Plain C++ (no Google Benchmark, no CUDA), so the GPU sweep's planning is unit-tested.
#include <cstddef>
#include <string>
#include <vector>

namespace attn::bench {

inline constexpr std::size_t kDecodeContexts[] = {1024, 4096, 8192, 32768, 131072};

struct DecodeShape {
    std::string model;  // attn::models preset id
    std::size_t q_heads, kv_heads, head_dim;
};
std::vector<DecodeShape> decode_shapes();

}  // namespace attn::bench
