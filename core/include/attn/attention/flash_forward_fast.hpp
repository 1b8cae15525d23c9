#pragma once
// FlashAttention-2's forward pass (Dao 2023, arXiv:2307.08691, Algorithm 1) built for speed on a
// CPU, in FP32: the same algorithm as flash_forward (query blocks outer, K/V blocks inner, online
// softmax state per row, output normalised once at the end), without its trace or traffic
// counters, and organised the way a CPU wants it:
//
//  * Parallel: one task per (batch, head, query block), handed out to the process's workers
//    (attn/worker_pool.hpp) from a shared counter (causal blocks differ in cost, so static
//    splitting would leave a core idle).
//  * Cache-blocked: a task keeps a 64-row query block (transposed), its 64 x 64 score tile, its
//    64 x value_dim accumulator and the row statistics in one thread's scratch -- about
//    100 KB at d = 128, inside the L2 of one core -- while 64-key blocks of K and V stream past.
//  * Vectorised: every inner loop runs over 64 contiguous query rows, so g++ -O3 turns the score
//    product, the online-softmax update and the P V product into SIMD code. Scores are
//    pre-multiplied by log2(e) and exponentiated with fast_exp2 (the FA2 kernels do the same,
//    with exp2f).
//
// Supported: causal (top-left and bottom-right alignment, fully masked tiles skipped), GQA,
// L != S, head_dim != value_dim. Rows that see no key give a zero output and lse = -inf. An
// attn_mask is not supported (use flash_forward).
#include <cstddef>
#include <vector>

#include "attn/attention/options.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct FastFlashOptions : AttentionOptions {
    // Worker threads, in [0, 1024]; 0 = std::thread::hardware_concurrency(). WebAssembly builds
    // without pthreads always run on the calling thread.
    std::size_t num_threads = 0;
};

struct FastFlashResult {
    Tensor4<float> output;   // [B, Hq, L, Dv]
    std::vector<float> lse;  // [B, Hq, L], natural log; -inf for rows with no allowed key
};

// The block sizes the implementation uses (exposed for the traffic model of benchmarks).
inline constexpr std::size_t kFastFlashBlockQ = 64;
inline constexpr std::size_t kFastFlashBlockK = 64;

// Throws attn::Error for invalid shapes or options (validate_attention's checks), a non-empty
// attn_mask, or num_threads out of range.
FastFlashResult flash_forward_fast(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v,
                                   const FastFlashOptions& options = {});

}  // namespace attn
