// Paged-attention decode with the keys split across thread blocks (Flash-Decoding): one query
// token per (sequence, query head) attends over a context whose K/V rows live in fixed-size
// blocks of a shared pool, found through the sequence's int32 block table (vLLM's paged_attention
// semantics; core's attn::paged_decode is the reference, its layout the pool's layout).
//
//   grid (splits, kv_heads, sequences), 128 threads. Block (split s, KV head g, sequence b):
//     the group's q_heads / kv_heads query rows, scaled, into shared memory  -- GQA packing: the
//       query heads sharing a KV head share one block and every K/V row it reads
//     for each KV block of split s (tokens [s T, (s + 1) T) capped at context_lens[b]):
//       thread j < block_size: scores of token j for every query head of the group (one K row
//         read) into shared memory; only tokens inside the context
//       thread h < group: core's online_softmax::update turns head h's scores into weights
//         exp(s - m_new) in place and returns the rescale factor exp(m_old - m_new)
//       every thread, for each (head, value column) pair it owns: acc = acc * rescale + P V
//     write the split's (m, l, acc) per (query head, column) to the workspace
//   merge_partial_states (the existing split-K merge) combines the splits into out and lse.
//
// Slots of a partial last block and table entries past the context are never read, so whatever
// they hold (vLLM leaves them uninitialised) cannot reach the output. A split past a short
// sequence's context is empty: it writes m = -inf, l = 0, which the merge ignores.
//
// What it costs, per (sequence, KV head) with context C and head dim d: K and V read once
// (2 C d bytes each at 16 bits) whatever the group size; q, the partial states ((d + 2) floats per
// query head and split) and the merge are small next to that for C >> splits. The number of
// splits trades the merge's extra traffic for filling the GPU (paged_decode_num_splits).
// Scores use block_size of the 128 threads, each reading a whole K row (strided across the warp,
// so these loads are not coalesced: a tuned version would spread each row over the lanes of a
// warp), the softmax one thread per head; P V uses all threads, consecutive threads reading
// consecutive columns of a V row (coalesced). Shared memory: 8 x (d + 33) floats,
// at most 5 KB, static.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>

#include "attention_kernels.hpp"
#include "attn/attention/online_softmax.hpp"
#include "cuda_compat.hpp"
#include "launcher_checks.hpp"

namespace attn::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kMaxGroup = kMaxPagedDecodeGroup;
constexpr int kMaxBlockSize = 32;

