// v3 of the kernel ladder: flash forward in the manner of FlashAttention-2's own kernels (Dao
// 2023, arXiv:2307.08691, Algorithm 1 and section 3.3), written out with the PTX instructions
// they compile to. v1 (flash_forward_fp32.cu) is the readable FP32 algorithm, v2
// (flash_forward_tensor_core.cu) moves both products to tensor cores through WMMA; v3 removes
// what WMMA forced on v2: every score, weight and output element now stays in registers.
//
//   one thread block of 4 warps per (batch, head, block of 64 query rows); warp w owns rows
//   16w .. 16w + 15, and lane (g = lane / 4, t = lane % 4) rows g and g + 8 of those:
//     cp.async Q_i, K_0, V_0 -> shared memory (XOR-swizzled rows)
//     for each tile j of 64 keys visible to some row of the block:
//       cp.async K_{j+1}, V_{j+1} into the other buffer         -- overlaps this tile's math
//       wait for tile j's group; __syncthreads
//       (first tile) ldmatrix Q_i -> A fragments, kept in registers for the whole loop
//       S = Q_i K_j^T       ldmatrix K_j, mma.sync m16n8k16, S in C fragments (32 floats a lane)
//       mask; row max over the lane's 16 scores, then over the 4 lanes of the row (shfl_xor 1, 2)
//       P = exp2(S * scale * log2 e - m), with the scale folded into one multiply
//       O *= exp2(m_old - m_new), the lane's partial row sum likewise
//       O += P V            P's C fragments repacked as A fragments (same lanes, same rows),
//                           ldmatrix.trans V_j, mma.sync
//     quad-sum l; O_i = O / l, lse = m + log l (core's finalize)  -- straight from registers
//
// Why it is shaped this way:
//  * mma.sync's fragment layouts are documented (see emulation/ptx_emulation.hpp): lane
//    (g, t) holds S at rows g, g + 8 and key columns 2t, 2t + 1 of each 8-key tile, and the A
//    operand of P V wants exactly those elements of P. So P never leaves the registers, and the
//    row statistics need only the 4 lanes of a quad. v2's S and P V round trips through shared
//    memory (a 64 x 64 FP32 S, a P tile, 64-column slabs of P V) are gone.
//  * ldmatrix gives each lane its fragment of four 8 x 8 tiles in one instruction; .trans turns
//    V_j, stored [keys][d], into the [d][keys]-major B operand on the way.
//  * ldmatrix reads 8 rows of 16 bytes at the same column. Rows are 128 or 256 bytes long, so
//    unswizzled they would all sit in the same 4 banks (8-way conflict). Chunk c of row r is
//    stored at chunk c ^ (r % 8): the 8 rows hit 8 different 16-byte bank groups, conflict-free,
//    without padding (cp.async's 16-byte stores stay aligned).
//  * cp.async copies global -> shared without registers and lets the copy of tile j + 1 run
//    while tile j is multiplied; two buffers per operand, one commit group per tile.
//
// What it costs, per (batch, head) with L queries, S keys and head dim d: FLOPs and HBM traffic
// as v2 (4 L S d on tensor cores, fully masked tiles skipped; Q and O once, K and V once per 64
// query rows). Shared memory: Q 64 d + K, V 2 x 64 d each, 16-bit: 40 KB for d = 64, 80 KB for
// d = 128 (v2: 53 / 77 KB). Per tile and warp it reads K_j and V_j once through ldmatrix
// (16 KB at d = 64, 32 KB at d = 128) and writes nothing; v2 also wrote and read back
// 16 x 64 FP32 scores, 16 x 64 P and 16 x d FP32 P V slabs.
//
// Expected speed (an estimate: no GPU here can measure it). On A100, about 50-65 % of
// FlashAttention-2's forward throughput at d = 64 and 128 (FA2 reaches ~70 % of the 312 TFLOP/s
// dense FP16 peak on long sequences, so v3 ~110-140 TFLOP/s). The reasons, largest first:
//  * Shared-memory bytes per tile. Per warp and tile (16 rows x 64 keys, d = 128) the two
//    products are 2 x 16 x 64 x 128 x 2 = 524,288 FLOPs: 256 clocks at A100's 2,048 dense FP16
//    FLOPs per clock per SM. ldmatrix reads all of K_j and V_j for them, 32 KB: also 256 clocks
//    at 128 B per clock per SM, plus the cp.async writes of the block's tiles (8 KB per warp,
//    64 clocks). Shared memory is as busy as the tensor cores, so they cannot run at peak. FA2
//    gives each warp 32 rows (two m16 tiles; 128-row blocks of 4 warps), so every K/V fragment
//    it loads feeds two mmas: half these bytes per FLOP, and room to spare.
//  * Occupancy (make cuda prints it from ptxas's figures): at d = 128 a thread needs 176
//    registers and a block 80 KB of shared memory, so 2 blocks (8 warps, 12.5 %) per SM on both
//    sm_80 and sm_90, as FA2's 4-warp d = 128 configuration; at d = 64, 133 registers allow 3
//    blocks (12 warps, 19 %; shared memory would allow 4). Few warps means latency is hidden only
//    by the cp.async double buffer and the parallelism within a warp, which the next point limits.
//  * What FA2 (CUTLASS CuTe) does that v3 does not: ldmatrix of the next k16 slice issued under
//    the current mma (software pipelining in registers); K_{j+1} copied while P V runs and V_j
//    while S = Q K^T runs, with separate waits, instead of one group per tile; causal masking
//    only on the diagonal tiles, in a separate loop (here each tile tests a per-lane condition);
//    O written through swizzled shared memory as 16-byte coalesced stores (here 4-byte stores
//    from the C fragments); ex2.approx.ftz directly.
//  * On H100 the reference is FlashAttention-3 (wgmma, TMA, warp specialisation), which
//    mma.sync kernels cannot follow: FA2 reaches about half of FA3's forward rate there, so
//    expect v3 at roughly a quarter to a third of FA3.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "attention_kernels.hpp"
#include "attn/attention/online_softmax.hpp"
#include "cuda_compat.hpp"
#include "key_visibility.hpp"
#include "launcher_checks.hpp"
#include "ptx_primitives.hpp"

