// Standard attention the way an eager framework executes it: three kernels and two L x S
// matrices in HBM (FlashAttention, Dao et al. 2022, Algorithm 0).
//
//   1. cuBLAS GEMM        S = scale * Q K^T          -> written to HBM
//   2. masked softmax     P = softmax(S + mask)      S read from HBM, P written to HBM
//   3. cuBLAS GEMM        O = P V                    P read from HBM
//
// What it demonstrates: why attention is memory-bound at long sequence lengths. The two GEMMs do
// the arithmetic, 2 L S d + 2 L S d_v FLOPs per head, at GEMM speed; the softmax between them
// does ~5 FLOPs per score but moves at least 16 bytes per score through HBM (S written by the
// first GEMM and read by the softmax, P written by it and read by the second GEMM, FP32; the
// softmax's second pass over a row of S mostly hits L2), against 4 (L + S) d bytes for Q, K, V
// and O. With L = S = N the N^2 terms win
// as soon as N outgrows d, so the kernel's time follows HBM bandwidth, not FLOPs, and its
// workspace grows as N^2 (2 B H N^2 floats). The flash kernels remove exactly these N^2 bytes.
// Causal masking saves nothing here: S is computed in full and the mask only zeroes P.
//
// The softmax kernel (one warp per row) is the numerically stable one, in the one-pass form of
// Milakov & Gimelshein (2018): each lane folds its scores into a running (max, sum) with core's
// online_softmax::update, the warp combines the 32 states with online_softmax::merge through
// __shfl_xor_sync, and a second pass writes exp(s - max) / sum. So S is read twice, not three
// times (max, sum, normalise), and exp never sees a positive argument.
//
// GQA without copying K and V: the q_heads / kv_heads query heads that share a key/value head are
// contiguous in Q, S, P and O, so one strided-batched GEMM over (batch, kv_head) multiplies all
// of them at once, as a (group * L) x d matrix.
#include <cstddef>
#include <limits>
#include <string>

#include "attention_kernels.hpp"
#include "attn/attention/online_softmax.hpp"
#include "cuda_compat.hpp"
#include "key_visibility.hpp"
#include "launcher_checks.hpp"

namespace attn::cuda {
namespace {

constexpr int kWarpSize = 32;
constexpr int kSoftmaxRowsPerBlock = 4;  // one warp per row

// scores, probs: [batch, q_heads, q_len, kv_len]; lse: [batch, q_heads, q_len] or null.
// Grid: (ceil(q_len / 4), q_heads, batch); block: 4 warps.
__global__ void masked_softmax_kernel(const float* scores, float* probs, float* lse, int q_heads, int q_len,
                                      int kv_len, Causal causal, DeviceBoolMask mask) {
    const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
    const int row = static_cast<int>(blockIdx.x) * kSoftmaxRowsPerBlock + static_cast<int>(threadIdx.x) / kWarpSize;
    const int head = static_cast<int>(blockIdx.y), batch = static_cast<int>(blockIdx.z);
    if (row >= q_len) return;  // the whole warp leaves together, so the shuffles below stay full-warp

    const std::size_t row_index = (static_cast<std::size_t>(batch) * q_heads + head) * q_len + row;
    const float* s = scores + row_index * kv_len;
    float* p = probs + row_index * kv_len;
    const int key_end = visible_key_end(row, q_len, kv_len, causal);
    constexpr float kMasked = -std::numeric_limits<float>::infinity();

    // Pass 1: lane folds keys lane, lane + 32, ... into its own running (max, sum).
    online_softmax::State<float> state;
    for (int j = lane; j < key_end; j += kWarpSize) {
        const float score = mask_allows(mask, batch, head, row, j) ? s[j] : kMasked;
        online_softmax::update(state, static_cast<float*>(nullptr), 0, &score, 1, &score, 0);
    }
    // Butterfly reduction: after log2(32) exchanges every lane holds the state of the whole row.
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
        const online_softmax::State<float> other{__shfl_xor_sync(0xffffffffu, state.m, offset),
                                                 __shfl_xor_sync(0xffffffffu, state.l, offset)};
        online_softmax::merge(state, static_cast<float*>(nullptr), other, static_cast<const float*>(nullptr), 0);
    }
    // finalize applied to the constant 1 yields 1 / sum, or 0 for a row that sees no key, and the
    // row's log-sum-exp (-inf for such a row): core's convention, not re-derived here.
    const float one = 1.0f;
    float inv_sum = 0.0f;
    const float row_lse = online_softmax::finalize(state, &one, 1, &inv_sum);

