#pragma once
// Paged-attention decode (Kwon et al. 2023, "Efficient Memory Management for Large Language Model
// Serving with PagedAttention", arXiv:2309.06180, Sec. 4.1 and eq. 4; the semantics of vLLM's
// paged_attention_v1 kernel): one query token per (sequence, head) attends over a context whose
// K/V rows live in fixed-size physical blocks of a shared pool, found through the sequence's
// block table. Logical token t sits in physical block block_table[t / block_size], slot
// t % block_size. The kernel walks the table block by block and folds each block's scores into
// an online-softmax state (online_softmax::update), so the gathered sequence is never
// materialised; the last block is read only up to context_len (a partial block), and a block
// whose every key is masked leaves the state empty (m = -inf) without producing NaN.
//
// The physical pool is two tensors in the core's 4-D layout:
//   key_pool   [num_blocks, kv_heads, block_size, head_dim]
//   value_pool [num_blocks, kv_heads, block_size, value_dim]
// Queries are [num_seqs, q_heads, 1, head_dim]; query head h reads KV head h / (Hq / Hkv) (GQA).
// This file only reads a pool: allocating and sharing blocks is the KV-cache allocator's job.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/host_device.hpp"
#include "attn/tensor.hpp"

namespace attn {

// Where logical token `token` of a sequence lives in the pool.
struct PagedSlot {
    std::size_t block;   // physical block id
    std::size_t offset;  // row inside the block
};

ATTN_HD inline PagedSlot paged_slot(const std::size_t* block_table, std::size_t block_size, std::size_t token) {
    return {block_table[token / block_size], token % block_size};
}

struct PagedSequence {
    std::vector<std::size_t> block_table;  // logical block -> physical block id (< num_blocks)
    std::size_t context_len = 0;           // tokens in the cache, >= 1; the table covers them
    // Optional: one entry per token, nonzero = may attend (e.g. a sliding window masks leading
    // keys); empty = every token visible.
    std::vector<std::uint8_t> key_allowed;
};

struct PagedDecodeOptions {
    std::optional<double> scale;  // any finite number; default 1/sqrt(head_dim)
    bool trace = false;           // record the block walk of one (sequence, head)
    std::size_t trace_seq = 0;
    std::size_t trace_head = 0;
};

// One block of the traced walk.
template <class T>
struct PagedTraceStep {
    std::size_t logical_block, physical_block;
    std::size_t token_begin, token_end;  // logical tokens read from this block
    std::vector<T> scores;               // masked = -inf
    T m, l, rescale;                     // state after the block; exp(m_old - m_new) applied
    std::vector<T> acc;                  // unnormalised accumulator after the block
};

template <class T>
struct PagedDecodeResult {
    Tensor4<T> output;                     // [num_seqs, Hq, 1, Dv]
    std::vector<T> lse;                    // [num_seqs, Hq]; -inf when every key is masked
    std::vector<PagedTraceStep<T>> trace;  // empty unless options.trace
};

// Throws attn::Error naming the argument for: shapes (q seq != 1, head_dim mismatch, Hkv not
// dividing Hq, pools of different block counts/sizes), a sequence count that differs from q's
// batch, context_len 0, a table too short for context_len, block ids >= num_blocks, a
// key_allowed of the wrong length, a non-finite q, scale or K/V row the walk reads.
template <class T>
PagedDecodeResult<T> paged_decode(const Tensor4<T>& q, const Tensor4<T>& key_pool, const Tensor4<T>& value_pool,
                                  const std::vector<PagedSequence>& sequences, const PagedDecodeOptions& options = {});

// The dense K and V of one sequence, [1, Hkv, context_len, dim], gathered through its block
// table: what paged_decode is equal to dense attention over. Same checks.
template <class T>
std::pair<Tensor4<T>, Tensor4<T>> gather_paged_kv(const Tensor4<T>& key_pool, const Tensor4<T>& value_pool,
                                                  const PagedSequence& sequence);

}  // namespace attn