namespace attn::cuda {
namespace {

constexpr int kWarpSize = 32;
constexpr int kWarps = 4;
constexpr int kRowsPerWarp = 16;               // one m16 tile of rows per warp
constexpr int kBlockQ = kWarps * kRowsPerWarp;  // Br = 64 query rows
constexpr int kBlockK = 64;                     // Bc = 64 keys per tile
constexpr int kKeyTiles = kBlockK / 8;          // n8 tiles of S per warp
constexpr int kChunk = 8;                       // 16-bit elements per 16-byte chunk
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

// Mutations: each puts back one bug the CPU emulation must catch. Only the mutation test targets
// (tests/cuda_emulated/mutations/) define ATTN_MMA_KERNEL_MUTATION; every other build is kNone.
enum class Mutation {
    kNone,
    kMissingCpAsyncWait,     // no cp.async.wait_group: tiles are read before they land
    kMissingBarrierAfterWait,  // each thread waits for its own copies, no __syncthreads after
    kUnswizzledLdmatrix,     // cp.async stores swizzled rows, ldmatrix reads them unswizzled
};
#if defined(ATTN_MMA_KERNEL_MUTATION)
constexpr Mutation kMutation = Mutation::ATTN_MMA_KERNEL_MUTATION;
#else
constexpr Mutation kMutation = Mutation::kNone;
#endif

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

// Two floats rounded to T, packed as an mma operand register: lower column in the low half.
template <class T>
__device__ std::uint32_t pack2(float low, float high) {
    const T pair[2] = {Element<T>::from_float(low), Element<T>::from_float(high)};
    std::uint32_t bits;
    std::memcpy(&bits, pair, sizeof bits);
    return bits;
}

// Element offset of (row, col) in a [rows][kHeadDim] tile whose 16-byte chunks are XOR-swizzled
// with row % 8 (see the header).
template <int kHeadDim>
__device__ int swizzled(int row, int col) {
    return row * kHeadDim + ((col / kChunk) ^ (row % 8)) * kChunk + col % kChunk;
}

// Where ldmatrix finds (row, col) of a tile: swizzled, unless the kUnswizzledLdmatrix mutation
// forgets that the copies stored it so.
template <int kHeadDim>
__device__ int ldmatrix_offset(int row, int col) {
    return kMutation == Mutation::kUnswizzledLdmatrix ? row * kHeadDim + col : swizzled<kHeadDim>(row, col);
}

// The offset 16 s columns and 16 r rows further on, from a lane's ldmatrix_offset (row, col) with
// col < 16. Rows start at multiples of kHeadDim >= 64 elements, and 16 rows later row % 8 is the
// same, so the row part is an addition; the swizzle XORs chunk indices, so the column part flips
// bits instead: (col / 8 + 2 s) ^ (row % 8) = (col / 8 ^ row % 8) ^ 2 s. Written this way the
// compiler keeps one offset per slice s (the rows are an immediate in the instruction) instead
// of one register per (r, s) pair: at d = 128 that is 176 registers a thread instead of 255.
template <int kHeadDim>
__device__ int step_offset(int offset, int rows16, int slice) {
    static_assert(kHeadDim % 64 == 0);
    return (offset ^ (16 * slice)) + 16 * rows16 * kHeadDim;
}

// Shared memory of one block, all 16-bit: Q_i, then K and V in two buffers each.
template <class T, int kHeadDim>
struct SharedLayout {
    static constexpr int kTileElements = kBlockQ * kHeadDim;  // kBlockQ == kBlockK
    static constexpr std::size_t kBytes = 5 * sizeof(T) * kTileElements;
    static_assert(kBlockQ == kBlockK);
};

// Issues the cp.asyncs of rows [first_row, first_row + 64) of a [rows_in_source][kHeadDim]
// matrix into a swizzled tile; rows past the source are zero-filled, so they add nothing to
// P V (0 * NaN garbage would poison it). Consecutive threads copy consecutive chunks of a row:
// coalesced 16-byte reads.
template <class T, int kHeadDim>
__device__ void copy_tile_async(T* tile, const T* source, int first_row, int rows_in_source) {
    constexpr int kChunksPerRow = kHeadDim / kChunk;
    for (int idx = static_cast<int>(threadIdx.x); idx < kBlockK * kChunksPerRow; idx += static_cast<int>(blockDim.x)) {
        const int r = idx / kChunksPerRow, chunk = idx % kChunksPerRow;
        T* destination = tile + swizzled<kHeadDim>(r, chunk * kChunk);
        const bool inside = first_row + r < rows_in_source;
        const T* from = inside ? source + static_cast<std::size_t>(first_row + r) * kHeadDim + chunk * kChunk : source;
        ptx::cp_async_cg_16(destination, from, inside);
    }
}

// Grid (ceil(q_len / 64), q_heads, batch), block 128 threads, SharedLayout<T, kHeadDim>::kBytes
// of dynamic shared memory. scale_log2 = softmax scale * log2(e).
template <class T, int kHeadDim>
__global__ void __launch_bounds__(kWarps * kWarpSize)
    flash_forward_mma_kernel(const T* q, const T* k, const T* v, T* out, float* lse, AttentionShape shape,
                             float scale_log2, Causal causal, DeviceBoolMask mask) {
    constexpr int kDimSlices = kHeadDim / 16;  // k16 slices of Q K^T, and n16 pairs of O columns
    constexpr int kDimTiles = kHeadDim / 8;    // n8 tiles of O
    constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
    using Layout = SharedLayout<T, kHeadDim>;
    ATTN_DYNAMIC_SHARED_MEMORY(shared, 16);  // ldmatrix and cp.async need 16-byte alignment
    T* q_tile = reinterpret_cast<T*>(shared);
    T* k_tiles = q_tile + Layout::kTileElements;      // buffer b at k_tiles + b * kTileElements
    T* v_tiles = k_tiles + 2 * Layout::kTileElements;

    const int lane = static_cast<int>(threadIdx.x) % kWarpSize, warp = static_cast<int>(threadIdx.x) / kWarpSize;
    const int g = lane / 4, t = lane % 4;  // mma.sync's groupID and threadID_in_group
    const int q0 = static_cast<int>(blockIdx.x) * kBlockQ;
    const int head = static_cast<int>(blockIdx.y), batch = static_cast<int>(blockIdx.z);
    const int kv_head = head / (shape.q_heads / shape.kv_heads);
    const std::size_t q_head_index = static_cast<std::size_t>(batch) * shape.q_heads + head;
    const std::size_t kv_head_index = static_cast<std::size_t>(batch) * shape.kv_heads + kv_head;
    const T* k_head = k + kv_head_index * shape.kv_len * kHeadDim;
    const T* v_head = v + kv_head_index * shape.kv_len * kHeadDim;

    // The lane's two rows (r = 0: g, r = 1: g + 8 of the warp's 16) and their visible keys.
    int rows[2], key_ends[2];
    ATTN_UNROLL
    for (int r = 0; r < 2; ++r) {
        rows[r] = q0 + warp * kRowsPerWarp + g + 8 * r;
        key_ends[r] = rows[r] < shape.q_len ? visible_key_end(rows[r], shape.q_len, shape.kv_len, causal) : 0;
    }
    const int last_row = (q0 + kBlockQ < shape.q_len ? q0 + kBlockQ : shape.q_len) - 1;
    const int tiles = (visible_key_end(last_row, shape.q_len, shape.kv_len, causal) + kBlockK - 1) / kBlockK;

    // Two groups in flight: Q_i, then tile 0. (A block none of whose rows sees a key copies
    // nothing and writes zeros.)
    if (tiles > 0) copy_tile_async<T, kHeadDim>(q_tile, q + q_head_index * shape.q_len * kHeadDim, q0, shape.q_len);
    ptx::cp_async_commit_group();
    if (tiles > 0) {
        copy_tile_async<T, kHeadDim>(k_tiles, k_head, 0, shape.kv_len);
        copy_tile_async<T, kHeadDim>(v_tiles, v_head, 0, shape.kv_len);
    }
    ptx::cp_async_commit_group();

    // Q_i to registers once, while tile 0 is still on its way. Matrices 0..3 of the x4 load are
    // rows 0-7 / 8-15 at columns 0-7, then at 8-15: the A fragment's registers a[0..3]. Lane l
    // addresses row l % 16, column 8 (l / 16).
    std::uint32_t q_frag[kDimSlices][4];  // A fragments of the warp's 16 x d slice of Q_i
    ptx::cp_async_wait_group<1>();
    __syncthreads();
    if (tiles > 0) {
        ATTN_UNROLL
        for (int kk = 0; kk < kDimSlices; ++kk) {
            const int row = warp * kRowsPerWarp + lane % 16, col = lane / 16 * kChunk;
            const int offset = step_offset<kHeadDim>(ldmatrix_offset<kHeadDim>(row, col), 0, kk);
            ptx::ldmatrix_sync_m8n8<4, false>(q_frag[kk], q_tile + offset);
        }
    }

    float o[kDimTiles][4] = {};              // C fragments of O: rows g, g + 8, columns 8n + 2t, +1
    float m[2] = {kMinusInf, kMinusInf};     // running row maxima, in units of scale_log2 * score
    float l[2] = {0.0f, 0.0f};               // this lane's share of the running row sums

    // The lane's ldmatrix row in the first 16 x 16 block of K_j (keys 0-7 / 8-15 by lane / 16,
    // dims 0-7 / 8-15 by lane / 8 % 2: see S below) and of V_j (keys by lane % 16, dims by
    // lane / 16: see P V); every other block is a step_offset away.
    const int k_lane_offset = ldmatrix_offset<kHeadDim>(lane / 16 * 8 + lane % 8, lane / 8 % 2 * kChunk);
    const int v_lane_offset = ldmatrix_offset<kHeadDim>(lane % 16, lane / 16 * kChunk);

    for (int j = 0; j < tiles; ++j) {
        const int k0 = j * kBlockK;
        const T* k_tile = k_tiles + (j % 2) * Layout::kTileElements;
        const T* v_tile = v_tiles + (j % 2) * Layout::kTileElements;
        if (j + 1 < tiles) {  // into the buffer tile j - 1 used, which every warp has finished with
            copy_tile_async<T, kHeadDim>(k_tiles + ((j + 1) % 2) * Layout::kTileElements, k_head, k0 + kBlockK,
                                         shape.kv_len);
            copy_tile_async<T, kHeadDim>(v_tiles + ((j + 1) % 2) * Layout::kTileElements, v_head, k0 + kBlockK,
                                         shape.kv_len);
        }
        ptx::cp_async_commit_group();  // possibly empty, so that "all but the newest" is always tile j
        if constexpr (kMutation != Mutation::kMissingCpAsyncWait) ptx::cp_async_wait_group<1>();
        if constexpr (kMutation != Mutation::kMissingBarrierAfterWait) __syncthreads();  // everyone's copies

        // S = Q_i K_j^T. B(k, n) = K_j[n][k]: an untransposed ldmatrix of K_j's rows gives it. The
        // x4 load covers 16 keys x 16 dims: matrices (keys 0-7, dims 0-7), (0-7, 8-15) are b[0..1]
        // of the first n8 tile, (8-15, 0-7), (8-15, 8-15) those of the second.
        float s[kKeyTiles][4];
        ATTN_UNROLL
        for (int n = 0; n < kKeyTiles; ++n) {
            ATTN_UNROLL
            for (int i = 0; i < 4; ++i) s[n][i] = 0.0f;
        }
        ATTN_UNROLL
        for (int pair = 0; pair < kKeyTiles / 2; ++pair) {
            ATTN_UNROLL
            for (int kk = 0; kk < kDimSlices; ++kk) {
                const int offset = step_offset<kHeadDim>(k_lane_offset, pair, kk);
                std::uint32_t b[4];
                ptx::ldmatrix_sync_m8n8<4, false>(b, k_tile + offset);
                const std::uint32_t b_first[2] = {b[0], b[1]}, b_second[2] = {b[2], b[3]};
                ptx::mma_sync_m16n8k16<T>(s[2 * pair], q_frag[kk], b_first, s[2 * pair]);
                ptx::mma_sync_m16n8k16<T>(s[2 * pair + 1], q_frag[kk], b_second, s[2 * pair + 1]);
            }
        }

        // Scale into the exp2 domain and mask. s[n][i] is row r = i / 2, key k0 + 8n + 2t + i % 2.
        // Only tiles reaching past a row's visible keys, or under a boolean mask, need the test.
        const int row_key_end = key_ends[0] < key_ends[1] ? key_ends[0] : key_ends[1];
        const bool needs_mask = mask.allowed != nullptr || k0 + kBlockK > row_key_end;
        float tile_max[2] = {kMinusInf, kMinusInf};
        ATTN_UNROLL
        for (int n = 0; n < kKeyTiles; ++n) {
            ATTN_UNROLL
            for (int i = 0; i < 4; ++i) {
                const int r = i / 2, key = k0 + 8 * n + 2 * t + i % 2;
                const bool visible =
                    !needs_mask || (key < key_ends[r] && mask_allows(mask, batch, head, rows[r], key));
                s[n][i] = visible ? s[n][i] * scale_log2 : kMinusInf;
                tile_max[r] = s[n][i] > tile_max[r] ? s[n][i] : tile_max[r];
            }
        }
        // The 4 lanes of a quad hold the 64 scores of a row between them: two butterfly steps.
        float alpha[2];
        ATTN_UNROLL
        for (int r = 0; r < 2; ++r) {
            tile_max[r] = fmaxf(tile_max[r], __shfl_xor_sync(0xffffffffu, tile_max[r], 1));
            tile_max[r] = fmaxf(tile_max[r], __shfl_xor_sync(0xffffffffu, tile_max[r], 2));
            const float m_new = fmaxf(m[r], tile_max[r]);
            // A row with no visible key so far keeps m = -inf; subtracting 0 instead keeps its
            // weights exp2(-inf) = 0 rather than exp2(-inf + inf) = NaN.
            const float m_used = m_new == kMinusInf ? 0.0f : m_new;
            alpha[r] = exp2f(m[r] - m_used);  // 0 when nothing was accumulated (m = -inf)
            m[r] = m_new;
            l[r] *= alpha[r];
            ATTN_UNROLL
            for (int n = 0; n < kKeyTiles; ++n) {
                ATTN_UNROLL
                for (int i = 2 * r; i < 2 * r + 2; ++i) {
                    s[n][i] = exp2f(s[n][i] - m_used);
                    l[r] += s[n][i];
                }
            }
        }
        ATTN_UNROLL
        for (int n = 0; n < kDimTiles; ++n) {
            ATTN_UNROLL
            for (int i = 0; i < 4; ++i) o[n][i] *= alpha[i / 2];
        }

        // O += P V. The C fragments of two adjacent n8 tiles of P are, register for register, the
        // A fragment of the k16 slice they form: a[0] = tile 2kk (c0, c1), a[1] = (c2, c3),
        // a[2..3] the same of tile 2kk + 1. B(k, n) = V_j[k][n]: ldmatrix.trans of V_j's rows;
        // matrices (keys 0-7, dims 0-7), (8-15, 0-7) are b[0..1] of the first n8 tile of O,
        // (0-7, 8-15), (8-15, 8-15) those of the second.
        ATTN_UNROLL
        for (int kk = 0; kk < kKeyTiles / 2; ++kk) {
            const std::uint32_t p_frag[4] = {
                pack2<T>(s[2 * kk][0], s[2 * kk][1]), pack2<T>(s[2 * kk][2], s[2 * kk][3]),
                pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]), pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
            ATTN_UNROLL
            for (int pair = 0; pair < kDimSlices; ++pair) {
                const int offset = step_offset<kHeadDim>(v_lane_offset, kk, pair);
                std::uint32_t b[4];
                ptx::ldmatrix_sync_m8n8<4, true>(b, v_tile + offset);
                const std::uint32_t b_first[2] = {b[0], b[1]}, b_second[2] = {b[2], b[3]};
                ptx::mma_sync_m16n8k16<T>(o[2 * pair], p_frag, b_first, o[2 * pair]);
                ptx::mma_sync_m16n8k16<T>(o[2 * pair + 1], p_frag, b_second, o[2 * pair + 1]);
            }
        }
        __syncthreads();  // every warp is done with buffer j % 2 before tile j + 2 is copied into it
    }