    // Pass 2: normalised probabilities; masked and causally hidden keys get exactly 0.
    for (int j = lane; j < kv_len; j += kWarpSize) {
        const bool visible = j < key_end && mask_allows(mask, batch, head, row, j);
        p[j] = visible ? online_softmax::rescale_factor(s[j], state.m) * inv_sum : 0.0f;
    }
    if (lane == 0 && lse != nullptr) lse[row_index] = row_lse;
}

void check_cublas(cublasStatus_t status, const char* step) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw Error(std::string("standard_attention_forward: cuBLAS ") + step + " failed with status " +
                    std::to_string(static_cast<int>(status)));
    }
}

}  // namespace

void masked_softmax_forward(const float* scores, float* probs, float* lse, const AttentionShape& shape,
                            const KernelOptions& options, cudaStream_t stream) {
    checks::shape_and_options(shape, options);
    checks::not_null("scores", scores);
    checks::not_null("probs", probs);
    const dim3 grid((shape.q_len + kSoftmaxRowsPerBlock - 1) / kSoftmaxRowsPerBlock, shape.q_heads, shape.batch);
    launch_kernel("masked_softmax_kernel", masked_softmax_kernel, grid, dim3(kSoftmaxRowsPerBlock * kWarpSize), 0,
                  stream, scores, probs, lse, shape.q_heads, shape.q_len, shape.kv_len, options.causal, options.mask);
}

std::size_t standard_attention_workspace_elements(const AttentionShape& shape) {
    checks::shape_and_options(shape, {});
    return static_cast<std::size_t>(shape.batch) * shape.q_heads * shape.q_len * shape.kv_len;
}

void standard_attention_forward(cublasHandle_t cublas, const float* q, const float* k, const float* v, float* out,
                                float* lse, float* scores, float* probs, const AttentionShape& shape,
                                const KernelOptions& options, cudaStream_t stream) {
    const float scale = checks::shape_and_options(shape, options);
    checks::not_null("cublas", cublas);
    checks::not_null("q", q);
    checks::not_null("k", k);
    checks::not_null("v", v);
    checks::not_null("out", out);
    checks::not_null("scores", scores);
    checks::not_null("probs", probs);
    const long long group = shape.q_heads / shape.kv_heads;
    checks::in_range("q_heads / kv_heads * q_len", group * shape.q_len, 1, checks::kIntMax);
    checks::in_range("batch * kv_heads", static_cast<long long>(shape.batch) * shape.kv_heads, 1, checks::kIntMax);

    // cuBLAS is column-major: a row-major [rows x cols] matrix is its transpose with ld = cols.
    // Per (batch, kv_head): S^T [S x gL] = (K as D x S)^T (Q as D x gL);  O^T [Dv x gL] = V^T P^T.
    const int group_rows = static_cast<int>(group * shape.q_len);
    const int batches = shape.batch * shape.kv_heads;
    const long long L = shape.q_len, S = shape.kv_len, D = shape.head_dim, Dv = shape.value_dim;
    const float zero = 0.0f, one = 1.0f;
    check_cublas(cublasSetStream(cublas, stream), "set stream");
    check_cublas(cublasSgemmStridedBatched(cublas, CUBLAS_OP_T, CUBLAS_OP_N, shape.kv_len, group_rows, shape.head_dim,
                                           &scale, k, shape.head_dim, S * D, q, shape.head_dim, group * L * D, &zero,
                                           scores, shape.kv_len, group * L * S, batches),
                 "S = scale * Q K^T");
    masked_softmax_forward(scores, probs, lse, shape, options, stream);
    check_cublas(cublasSgemmStridedBatched(cublas, CUBLAS_OP_N, CUBLAS_OP_N, shape.value_dim, group_rows, shape.kv_len,
                                           &one, v, shape.value_dim, S * Dv, probs, shape.kv_len, group * L * S, &zero,
                                           out, shape.value_dim, group * L * Dv, batches),
                 "O = P V");
}

}  // namespace attn::cuda
