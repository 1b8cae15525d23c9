#pragma once
// The CUDA benchmarks: the kernels of native/cuda (standard attention on cuBLAS in FP32, the
// readable FP32 flash kernel, the tensor-core flash kernel in FP16 and BF16) timed with CUDA
// events on device 0, each checked against attn::sdpa in double before it is timed. Compiled only
// when the benchmark is built with CUDA (ATTN_ENABLE_CUDA); registered only when a device is
// present, so the binary still runs its CPU benchmarks on a machine without one.
//
// Counters, as the CPU benchmarks: FLOP/s (FlashAttention's convention), bytes/s of the cost
// model's HBM traffic for the kernel's own tiling, peak_device_bytes (what one call allocates
// beyond Q, K, V: the output, the log-sum-exp, and for standard attention the S and P matrices),
// check_error, N (queries), S (keys), d, causal, batch, heads; and roofline_percent, the time attn::cost::predict
// gives for the detected GPU preset divided by the measured time (absent when no preset describes
// the device).
#include <cstddef>
#include <ostream>
#include <vector>

#include "bench_support.hpp"

namespace attn::bench {

// The sweep of FlashAttention-2's benchmark (benchmarks/benchmark_flash_attention.py in
// Dao-AILab/flash-attention): batch * N = 16384 tokens and heads = 2048 / d (model width 2048), so
// Q, K, V and O have the same size at every N and d, and the work grows as N.
inline constexpr std::size_t kGpuSeqLens[] = {512, 1024, 2048, 4096, 8192, 16384};
inline constexpr std::size_t kGpuTokens = 16384;
inline constexpr std::size_t kGpuModelWidth = 2048;
// Chunked prefill (q_len != kv_len): a chunk of L new tokens against S keys (the cache before it
// and the chunk itself), causal aligned bottom-right as the kernels' key_visibility.hpp does it,
// so the chunk's last query sees every key. Batch kGpuTokens / S keeps K and V at the sweep's size.
struct PrefillChunk {
    std::size_t q_len, kv_len;
};
inline constexpr PrefillChunk kGpuPrefillChunks[] = {{512, 8192}, {2048, 16384}};

// Registers the CUDA benchmarks when device 0 is usable and returns their problems (for the
// model's predictions); otherwise writes why to `log` and registers nothing.
std::vector<Problem> register_cuda_benchmarks(std::ostream& log);

// `--check`: every kernel, head dim and causal mode (none, top_left, bottom_right) against
// attn::sdpa in double, one line each to `out`. Without a usable device, writes why and returns
// true (nothing to check); otherwise returns whether every check passed.
bool run_cuda_checks(std::ostream& out);

}  // namespace attn::bench
