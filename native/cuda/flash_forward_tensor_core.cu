// Tiled flash forward on tensor cores: FP16 or BF16 Q, K, V and O; FP32 scores, softmax
// statistics and accumulation; both matrix products on the tensor cores through WMMA
// (FlashAttention-2, Dao 2023, arXiv:2307.08691, Algorithm 1, with the FP16 in / FP32 out
// arithmetic of its kernels).
//
//   one thread block of 4 warps per (batch, head, block of 64 query rows); warp w owns rows
//   16w .. 16w + 15 of the block:
//     load Q_i into shared memory                               -- read from HBM once
//     for each tile of 64 keys visible to some row of the block:
//       load K_j, V_j into shared memory                        -- 16-byte vector loads
//       S = Q_i K_j^T          WMMA 16x16x16, FP32 accumulators  -> shared memory
//       scale, mask; (m, l) and P = exp(S - m_new) by core's online_softmax::update, FP32
//       O *= exp(m_old - m_new)   (the factor update returns)    -- registers
//       O += P V               P rounded to FP16/BF16, WMMA, FP32 accumulators
//     O_i = O / l, lse = m + log l  (core's finalize)           -- written to HBM once
//
// Division of work inside a warp: lane 2r (r = 0..15) runs the online softmax of row r; lanes
// 2r and 2r + 1 each keep half of that row's output accumulator in registers (columns
// 16n + 8h .. 16n + 8h + 7 for every 16-column slice n, h = lane % 2), and receive the rescale
// factor with __shfl_sync. WMMA accumulator fragments have an unspecified element layout, so the
// product tiles pass through shared memory on their way to those registers (S before the softmax,
// each 64-column slab of P V after it). FlashAttention-2 itself uses mma.sync, whose documented
// register layout lets S, P and O stay in registers; that saves the shared-memory round trips
// (not HBM traffic) at the price of a much longer kernel.
//
// What it costs, per (batch, head) with L queries, S keys and head dim d:
//   FLOPs: 4 L S d on tensor cores (tiles entirely hidden by the causal mask are skipped: about
//     half for L = S), plus ~L S exps and rescales on the FP32 units.
//   HBM: Q and O once (2 L d bytes each), K and V once per query block (2 S d ceil(L / 64)
//     bytes each), lse 4 L bytes. No L x S matrix is ever written.
//   Shared memory: 77 KB per block for d = 128, 53 KB for d = 64 (dynamic, above the 48 KB
//     default, so the launcher opts the kernel in, after checking the device's maximum), leaving
//     room for two blocks per SM on sm_80 (163 KB per block, 164 KB per SM) and sm_90 (227 KB).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "attention_kernels.hpp"
#include "attn/attention/online_softmax.hpp"
#include "cuda_compat.hpp"
#include "key_visibility.hpp"
#include "launcher_checks.hpp"