    // The row sums are still spread over the quad; core's finalize then gives O / l, or zeros
    // for a row that saw no key, and lse = m + log l (m converted back to natural-log units).
    ATTN_UNROLL
    for (int r = 0; r < 2; ++r) {
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
        if (rows[r] >= shape.q_len) continue;
        const online_softmax::State<float> state{m[r] * kLn2, l[r]};
        const std::size_t row_index = q_head_index * shape.q_len + rows[r];
        T* out_row = out + row_index * kHeadDim;
        float row_lse = 0.0f;
        ATTN_UNROLL
        for (int n = 0; n < kDimTiles; ++n) {
            float normalised[2];
            row_lse = online_softmax::finalize(state, &o[n][2 * r], 2, normalised);
            // One 4-byte store of two adjacent columns (out is 16-byte aligned, 8n + 2t even).
            *reinterpret_cast<std::uint32_t*>(out_row + 8 * n + 2 * t) = pack2<T>(normalised[0], normalised[1]);
        }
        if (t == 0 && lse != nullptr) lse[row_index] = row_lse;
    }
}

template <class T, int kHeadDim>
void launch_for_head_dim(const T* q, const T* k, const T* v, T* out, float* lse, const AttentionShape& shape,
                         float scale, const KernelOptions& options, cudaStream_t stream) {
    auto* kernel = flash_forward_mma_kernel<T, kHeadDim>;
    constexpr std::size_t bytes = SharedLayout<T, kHeadDim>::kBytes;
    checks::reserve_dynamic_shared_memory<flash_forward_mma_kernel<T, kHeadDim>>("flash_forward_mma", bytes);
    const dim3 grid((shape.q_len + kBlockQ - 1) / kBlockQ, shape.q_heads, shape.batch);
    launch_kernel("flash_forward_mma_kernel", kernel, grid, dim3(kWarps * kWarpSize), bytes, stream, q, k, v, out, lse,
                  shape, scale * kLog2e, options.causal, options.mask);
}

template <class T>
void flash_forward_mma_any(const T* q, const T* k, const T* v, T* out, float* lse, const AttentionShape& shape,
                           const KernelOptions& options, cudaStream_t stream) {
    const float scale = checks::shape_and_options(shape, options);
    checks::sixteen_bit_flash_arguments(shape, q, k, v, out);
    checks::for_head_dim(shape.head_dim, [&](auto dim) {
        launch_for_head_dim<T, decltype(dim)::value>(q, k, v, out, lse, shape, scale, options, stream);
    });
}

}  // namespace

void flash_forward_mma(const __half* q, const __half* k, const __half* v, __half* out, float* lse,
                       const AttentionShape& shape, const KernelOptions& options, cudaStream_t stream) {
    flash_forward_mma_any(q, k, v, out, lse, shape, options, stream);
}

void flash_forward_mma(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* out,
                       float* lse, const AttentionShape& shape, const KernelOptions& options, cudaStream_t stream) {
    flash_forward_mma_any(q, k, v, out, lse, shape, options, stream);
}

}  // namespace attn::cuda
