// Tiled flash forward in FP32, the readable version: the direct translation of FlashAttention-2's
// forward pass (Dao 2023, arXiv:2307.08691, Algorithm 1) and of core's flash_forward.hpp.
//
//   one thread block per (batch, head, block of 16 query rows):
//     load Q_i into shared memory                         -- read from HBM once
//     for each tile of 32 keys K_j, V_j (causally visible to some row of the block):
//       load K_j, V_j into shared memory                  -- the only HBM reads in the loop
//       S_ij = scale * Q_i K_j^T, masked entries -inf     -- lane j of a warp scores key j
//       online_softmax::update(m, l, acc, S_ij, V_j)      -- core's function, state in registers
//     O_i = acc / l, lse = m + log l                      -- core's finalize; written once
//
// Each warp owns 4 query rows. All 32 lanes run core's update on the whole score row, so every
// lane holds the same (m, l), and each lane accumulates its own value_dim / 32 columns of acc.
// Recomputing m and l in every lane is redundant arithmetic (32 exps per score instead of 1),
// accepted so that the kernel calls the core's update unchanged; the tensor-core kernel shows
// how the work is divided without it.
//
// What it costs: 4 L S d FLOPs per head (2 L S d for S_ij, 2 L S d_v for P V; tiles entirely
// above the causal diagonal are skipped, roughly halving this for L = S), all on FP32 CUDA cores.
// HBM traffic per head: Q and O once (4 L (d + d_v) bytes) plus K and V once per query block,
// 4 S (d + d_v) ceil(L / 16) bytes; no L x S matrix ever leaves the chip. That second term is
// FlashAttention's Theta(N^2 d^2 / M) with the block size set by the 48 KB of static shared
// memory used here; larger query blocks (the tensor-core kernel uses 64) divide it further.
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
constexpr int kWarps = 4;
constexpr int kRowsPerWarp = 4;
constexpr int kBlockQ = kWarps * kRowsPerWarp;  // Br = 16 query rows per block
constexpr int kBlockK = kWarpSize;              // Bc = 32 keys per tile: lane j scores key j
constexpr int kMaxHeadDim = 128;