// Grid (splits, kv_heads, num_seqs). Writes, for every query head h of the group and this split,
// partial_m/l[(row * splits + split)] and partial_acc[(row * splits + split) * kHeadDim + c] with
// row = seq * q_heads + h.
template <class T, int kHeadDim>
__global__ void paged_decode_split_kernel(const float* q, const T* key_pool, const T* value_pool,
                                          const int* block_tables, const int* context_lens, PagedDecodeShape shape,
                                          int tokens_per_split, float scale, float* partial_m, float* partial_l,
                                          float* partial_acc) {
    constexpr int kPairsPerThread = kMaxGroup * kHeadDim / kThreads;  // (head, column) pairs
    __shared__ float q_tile[kMaxGroup][kHeadDim];             // the group's query rows, scaled
    __shared__ float weight_tile[kMaxGroup][kMaxBlockSize];   // one KV block's scores, then weights
    __shared__ float rescale[kMaxGroup];                      // exp(m_old - m_new) per head

    const int tid = static_cast<int>(threadIdx.x);
    const int split = static_cast<int>(blockIdx.x), kv_head = static_cast<int>(blockIdx.y);
    const int seq = static_cast<int>(blockIdx.z);
    const int group = shape.q_heads / shape.kv_heads, block_size = shape.block_size;
    const std::size_t first_row = static_cast<std::size_t>(seq) * shape.q_heads + static_cast<std::size_t>(kv_head) * group;
    const int context = context_lens[seq];
    const int begin = split * tokens_per_split;  // a multiple of block_size
    const int end = context < begin + tokens_per_split ? context : begin + tokens_per_split;
    const int* table = block_tables + static_cast<std::size_t>(seq) * shape.max_blocks_per_seq;

    for (int idx = tid; idx < group * kHeadDim; idx += kThreads) {
        q_tile[idx / kHeadDim][idx % kHeadDim] = scale * q[first_row * kHeadDim + idx];
    }

    online_softmax::State<float> state;  // of query head `tid` of the group, in threads tid < group
    float acc[kPairsPerThread] = {};      // unnormalised output of this thread's (head, column) pairs
    for (int token0 = begin; token0 < end; token0 += block_size) {
        const int count = end - token0 < block_size ? end - token0 : block_size;  // tokens in the context
        const std::size_t block_base =
            (static_cast<std::size_t>(table[token0 / block_size]) * shape.kv_heads + kv_head) * block_size;
        __syncthreads();  // q_tile written; the previous block's weights consumed
        if (tid < count) {  // scores of token tid for every query head of the group: one K row read
            float dot[kMaxGroup] = {};
            const T* k_row = key_pool + (block_base + tid) * kHeadDim;
            for (int c = 0; c < kHeadDim; ++c) {
                const float k = static_cast<float>(k_row[c]);
                ATTN_UNROLL
                for (int h = 0; h < kMaxGroup; ++h) {
                    if (h < group) dot[h] += q_tile[h][c] * k;
                }
            }
            ATTN_UNROLL
            for (int h = 0; h < kMaxGroup; ++h) {
                if (h < group) weight_tile[h][tid] = dot[h];
            }
        }
        __syncthreads();
        if (tid < group) {  // core's online softmax of head tid: scores -> weights exp(s - m_new) in place
            rescale[tid] = online_softmax::update(state, static_cast<float*>(nullptr), 0, weight_tile[tid],
                                                  static_cast<std::size_t>(count), static_cast<float*>(nullptr), 0,
                                                  weight_tile[tid]);
        }
        __syncthreads();
        const T* v_block = value_pool + block_base * kHeadDim;
        ATTN_UNROLL
        for (int p = 0; p < kPairsPerThread; ++p) {  // acc = acc * exp(m_old - m_new) + P V, one column
            const int pair = tid + p * kThreads, h = pair / kHeadDim, c = pair % kHeadDim;
            if (h < group) {
                float sum = acc[p] * rescale[h];
                for (int j = 0; j < count; ++j) sum += weight_tile[h][j] * static_cast<float>(v_block[j * kHeadDim + c]);
                acc[p] = sum;
            }
        }
    }

    ATTN_UNROLL
    for (int p = 0; p < kPairsPerThread; ++p) {
        const int pair = tid + p * kThreads, h = pair / kHeadDim, c = pair % kHeadDim;
        if (h < group) partial_acc[((first_row + h) * gridDim.x + split) * kHeadDim + c] = acc[p];
    }
    if (tid < group) {
        const std::size_t slot = (first_row + tid) * gridDim.x + split;
        partial_m[slot] = state.m;
        partial_l[slot] = state.l;
    }
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

template <class T>
void paged_decode_any(const float* q, const T* key_pool, const T* value_pool, const int* block_tables,
                      const int* context_lens, const PagedDecodeShape& shape, int max_context_len, int splits,
                      float* workspace, float* out, float* lse, std::optional<float> scale, cudaStream_t stream) {
    checks::in_range("num_seqs", shape.num_seqs, 1, checks::kGridYZMax);
    checks::in_range("kv_heads", shape.kv_heads, 1, checks::kGridYZMax);
    checks::in_range("q_heads", shape.q_heads, shape.kv_heads, static_cast<long long>(shape.kv_heads) * kMaxGroup);
    if (shape.q_heads % shape.kv_heads != 0) {
        throw Error("q_heads must be a multiple of kv_heads, got q_heads = " + std::to_string(shape.q_heads) +
                    " and kv_heads = " + std::to_string(shape.kv_heads));
    }
    checks::head_dim_64_or_128(shape.head_dim);
    if (shape.block_size != 16 && shape.block_size != 32) {
        throw Error("block_size must be 16 or 32, got " + std::to_string(shape.block_size));
    }
    checks::in_range("num_blocks", shape.num_blocks, 1, checks::kIntMax);
    checks::in_range("max_blocks_per_seq", shape.max_blocks_per_seq, 1, checks::kMaxSequenceLength / shape.block_size);
    checks::in_range("max_context_len", max_context_len, 1,
                     static_cast<long long>(shape.max_blocks_per_seq) * shape.block_size);
    checks::in_range("splits", splits, 1, kMaxPagedDecodeSplits);
    checks::in_range("num_seqs * q_heads", static_cast<long long>(shape.num_seqs) * shape.q_heads, 1, checks::kIntMax);
    if (scale && !std::isfinite(*scale)) throw Error("scale must be finite, got " + std::to_string(*scale));
    const std::pair<const char*, const void*> pointers[] = {
        {"q", q},           {"key_pool", key_pool}, {"value_pool", value_pool}, {"block_tables", block_tables},
        {"context_lens", context_lens}, {"workspace", workspace}, {"out", out}, {"lse", lse}};
    for (const auto& [name, pointer] : pointers) checks::not_null(name, pointer);

    const int tokens_per_split =
        static_cast<int>(ceil_div(ceil_div(max_context_len, splits), shape.block_size) * shape.block_size);
    const long long rows = static_cast<long long>(shape.num_seqs) * shape.q_heads;
    float* partial_m = workspace;
    float* partial_l = partial_m + rows * splits;
    float* partial_acc = partial_l + rows * splits;
    const float softmax_scale = scale ? *scale : 1.0f / std::sqrt(static_cast<float>(shape.head_dim));
    const dim3 grid(static_cast<unsigned>(splits), static_cast<unsigned>(shape.kv_heads),
                    static_cast<unsigned>(shape.num_seqs));
    checks::for_head_dim(shape.head_dim, [&](auto dim) {
        launch_kernel("paged_decode_split_kernel", paged_decode_split_kernel<T, decltype(dim)::value>, grid,
                      dim3(kThreads), 0, stream, q, key_pool, value_pool, block_tables, context_lens, shape,
                      tokens_per_split, softmax_scale, partial_m, partial_l, partial_acc);
    });
    merge_partial_states(partial_m, partial_l, partial_acc, static_cast<int>(rows), splits, shape.head_dim, out, lse,
                         stream);
}

}  // namespace

