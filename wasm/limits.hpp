#pragma once
// Caps on problem sizes accepted from a web page. They keep every call within a frame or two on
// a phone and every result within a few megabytes; larger problems belong to the native build.
#include <cstddef>

namespace attn::wasm {

inline constexpr std::size_t kMaxTensorElements = std::size_t{1} << 20;  // per Q, K, V or mask
inline constexpr std::size_t kMaxScoreElements = std::size_t{1} << 22;   // B * H * L * S for sdpa
inline constexpr std::size_t kMaxTraceLength = 1024;                     // L and S for a traced run
inline constexpr std::size_t kMaxTraceSteps = 4096;                      // Q blocks x K blocks
inline constexpr std::size_t kMaxValueDim = 4096;                        // OnlineSoftmax value width
inline constexpr std::size_t kMaxSeed = 4294967295u;                     // seeds are 32-bit in JS
inline constexpr std::size_t kMaxSramElements = std::size_t{1} << 24;    // an SRAM budget M, in elements
inline constexpr std::size_t kMaxCostSeqLen = std::size_t{1} << 24;      // L and S in cost queries (closed forms)
inline constexpr std::size_t kMaxCostRowBlocks = std::size_t{1} << 20;   // query blocks a flash cost query walks
inline constexpr std::size_t kMaxWorkBlocks = std::size_t{1} << 16;      // thread blocks gpuWorkPartition lays out
inline constexpr std::size_t kMaxFa3Iterations = 64;                     // key blocks an FA3 timeline simulates
inline constexpr std::size_t kMaxFp8SeqLen = 2048;                       // N of the in-browser FP8 experiment
inline constexpr std::size_t kMaxFp8Work = std::size_t{1} << 23;         // its seqLen * evalRows * headDim

}  // namespace attn::wasm
