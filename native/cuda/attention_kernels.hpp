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

// v3 of the ladder, FlashAttention-2-style: mma.sync m16n8k16 with S, P and O in registers,
// ldmatrix from XOR-swizzled shared memory, K/V double-buffered with cp.async. Same arguments,
// limits and results as flash_forward_tensor_core. Needs sm_80 or newer.
void flash_forward_mma(const __half* q, const __half* k, const __half* v, __half* out, float* lse,
                       const AttentionShape& shape, const KernelOptions& options, cudaStream_t stream);
void flash_forward_mma(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* out,
                       float* lse, const AttentionShape& shape, const KernelOptions& options, cudaStream_t stream);

// The reduction step of split-K decoding: merges `splits` partial online-softmax states per row.
// partial_m, partial_l: [rows, splits]; partial_acc: [rows, splits, value_dim] (unnormalised,
// relative to the split's m); out: [rows, value_dim]; lse: [rows]. rows in [1, 2^31 - 1],
// splits in [1, 1024], value_dim in [1, 1024]; all pointers non-null.
void merge_partial_states(const float* partial_m, const float* partial_l, const float* partial_acc, int rows,
                          int splits, int value_dim, float* out, float* lse, cudaStream_t stream);

// Paged-attention decode (vLLM paged_attention semantics; core's attn::paged_decode is the
// reference) with the context split across thread blocks (Flash-Decoding) and the splits merged
// by merge_partial_states. One query token per (sequence, query head):
//   q            [num_seqs, q_heads, head_dim] float
//   key_pool     [num_blocks, kv_heads, block_size, head_dim] (core's pool layout), value_pool alike
//   block_tables [num_seqs, max_blocks_per_seq] int32: logical block -> physical block
//   context_lens [num_seqs] int32, each in [1, max_context_len], whose blocks the table covers with
//                ids < num_blocks (device data: the kernel trusts them, as vLLM's does)
//   workspace    paged_decode_workspace_floats(shape, splits) floats
//   out          [num_seqs, q_heads, head_dim] float, lse [num_seqs, q_heads] float
// Query head h reads KV head h / (q_heads / kv_heads); the query heads of a KV head (at most
// kMaxPagedDecodeGroup) share one thread block. head_dim 64 or 128, block_size 16 or 32, splits in
// [1, kMaxPagedDecodeSplits] (paged_decode_num_splits picks one); a split past a sequence's context
// is empty and ignored by the merge. Slots past a sequence's context are never read.
inline constexpr int kMaxPagedDecodeGroup = 8;
inline constexpr int kMaxPagedDecodeSplits = 256;
// Fewest tokens a split should read: its fixed costs (loading q, writing (d + 2) floats per query
// head, the merge reading them back) stay a few percent of reading 256 K and V rows.
inline constexpr int kMinTokensPerSplit = 256;

struct PagedDecodeShape {
    int num_seqs = 1;
    int q_heads = 1;
    int kv_heads = 1;  // divides q_heads
    int head_dim = 128;
    int block_size = 16;
    int num_blocks = 1;
    int max_blocks_per_seq = 1;
};

// Splits for a launch of num_seqs x kv_heads blocks on `multiprocessors` SMs (FlashAttention-2's
// Flash-Decoding heuristic): 1 when those blocks already fill 80 % of a wave; otherwise the fewest
// splits whose wave efficiency (blocks / SM slots of the waves they occupy) is within 85 % of the
// best, each split reading at least kMinTokensPerSplit tokens of max_context_len.
int paged_decode_num_splits(int num_seqs, int kv_heads, int max_context_len, int multiprocessors);
std::size_t paged_decode_workspace_floats(const PagedDecodeShape& shape, int splits);
void paged_decode(const float* q, const __half* key_pool, const __half* value_pool, const int* block_tables,
                  const int* context_lens, const PagedDecodeShape& shape, int max_context_len, int splits,
                  float* workspace, float* out, float* lse, std::optional<float> scale, cudaStream_t stream);
void paged_decode(const float* q, const __nv_bfloat16* key_pool, const __nv_bfloat16* value_pool,
                  const int* block_tables, const int* context_lens, const PagedDecodeShape& shape,
                  int max_context_len, int splits, float* workspace, float* out, float* lse,
                  std::optional<float> scale, cudaStream_t stream);

}  // namespace attn::cuda
