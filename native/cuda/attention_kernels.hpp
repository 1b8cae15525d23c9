#pragma once
// Launchers of the attention kernels in native/cuda/. All pointers are device pointers; every
// launcher validates its arguments and throws attn::Error naming the argument and its allowed
// range, then enqueues the kernel(s) on `stream` and returns without synchronising.
//
// Layouts are SDPA's, contiguous: Q [batch, q_heads, q_len, head_dim], K [batch, kv_heads,
// kv_len, head_dim], V [batch, kv_heads, kv_len, value_dim], O [batch, q_heads, q_len,
// value_dim], lse [batch, q_heads, q_len] (float, may be null). Query head h reads key/value head
// h / (q_heads / kv_heads) (grouped-query attention, SDPA's enable_gqa). A row that may attend
// to no key gets a zero output and lse = -inf, as core's attn::sdpa.
//
// Built by nvcc (the `cuda` preset) against the CUDA toolkit, or by a host compiler with
// ATTN_CUDA_EMULATION defined, against the CPU emulation in emulation/ (the emulated tests).
#include <cstddef>
#include <cstdint>
#include <optional>

#include "attn/attention/causal.hpp"

#if defined(ATTN_CUDA_EMULATION)
#include "emulation/cublas_emulation.hpp"
#else
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#endif

namespace attn::cuda {

struct AttentionShape {
    int batch = 1;
    int q_heads = 1;
    int kv_heads = 1;  // divides q_heads
    int q_len = 1;     // L
    int kv_len = 1;    // S
    int head_dim = 64;
    int value_dim = 64;
};

// A boolean mask in device memory with SDPA's convention (nonzero = may attend): entry
// (b, h, i, j) is allowed[b * batch_stride + h * head_stride + i * row_stride + j]. A zero stride
// broadcasts that dimension, so a [L, S] mask has strides {0, 0, S} and a key-padding mask
// [B, 1, 1, S] has {S, 0, 0}.
struct DeviceBoolMask {
    const std::uint8_t* allowed = nullptr;  // null: no mask
    long long batch_stride = 0;
    long long head_stride = 0;
    long long row_stride = 0;
};

struct KernelOptions {
    std::optional<float> scale;     // any finite value; default 1 / sqrt(head_dim)
    Causal causal = Causal::none;   // top_left = SDPA is_causal, bottom_right = causal_lower_right
    DeviceBoolMask mask;            // may not be combined with causal, as in SDPA
};

// Standard attention, as an eager framework runs it (FP32): cuBLAS S = scale * Q K^T into
// `scores`, masked_softmax_forward into `probs`, cuBLAS O = P V. `scores` and `probs` each hold
// standard_attention_workspace_elements(shape) floats.
std::size_t standard_attention_workspace_elements(const AttentionShape& shape);
void standard_attention_forward(cublasHandle_t cublas, const float* q, const float* k, const float* v, float* out,
                                float* lse, float* scores, float* probs, const AttentionShape& shape,
                                const KernelOptions& options, cudaStream_t stream);

// The softmax step alone: rows of already-scaled scores [batch, q_heads, q_len, kv_len] ->
// probabilities of the same shape (masked entries 0), and optionally each row's log-sum-exp.
// Uses batch, q_heads, q_len and kv_len of `shape`; options.scale is not applied.
void masked_softmax_forward(const float* scores, float* probs, float* lse, const AttentionShape& shape,
                            const KernelOptions& options, cudaStream_t stream);

// Tiled flash forward in FP32, the readable version. head_dim in [1, 128]; value_dim one of
// 32, 64, 96, 128.
void flash_forward_fp32(const float* q, const float* k, const float* v, float* out, float* lse,
                        const AttentionShape& shape, const KernelOptions& options, cudaStream_t stream);

// Tiled flash forward on tensor cores: 16-bit inputs and output, FP32 accumulation and softmax.
// head_dim == value_dim, 64 or 128. Needs sm_80 or newer (BF16 WMMA).
void flash_forward_tensor_core(const __half* q, const __half* k, const __half* v, __half* out, float* lse,
                               const AttentionShape& shape, const KernelOptions& options, cudaStream_t stream);
void flash_forward_tensor_core(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                               __nv_bfloat16* out, float* lse, const AttentionShape& shape,
                               const KernelOptions& options, cudaStream_t stream);

// The reduction step of split-K decoding: merges `splits` partial online-softmax states per row.
// partial_m, partial_l: [rows, splits]; partial_acc: [rows, splits, value_dim] (unnormalised,
// relative to the split's m); out: [rows, value_dim]; lse: [rows]. rows in [1, 2^31 - 1],
// splits in [1, 1024], value_dim in [1, 1024]; all pointers non-null.
void merge_partial_states(const float* partial_m, const float* partial_l, const float* partial_acc, int rows,
                          int splits, int value_dim, float* out, float* lse, cudaStream_t stream);

}  // namespace attn::cuda
