#pragma once
// Caps on problem sizes accepted from a web page. They keep every call within a frame or two on
// a phone and every result within a few megabytes; larger problems belong to the native build.
#include <cstddef>

namespace attn::wasm {

inline constexpr std::size_t kMaxTensorElements = std::size_t{1} << 20;  // per Q, K, V or mask
inline constexpr std::size_t kMaxScoreElements = std::size_t{1} << 22;   // B * H * L * S for sdpa
inline constexpr std::size_t kMaxAttentionWork = std::size_t{1} << 27;   // B * H * L * S * (D + Dv) of a Q/K/V call
inline constexpr std::size_t kMaxHeavyAttentionWork = std::size_t{1} << 26;  // the same for flashBackward and the
                                                                           // approximate methods (each ~2x a pass)
inline constexpr std::size_t kMaxTraceLength = 1024;                     // L and S for a traced run
inline constexpr std::size_t kMaxTraceSteps = 4096;                      // Q blocks x K blocks
inline constexpr std::size_t kMaxValueDim = 4096;                        // OnlineSoftmax value width
inline constexpr std::size_t kMaxSeed = 4294967295u;                     // seeds are 32-bit in JS
inline constexpr std::size_t kMaxSramElements = std::size_t{1} << 24;    // an SRAM budget M, in elements
inline constexpr std::size_t kMaxCostSeqLen = std::size_t{1} << 24;      // L and S in cost queries (closed forms)
inline constexpr std::size_t kMaxCostRowBlocks = std::size_t{1} << 20;   // query blocks a flash cost query walks
inline constexpr std::size_t kMaxWorkBlocks = std::size_t{1} << 16;      // thread blocks gpuWorkPartition lays out
inline constexpr std::size_t kMaxTilesPerBlock = 2147483647;             // K/V tiles of one of them (an Int32Array entry)
inline constexpr std::size_t kMaxFa3Iterations = 64;                     // key blocks an FA3 timeline simulates
inline constexpr std::size_t kMaxFp8SeqLen = 2048;                       // N of the in-browser FP8 experiment
inline constexpr std::size_t kMaxFp8Work = std::size_t{1} << 23;         // its seqLen * evalRows * headDim
inline constexpr std::size_t kMaxFp8Pairs = std::size_t{1} << 20;        // and its seqLen * evalRows
inline constexpr std::size_t kMaxKvCount = std::size_t{1} << 16;          // layers, heads, dims of a KV-cache query
inline constexpr std::size_t kMaxKvContextTokens = std::size_t{1} << 24;  // context of a KV-cache query
inline constexpr std::size_t kMaxKvBatch = std::size_t{1} << 16;          // requests of a KV-cache query
inline constexpr std::size_t kMaxRopeDim = std::size_t{1} << 14;          // length of a vector ropeVector rotates
inline constexpr std::size_t kMaxRopePosition = std::size_t{1} << 24;     // its position
inline constexpr std::size_t kMaxMlaSize = 64;                            // each MLA width and head count
inline constexpr std::size_t kMaxMlaSeqLen = 128;                         // tokens of an in-browser MLA run
inline constexpr std::size_t kMaxMlaWork = std::size_t{1} << 22;          // its batch * heads * S^2 * (d_c + d_R)
inline constexpr std::size_t kMaxGqaHeads = 16;                           // heads of an in-browser GQA conversion
inline constexpr std::size_t kMaxGqaWidth = 64;                           // its model, head widths and tokens

inline constexpr std::size_t kMaxServingRequests = 256;                   // requests of an in-browser serving replay
inline constexpr std::size_t kMaxServingBlocks = 1024;                    // its pool, in blocks
inline constexpr std::size_t kMaxServingBlockSize = 256;                  // tokens per block
inline constexpr std::size_t kMaxServingTokens = 4096;                    // a prompt or output length
inline constexpr std::size_t kMaxServingEvents = 200000;                  // allocator events a replay may record
inline constexpr std::size_t kMaxServingSteps = 100000;                   // decoding steps a replay may take
// A ServingStepper replays twice and keeps both replays and their checkpoints, and a figure queries
// it per frame: its workloads are figure-sized, so that construction stays within a second.
inline constexpr std::size_t kMaxStepperRequests = 64;
inline constexpr std::size_t kMaxStepperBlocks = 256;
inline constexpr std::size_t kMaxStepperBlockSize = 64;
inline constexpr std::size_t kMaxStepperTokens = 1024;
inline constexpr std::size_t kMaxStepperEvents = 50000;
inline constexpr std::size_t kMaxRingDevices = 64;                       // devices a ring schedule lays out (P^2 steps)
inline constexpr std::size_t kMaxRingTraceDevices = 16;                  // devices of a traced ring (P^2 entries)
inline constexpr std::size_t kMaxRingTraceWork = std::size_t{1} << 23;   // its qLen x kvLen x (headDim + valueDim)
inline constexpr std::size_t kMaxRingTraceValues = std::size_t{1} << 18; // numbers a ring trace returns
inline constexpr std::size_t kMaxInfluenceCells = std::size_t{1} << 22;  // layers x seqLen^2 of a receptive-field map
inline constexpr std::size_t kMaxPagedBlocks = 4096;                     // physical blocks of an in-browser pool
inline constexpr std::size_t kMaxSpeculativeRuns = 1000000;              // Monte-Carlo target runs per call
inline constexpr std::size_t kMaxSpeculativeDraws = std::size_t{1} << 25;  // runs * (gamma + 1) acceptance draws

}  // namespace attn::wasm
