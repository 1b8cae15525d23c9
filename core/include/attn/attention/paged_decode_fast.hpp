#pragma once
// Paged-attention decode built for speed on a CPU, in FP32: paged_decode's algorithm (one query
// token per sequence and head, the context walked block by block through the block table, an
// online-softmax state per query head) organised the way decode wants it. Decode reads every
// cached K/V row once per step and does two multiply-adds per element read per query head, so it
// is bound by memory bandwidth; what matters is reading each row once:
//
//  * GQA packing: a task carries the states of all the query heads that share a KV head (vLLM's
//    and FlashInfer's GQA kernels do the same on a GPU). Each K and V row comes from memory once
//    and is reused from registers and L1 by the group's heads, instead of once per query head as
//    paged_decode's per-head walk reads them. With blocks shorter than a 64-key chunk (a paged
//    cache) a task walks every KV head inside each chunk: a block's rows of all heads lie together
//    in the pool, so it is read in long runs rather than one 16-row piece per head at a time.
//  * Few instructions per byte: scores for several heads and keys at once in vector accumulators
//    over head_dim, reduced by one shuffle tree per register of results (no horizontal sum per dot
//    product); one online-softmax step per chunk of 64 keys (one rescale, a vectorised exp2 of
//    log2-scaled scores); the P V update with the group's accumulators held in registers while
//    the chunk's value rows pass. The next chunk's rows are prefetched: blocks are scattered.
//  * Split-KV (Flash-Decoding): long contexts are cut into partitions (about 64 tasks per call,
//    at least 4,096 (token, KV head) steps each) whose (m, l, acc) states online_softmax::merge
//    combines, so a batch of one sequence with few KV heads still keeps every thread busy. The
//    cut depends on the problem only: every thread count gives the same bits.
//  * Parallel over tasks on the process's workers (attn/worker_pool.hpp; a shared counter:
//    sequences differ in length).
//
// Supported: GQA/MQA, head_dim != value_dim, partial last blocks, key_allowed masks (a fully
// masked prefix leaves the state empty; a row that sees no key gives zeros and lse = -inf).
// Not supported: the trace (use paged_decode).
#include <cstddef>
#include <optional>
#include <vector>

#include "attn/attention/paged_decode.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct FastPagedDecodeOptions {
    std::optional<double> scale;  // any finite number; default 1/sqrt(head_dim)
    // Worker threads, in [0, 1024]; 0 = std::thread::hardware_concurrency().
    std::size_t num_threads = 0;
};

struct FastPagedDecodeResult {
    Tensor4<float> output;   // [num_seqs, Hq, 1, Dv]
    std::vector<float> lse;  // [num_seqs, Hq], natural log; -inf when every key is masked
};

// Throws attn::Error for everything paged_decode rejects except non-finite K/V rows, which it
// finds during the walk instead (reading the cache once): a non-finite score or output is
// reported as a non-finite key_pool/value_pool row of that sequence. num_threads > 1024 throws.
FastPagedDecodeResult paged_decode_fast(const Tensor4<float>& q, const Tensor4<float>& key_pool,
                                        const Tensor4<float>& value_pool, const std::vector<PagedSequence>& sequences,
                                        const FastPagedDecodeOptions& options = {});

}  // namespace attn
