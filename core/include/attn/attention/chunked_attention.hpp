#pragma once
// Memory-efficient exact attention by chunking (Rabe & Staats 2021, arXiv:2112.05682, Section 3
// and its Figure 1 implementation):
//
//   for each query chunk (c_q rows):                          -- sequential, output written directly
//     for each key chunk (c_k keys):                          -- "summarize_chunk"
//       s = scale * q k^T (+ mask); m~ = rowmax(s)
//       summary = (m~, sum exp(s - m~), exp(s - m~) v)        -- max-stabilised partial sums
//     merge every summary of the query chunk (online_softmax::merge), divide by the weight sum
//
// All summaries of one query chunk are alive before they are merged, so the intermediate storage
// peaks at c_q * c_k (one chunk of scores) + ceil(S / c_k) * c_q * (Dv + 2) (the summaries). With
// c_k = sqrt(S) and a query chunk of constant size that is O(sqrt(N)), the paper's bound; the
// paper's code uses query_chunk_size = 1024. (Query chunks of sqrt(N) would make the score chunk
// alone sqrt(N) x sqrt(N) = N elements.) Dense attention materialises L x S scores instead.
//
// Heads are processed one after another, so the peak is that of one head. Memory is counted in
// elements of the algorithm's intermediates (scores, per-chunk max, weight sum and weighted value
// sum); inputs and the output are not intermediates. Masks and causality apply through the scores;
// no chunk is skipped (the paper's algorithm has no causal skipping).
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/attention/options.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct ChunkedAttentionOptions : AttentionOptions {
    std::optional<std::size_t> query_chunk;  // >= 1; default 1024 (the paper's query_chunk_size)
    std::optional<std::size_t> key_chunk;    // >= 1; default ceil(sqrt(S)) (the paper's O(sqrt(n)) analysis)
    std::size_t element_bytes = 4;           // bytes per intermediate element: 1, 2, 4 or 8
    bool trace = false;
    std::size_t trace_batch = 0;             // which (batch, head) the trace follows
    std::size_t trace_head = 0;
};

enum class ChunkedStepKind {
    summarize,  // one (query chunk, key chunk): scores computed, the chunk's summary stored
    combine,    // the summaries of a query chunk merged; its output rows written
};

template <class T>
struct ChunkedTraceStep {
    ChunkedStepKind kind;
    std::size_t q_chunk, k_chunk;    // k_chunk is meaningful for summarize steps
    std::size_t row_begin, row_end;  // query rows
    std::size_t col_begin, col_end;  // keys of the chunk (summarize), none for combine
    std::vector<T> m, l;    // per row: the chunk's own max and sum of exp(s - max) (summarize),
                            // or the merged ones (combine)
    std::vector<T> output;  // combine: rows x value_dim output
    std::uint64_t live_elements;  // intermediate elements alive during this step
};

struct ChunkedStats {
    std::uint64_t peak_intermediate_elements = 0;  // largest intermediate storage alive at once
    std::uint64_t peak_intermediate_bytes = 0;     // the same in element_bytes units
    std::uint64_t dense_score_elements = 0;        // L * S: one head's scores, as dense attention holds
    std::uint64_t flops = 0;                       // 2 per multiply-add of q k^T and exp(s) v
};

template <class T>
struct ChunkedAttentionResult {
    Tensor4<T> output;   // [B, Hq, L, Dv]
    std::vector<T> lse;  // [B, Hq, L]; -inf for rows with no allowed key
    ChunkedStats stats;
    std::size_t query_chunk = 0, key_chunk = 0;  // used (clamped to L and S)
    std::size_t num_q_chunks = 0, num_k_chunks = 0;
    std::vector<ChunkedTraceStep<T>> trace;  // empty unless options.trace
};

struct ChunkSizes {
    std::size_t query_chunk, key_chunk;
};

// The chunk sizes chunked_attention uses for L query rows and S keys: the options' or the
// defaults, clamped to L and S. Throws attn::Error if a chunk size is 0.
ChunkSizes chunk_sizes(std::size_t q_len, std::size_t kv_len, const ChunkedAttentionOptions& options);

template <class T>
ChunkedAttentionResult<T> chunked_attention(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                            const ChunkedAttentionOptions& options = {});

}  // namespace attn