namespace attn::cuda {
namespace {

namespace wmma = nvcuda::wmma;

constexpr int kWarpSize = 32;
constexpr int kWarps = 4;
constexpr int kMma = 16;                     // the WMMA tile: 16 x 16 x 16
constexpr int kBlockQ = kWarps * kMma;       // Br = 64 query rows, 16 per warp
constexpr int kBlockK = 64;                  // Bc = 64 keys per tile
constexpr int kElementsPer16Bytes = 8;       // 16-bit elements per vector load

// Mutations: each puts back one bug the CPU emulation must catch. Only the mutation test targets
// (tests/cuda_emulated/mutations/) define ATTN_KERNEL_MUTATION; every other build is kNone.
enum class Mutation {
    kNone,
    kMissingSyncwarp,      // no __syncwarp between writing P and the warp's WMMA loads of it
    kUnalignedLdm,         // P's leading dimension 64 + 4 halves: not a multiple of 16 bytes
    kNoSharedMemoryOptIn,  // no cudaFuncSetAttribute: more than 48 KB without opting in
    kSharedBase16,         // dynamic shared memory declared 16-byte aligned; WMMA needs 32
};
#if defined(ATTN_KERNEL_MUTATION)
constexpr Mutation kMutation = Mutation::ATTN_KERNEL_MUTATION;
#else
constexpr Mutation kMutation = Mutation::kNone;
#endif
// WMMA loads and stores need 32-byte aligned tiles, and every tile starts at a multiple of 32
// bytes from the base (SharedLayout), so the base must be 32-byte aligned.
constexpr int kSharedAlignment = kMutation == Mutation::kSharedBase16 ? 16 : 32;

template <class T>
struct Element;
template <>
struct Element<__half> {
    __device__ static __half from_float(float x) { return __float2half_rn(x); }
};
template <>
struct Element<__nv_bfloat16> {
    __device__ static __nv_bfloat16 from_float(float x) { return __float2bfloat16_rn(x); }
};

// Shared memory of one block. Row strides are padded by 16 bytes so the 16 rows a WMMA load
// touches start in different banks; every tile starts 32-byte aligned, as WMMA requires.
template <class T, int kHeadDim>
struct SharedLayout {
    static constexpr int kLdQkv = kHeadDim + 8;  // Q_i, K_j, V_j: [rows][kLdQkv] of T
    static constexpr int kLdS = kBlockK + 4;     // S (and the P V slabs): [kBlockQ][kLdS] of float
    static constexpr int kLdP = kBlockK + (kMutation == Mutation::kUnalignedLdm ? 4 : 8);  // P: [kBlockQ][kLdP] of T
    static constexpr std::size_t kQ = 0;
    static constexpr std::size_t kK = kQ + sizeof(T) * kBlockQ * kLdQkv;
    static constexpr std::size_t kV = kK + sizeof(T) * kBlockK * kLdQkv;
    static constexpr std::size_t kS = kV + sizeof(T) * kBlockK * kLdQkv;
    static constexpr std::size_t kP = kS + sizeof(float) * kBlockQ * kLdS;
    static constexpr std::size_t kBytes = kP + sizeof(T) * kBlockQ * kLdP;
    static_assert(kK % 32 == 0 && kV % 32 == 0 && kS % 32 == 0 && kP % 32 == 0);
};

// rows x kHeadDim elements from global memory (row-major, `rows_in_source` rows exist) into a
// shared tile with stride ld; rows past the source are zero, so they add nothing to P V
// (0 * NaN garbage would poison it).
template <class T, int kHeadDim>
__device__ void load_tile(T* tile, int ld, const T* source, int first_row, int rows, int rows_in_source) {
    constexpr int kVectorsPerRow = kHeadDim / kElementsPer16Bytes;
    for (int idx = static_cast<int>(threadIdx.x); idx < rows * kVectorsPerRow; idx += static_cast<int>(blockDim.x)) {
        const int r = idx / kVectorsPerRow, c = idx % kVectorsPerRow * kElementsPer16Bytes;
        T* destination = tile + r * ld + c;
        if (first_row + r < rows_in_source) {
            copy_16_bytes(destination, source + static_cast<std::size_t>(first_row + r) * kHeadDim + c);
        } else {
            const uint4 zero{0, 0, 0, 0};
            copy_16_bytes(destination, &zero);
        }
    }
}

// Grid (ceil(q_len / 64), q_heads, batch), block 128 threads, SharedLayout<T, kHeadDim>::kBytes
// of dynamic shared memory.
template <class T, int kHeadDim>
__global__ void flash_forward_tensor_core_kernel(const T* q, const T* k, const T* v, T* out, float* lse,
                                                 AttentionShape shape, float scale, Causal causal,
                                                 DeviceBoolMask mask) {
    using Layout = SharedLayout<T, kHeadDim>;
    constexpr int kSlices = kHeadDim / kMma;  // 16-column slices of a Q, K, V or O row
    ATTN_DYNAMIC_SHARED_MEMORY(shared, kSharedAlignment);
    T* q_tile = reinterpret_cast<T*>(shared + Layout::kQ);
    T* k_tile = reinterpret_cast<T*>(shared + Layout::kK);
    T* v_tile = reinterpret_cast<T*>(shared + Layout::kV);
    float* s_tile = reinterpret_cast<float*>(shared + Layout::kS);
    T* p_tile = reinterpret_cast<T*>(shared + Layout::kP);

    const int lane = static_cast<int>(threadIdx.x) % kWarpSize, warp = static_cast<int>(threadIdx.x) / kWarpSize;
    const int r = lane / 2, half = lane % 2;  // the row of the warp this lane serves, and which half
    const int q0 = static_cast<int>(blockIdx.x) * kBlockQ;
    const int head = static_cast<int>(blockIdx.y), batch = static_cast<int>(blockIdx.z);
    const int kv_head = head / (shape.q_heads / shape.kv_heads);
    const int local_row = warp * kMma + r, row = q0 + local_row;
    const std::size_t q_head_index = static_cast<std::size_t>(batch) * shape.q_heads + head;
    const std::size_t kv_head_index = static_cast<std::size_t>(batch) * shape.kv_heads + kv_head;
    const T* k_head = k + kv_head_index * shape.kv_len * kHeadDim;
    const T* v_head = v + kv_head_index * shape.kv_len * kHeadDim;

    load_tile<T, kHeadDim>(q_tile, Layout::kLdQkv, q + q_head_index * shape.q_len * kHeadDim, q0, kBlockQ,
                           shape.q_len);

    online_softmax::State<float> state;  // meaningful in lane 2r, which runs row r's softmax
    float o[kSlices][kElementsPer16Bytes] = {};
    const int row_key_end = row < shape.q_len ? visible_key_end(row, shape.q_len, shape.kv_len, causal) : 0;
    const int last_row = (q0 + kBlockQ < shape.q_len ? q0 + kBlockQ : shape.q_len) - 1;
    const int block_key_end = visible_key_end(last_row, shape.q_len, shape.kv_len, causal);

    float* s_warp = s_tile + warp * kMma * Layout::kLdS;  // this warp's 16 rows of S
    T* p_warp = p_tile + warp * kMma * Layout::kLdP;
    const T* q_warp = q_tile + warp * kMma * Layout::kLdQkv;

    for (int k0 = 0; k0 < block_key_end; k0 += kBlockK) {
        __syncthreads();  // all warps are done with the previous K_j, V_j (and Q_i is in place)
        load_tile<T, kHeadDim>(k_tile, Layout::kLdQkv, k_head, k0, kBlockK, shape.kv_len);
        load_tile<T, kHeadDim>(v_tile, Layout::kLdQkv, v_head, k0, kBlockK, shape.kv_len);
        __syncthreads();

        // S = Q_i K_j^T for the warp's 16 rows. K_j is [keys][d] row-major, which is K_j^T
        // [d][keys] column-major: exactly WMMA's col_major matrix_b.
        ATTN_UNROLL
        for (int n = 0; n < kBlockK / kMma; ++n) {
            wmma::fragment<wmma::accumulator, kMma, kMma, kMma, float> s_frag;
            wmma::fill_fragment(s_frag, 0.0f);
            ATTN_UNROLL
            for (int kk = 0; kk < kSlices; ++kk) {
                wmma::fragment<wmma::matrix_a, kMma, kMma, kMma, T, wmma::row_major> q_frag;
                wmma::fragment<wmma::matrix_b, kMma, kMma, kMma, T, wmma::col_major> k_frag;
                wmma::load_matrix_sync(q_frag, q_warp + kk * kMma, Layout::kLdQkv);
                wmma::load_matrix_sync(k_frag, k_tile + n * kMma * Layout::kLdQkv + kk * kMma, Layout::kLdQkv);
                wmma::mma_sync(s_frag, q_frag, k_frag, s_frag);
            }
            wmma::store_matrix_sync(s_warp + n * kMma, s_frag, Layout::kLdS, wmma::mem_row_major);
        }
        __syncwarp();  // S rows stored by all lanes before lane 2r reads row r

        // Online softmax of row r (lane 2r): scale and mask in FP32, then core's update turns the
        // scores into weights exp(s - m_new) in place and returns exp(m_old - m_new).
        float alpha = 0.0f;
        if (half == 0) {
            float* s_row = s_warp + r * Layout::kLdS;
            for (int j = 0; j < kBlockK; ++j) {
                const int key = k0 + j;
                const bool visible = key < row_key_end && mask_allows(mask, batch, head, row, key);
                s_row[j] = visible ? scale * s_row[j] : -std::numeric_limits<float>::infinity();
            }
            alpha = online_softmax::update(state, static_cast<float*>(nullptr), 0, s_row, kBlockK, s_row, 0, s_row);
            T* p_row = p_warp + r * Layout::kLdP;
            for (int j = 0; j < kBlockK; ++j) p_row[j] = Element<T>::from_float(s_row[j]);
        }
        alpha = __shfl_sync(0xffffffffu, alpha, lane & ~1);
        ATTN_UNROLL
        for (int n = 0; n < kSlices; ++n) {
            ATTN_UNROLL
            for (int i = 0; i < kElementsPer16Bytes; ++i) o[n][i] *= alpha;
        }
        if constexpr (kMutation != Mutation::kMissingSyncwarp) {
            __syncwarp();  // P written, S consumed: the warp's S rows become scratch for P V
        }

        // O += P V, 64 output columns (4 slices) per round: WMMA into the scratch, then each
        // lane adds its 8 columns of each slice to its registers.
        constexpr int kSlicesPerRound = kBlockK / kMma;
        ATTN_UNROLL
        for (int round = 0; round < kSlices / kSlicesPerRound; ++round) {
            ATTN_UNROLL
            for (int c = 0; c < kSlicesPerRound; ++c) {
                const int n = round * kSlicesPerRound + c;
                wmma::fragment<wmma::accumulator, kMma, kMma, kMma, float> pv_frag;
                wmma::fill_fragment(pv_frag, 0.0f);
                ATTN_UNROLL
                for (int kk = 0; kk < kBlockK / kMma; ++kk) {
                    wmma::fragment<wmma::matrix_a, kMma, kMma, kMma, T, wmma::row_major> p_frag;
                    wmma::fragment<wmma::matrix_b, kMma, kMma, kMma, T, wmma::row_major> v_frag;
                    wmma::load_matrix_sync(p_frag, p_warp + kk * kMma, Layout::kLdP);
                    wmma::load_matrix_sync(v_frag, v_tile + kk * kMma * Layout::kLdQkv + n * kMma, Layout::kLdQkv);
                    wmma::mma_sync(pv_frag, p_frag, v_frag, pv_frag);
                }
                wmma::store_matrix_sync(s_warp + c * kMma, pv_frag, Layout::kLdS, wmma::mem_row_major);
            }
            __syncwarp();
            ATTN_UNROLL
            for (int c = 0; c < kSlicesPerRound; ++c) {
                const float* slab = s_warp + r * Layout::kLdS + c * kMma + half * kElementsPer16Bytes;
                ATTN_UNROLL
                for (int i = 0; i < kElementsPer16Bytes; ++i) o[round * kSlicesPerRound + c][i] += slab[i];
            }
            __syncwarp();  // the scratch is read before the next round (or tile) overwrites it
        }
    }

    // Both lanes of a row need (m, l) to normalise their half: core's finalize gives O / l, or
    // zeros for a row that saw no key, and the row's lse (-inf then).
    state.m = __shfl_sync(0xffffffffu, state.m, lane & ~1);
    state.l = __shfl_sync(0xffffffffu, state.l, lane & ~1);
    if (row >= shape.q_len) return;
    const std::size_t row_index = q_head_index * shape.q_len + row;
    T* out_row = out + row_index * kHeadDim;
    float row_lse = 0.0f;
    ATTN_UNROLL
    for (int n = 0; n < kSlices; ++n) {
        float normalised[kElementsPer16Bytes];
        row_lse = online_softmax::finalize(state, o[n], kElementsPer16Bytes, normalised);
        ATTN_UNROLL
        for (int i = 0; i < kElementsPer16Bytes; ++i) {
            out_row[n * kMma + half * kElementsPer16Bytes + i] = Element<T>::from_float(normalised[i]);
        }
    }
    if (half == 0 && lse != nullptr) lse[row_index] = row_lse;
}

template <class T, int kHeadDim>
void launch_for_head_dim(const T* q, const T* k, const T* v, T* out, float* lse, const AttentionShape& shape,
                         float scale, const KernelOptions& options, cudaStream_t stream) {
    auto* kernel = flash_forward_tensor_core_kernel<T, kHeadDim>;
    constexpr std::size_t bytes = SharedLayout<T, kHeadDim>::kBytes;
    if constexpr (kMutation == Mutation::kNoSharedMemoryOptIn) {
        checks::shared_memory_fits("flash_forward_tensor_core", bytes);
    } else {
        checks::reserve_dynamic_shared_memory<flash_forward_tensor_core_kernel<T, kHeadDim>>("flash_forward_tensor_core",
                                                                                              bytes);
    }
    const dim3 grid((shape.q_len + kBlockQ - 1) / kBlockQ, shape.q_heads, shape.batch);
    launch_kernel("flash_forward_tensor_core_kernel", kernel, grid, dim3(kWarps * kWarpSize), bytes, stream, q, k, v,
                  out, lse, shape, scale, options.causal, options.mask);
}

template <class T>
void flash_forward_tensor_core_any(const T* q, const T* k, const T* v, T* out, float* lse, const AttentionShape& shape,
                                   const KernelOptions& options, cudaStream_t stream) {
    const float scale = checks::shape_and_options(shape, options);
    checks::sixteen_bit_flash_arguments(shape, q, k, v, out);
    checks::for_head_dim(shape.head_dim, [&](auto dim) {
        launch_for_head_dim<T, decltype(dim)::value>(q, k, v, out, lse, shape, scale, options, stream);
    });
}

}  // namespace

void flash_forward_tensor_core(const __half* q, const __half* k, const __half* v, __half* out, float* lse,
                               const AttentionShape& shape, const KernelOptions& options, cudaStream_t stream) {
    flash_forward_tensor_core_any(q, k, v, out, lse, shape, options, stream);
}

void flash_forward_tensor_core(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                               __nv_bfloat16* out, float* lse, const AttentionShape& shape,
                               const KernelOptions& options, cudaStream_t stream) {
    flash_forward_tensor_core_any(q, k, v, out, lse, shape, options, stream);
}

}  // namespace attn::cuda