int paged_decode_num_splits(int num_seqs, int kv_heads, int max_context_len, int multiprocessors) {
    checks::in_range("num_seqs", num_seqs, 1, checks::kGridYZMax);
    checks::in_range("kv_heads", kv_heads, 1, checks::kGridYZMax);
    checks::in_range("max_context_len", max_context_len, 1, checks::kMaxSequenceLength);
    checks::in_range("multiprocessors", multiprocessors, 1, 4096);
    const long long blocks = static_cast<long long>(num_seqs) * kv_heads;
    const long long max_splits =
        std::min<long long>(kMaxPagedDecodeSplits, ceil_div(max_context_len, kMinTokensPerSplit));
    // One block per (sequence, KV head) already fills most of a wave: splitting only adds merges.
    if (blocks * 5 >= multiprocessors * 4LL || max_splits == 1) return 1;
    // Wave efficiency of s splits: the blocks' share of the SM slots of the waves they occupy.
    auto efficiency = [&](long long s) {
        const double waves = static_cast<double>(blocks * s) / multiprocessors;
        return waves / std::ceil(waves);
    };
    double best = 0;
    for (long long s = 1; s <= max_splits; ++s) best = std::max(best, efficiency(s));
    for (long long s = 1; s <= max_splits; ++s) {
        if (efficiency(s) >= 0.85 * best) return static_cast<int>(s);  // the fewest splits that nearly fill waves
    }
    return 1;
}

std::size_t paged_decode_workspace_floats(const PagedDecodeShape& shape, int splits) {
    checks::in_range("splits", splits, 1, kMaxPagedDecodeSplits);
    checks::in_range("num_seqs", shape.num_seqs, 1, checks::kGridYZMax);
    checks::in_range("q_heads", shape.q_heads, 1, checks::kGridYZMax * kMaxGroup);
    checks::in_range("head_dim", shape.head_dim, 1, 1024);
    return static_cast<std::size_t>(shape.num_seqs) * shape.q_heads * splits * (shape.head_dim + 2);
}

void paged_decode(const float* q, const __half* key_pool, const __half* value_pool, const int* block_tables,
                  const int* context_lens, const PagedDecodeShape& shape, int max_context_len, int splits,
                  float* workspace, float* out, float* lse, std::optional<float> scale, cudaStream_t stream) {
    paged_decode_any(q, key_pool, value_pool, block_tables, context_lens, shape, max_context_len, splits, workspace,
                     out, lse, scale, stream);
}

void paged_decode(const float* q, const __nv_bfloat16* key_pool, const __nv_bfloat16* value_pool,
                  const int* block_tables, const int* context_lens, const PagedDecodeShape& shape,
                  int max_context_len, int splits, float* workspace, float* out, float* lse,
                  std::optional<float> scale, cudaStream_t stream) {
    paged_decode_any(q, key_pool, value_pool, block_tables, context_lens, shape, max_context_len, splits, workspace,
                     out, lse, scale, stream);
}

}  // namespace attn::cuda