// Grid (ceil(q_len / 16), q_heads, batch), block 128 threads. value_dim = 32 * kValuesPerLane.
template <int kValuesPerLane>
__global__ void flash_forward_fp32_kernel(const float* q, const float* k, const float* v, float* out, float* lse,
                                          AttentionShape shape, float scale, Causal causal, DeviceBoolMask mask) {
    constexpr int kValueDim = kValuesPerLane * kWarpSize;
    __shared__ float q_tile[kBlockQ][kMaxHeadDim];
    __shared__ float k_tile[kBlockK][kMaxHeadDim + 1];  // +1: lanes read one column of 32 rows conflict-free
    __shared__ float v_tile[kBlockK][kValueDim];
    __shared__ float score_tile[kBlockQ][kBlockK];

    const int tid = static_cast<int>(threadIdx.x), lane = tid % kWarpSize, warp = tid / kWarpSize;
    const int q0 = static_cast<int>(blockIdx.x) * kBlockQ;
    const int head = static_cast<int>(blockIdx.y), batch = static_cast<int>(blockIdx.z);
    const int kv_head = head / (shape.q_heads / shape.kv_heads);
    const int d = shape.head_dim;
    const std::size_t q_head_index = static_cast<std::size_t>(batch) * shape.q_heads + head;
    const std::size_t kv_head_index = static_cast<std::size_t>(batch) * shape.kv_heads + kv_head;
    const float* q_head = q + q_head_index * shape.q_len * d;
    const float* k_head = k + kv_head_index * shape.kv_len * d;
    const float* v_head = v + kv_head_index * shape.kv_len * kValueDim;

    // Q_i, read from HBM once; rows past q_len are zero (their results are never written).
    for (int idx = tid; idx < kBlockQ * d; idx += blockDim.x) {
        const int r = idx / d, c = idx % d;
        q_tile[r][c] = q0 + r < shape.q_len ? q_head[static_cast<std::size_t>(q0 + r) * d + c] : 0.0f;
    }

    online_softmax::State<float> state[kRowsPerWarp];
    float acc[kRowsPerWarp][kValuesPerLane] = {};

    // Keys at or past the causal end of the block's last row are hidden from every row of the
    // block: those tiles are never loaded.
    const int last_row = (q0 + kBlockQ < shape.q_len ? q0 + kBlockQ : shape.q_len) - 1;
    const int key_end = visible_key_end(last_row, shape.q_len, shape.kv_len, causal);
    for (int k0 = 0; k0 < key_end; k0 += kBlockK) {
        __syncthreads();  // every warp is done with the previous K_j, V_j (and Q_i is in place)
        for (int idx = tid; idx < kBlockK * d; idx += blockDim.x) {
            const int r = idx / d, c = idx % d;
            k_tile[r][c] = k0 + r < shape.kv_len ? k_head[static_cast<std::size_t>(k0 + r) * d + c] : 0.0f;
        }
        for (int idx = tid; idx < kBlockK * kValueDim; idx += blockDim.x) {
            const int r = idx / kValueDim, c = idx % kValueDim;
            v_tile[r][c] = k0 + r < shape.kv_len ? v_head[static_cast<std::size_t>(k0 + r) * kValueDim + c] : 0.0f;
        }
        __syncthreads();

        // S_ij for the warp's rows: lane scores key k0 + lane; hidden keys score -inf.
        const int key = k0 + lane;
        ATTN_UNROLL
        for (int r = 0; r < kRowsPerWarp; ++r) {
            const int local = warp * kRowsPerWarp + r, row = q0 + local;
            float score = -std::numeric_limits<float>::infinity();
            if (row < shape.q_len && key < visible_key_end(row, shape.q_len, shape.kv_len, causal) &&
                mask_allows(mask, batch, head, row, key)) {
                float dot = 0.0f;
                for (int c = 0; c < d; ++c) dot += q_tile[local][c] * k_tile[lane][c];
                score = scale * dot;
            }
            score_tile[local][lane] = score;
        }
        __syncwarp();  // the warp's score rows are complete before any lane reads them

        // Online softmax (core's update): rescale acc by exp(m_old - m_new), add p_j v_j.
        ATTN_UNROLL
        for (int r = 0; r < kRowsPerWarp; ++r) {
            online_softmax::update(state[r], acc[r], kValuesPerLane, score_tile[warp * kRowsPerWarp + r], kBlockK,
                                   &v_tile[0][lane * kValuesPerLane], kValueDim);
        }
    }

    // O_i = acc / l and lse = m + log l (zeros and -inf for a row that saw no key): core's finalize.
    ATTN_UNROLL
    for (int r = 0; r < kRowsPerWarp; ++r) {
        const int row = q0 + warp * kRowsPerWarp + r;
        if (row >= shape.q_len) continue;
        const std::size_t row_index = q_head_index * shape.q_len + row;
        const float row_lse = online_softmax::finalize(state[r], acc[r], kValuesPerLane,
                                                       out + row_index * kValueDim + lane * kValuesPerLane);
        if (lane == 0 && lse != nullptr) lse[row_index] = row_lse;
    }
}

}  // namespace

void flash_forward_fp32(const float* q, const float* k, const float* v, float* out, float* lse,
                        const AttentionShape& shape, const KernelOptions& options, cudaStream_t stream) {
    const float scale = checks::shape_and_options(shape, options);
    checks::in_range("head_dim", shape.head_dim, 1, kMaxHeadDim);
    if (shape.value_dim % kWarpSize != 0 || shape.value_dim > kMaxHeadDim) {
        throw Error("value_dim must be one of 32, 64, 96, 128, got " + std::to_string(shape.value_dim));
    }
    checks::not_null("q", q);
    checks::not_null("k", k);
    checks::not_null("v", v);
    checks::not_null("out", out);
    const dim3 grid((shape.q_len + kBlockQ - 1) / kBlockQ, shape.q_heads, shape.batch);
    const dim3 block(kWarps * kWarpSize);
    auto run = [&](auto kernel) {
        launch_kernel("flash_forward_fp32_kernel", kernel, grid, block, 0, stream, q, k, v, out, lse, shape, scale,
                      options.causal, options.mask);
    };
    switch (shape.value_dim / kWarpSize) {
        case 1: run(flash_forward_fp32_kernel<1>); break;
        case 2: run(flash_forward_fp32_kernel<2>); break;
        case 3: run(flash_forward_fp32_kernel<3>); break;
        default: run(flash_forward_fp32_kernel<4>); break;
    }
}

}  // namespace attn::cuda
