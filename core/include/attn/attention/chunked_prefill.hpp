#pragma once
// Causal prefill with a start position, and chunked prefill built on it.
//
// M new queries at absolute positions start_pos .. start_pos + M - 1 attend over their causal
// prefix in a KV cache: query i sees keys [0, start_pos + i + 1). That is the bottom-right causal
// alignment over the S = start_pos + M keys written so far -- causal_key_end(i, M, S,
// Causal::bottom_right) -- so the mask is not a mask at all but the loop bound of each row (the
// shape vLLM's prefill kernels run, with start_pos as the per-request metadata). Keys at or past
// start_pos + M are never read, whatever the cache holds there.
//
// Chunked prefill (Sarathi-Serve, Agrawal et al. 2024, arXiv:2403.02310; vLLM's
// enable_chunked_prefill) processes a prompt as chunks of any sizes: chunk c writes its K/V rows
// into the cache and runs prefill_attention with start_pos = tokens before it. Since every query
// reads exactly its prefix, the result equals processing the prompt in one shot (causal
// attention over the whole prompt).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/tensor.hpp"

namespace attn {

struct PrefillOptions {
    std::optional<double> scale;  // any finite number; default 1/sqrt(head_dim)
    std::size_t block_k = 64;     // keys folded into the online softmax per step, in [1, 2^20]
};

template <class T>
struct PrefillResult {
    Tensor4<T> output;        // [B, Hq, M, Dv]
    std::vector<T> lse;       // [B, Hq, M]
    std::uint64_t key_rows_read = 0;  // K rows read over all (batch, head, query): sum of loop bounds
};

// q: [B, Hq, M, D]; key_cache: [B, Hkv, C, D]; value_cache: [B, Hkv, C, Dv] with
// C >= start_pos + M. Only rows [0, start_pos + M) of the cache must be finite. Throws
// attn::Error naming the argument otherwise (shapes, GQA grouping, capacity, scale, block_k).
template <class T>
PrefillResult<T> prefill_attention(const Tensor4<T>& q, const Tensor4<T>& key_cache, const Tensor4<T>& value_cache,
                                   std::size_t start_pos, const PrefillOptions& options = {});

// The prompt q [B, Hq, N, D], k [B, Hkv, N, D], v [B, Hkv, N, Dv] prefilled in chunks of
// chunk_lengths (each >= 1, summing to N). The cache starts filled with NaN so that a read past
// the causal bound would poison the output. Returns the concatenated outputs.
template <class T>
PrefillResult<T> chunked_prefill(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                 const std::vector<std::size_t>& chunk_lengths, const PrefillOptions& options = {});

}  // namespace attn
