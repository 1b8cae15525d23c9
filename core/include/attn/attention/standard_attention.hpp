#pragma once
// Standard attention as a GPU runs it: FlashAttention paper (Dao et al. 2022, arXiv:2205.14135),
// Algorithm 0, with the HBM traffic of every pass counted.
//
//   pass 1: load Q and K by blocks, compute S = scale * Q K^T (+ mask), write S to HBM
//   pass 2: read S from HBM, compute P = softmax(S), write P to HBM
//   pass 3: load P and V by blocks, compute O = P V, write O to HBM
//
// Each pass is one kernel, so the L x S matrices S and P make a round trip through HBM. This is
// the Theta(N d + N^2) traffic of the paper's Theorem 2 that FlashAttention avoids.
//
// The blocking: pass 1 loads Q_i (Br rows) once and every K_j (Bc rows) for it, so K is read
// ceil(L / Br) times; pass 3 likewise reads V ceil(L / Br) times. Pass 2 normalises Br rows at a
// time and holds whole rows on chip (a row must be seen entirely before it can be normalised --
// the dependency FlashAttention's online softmax removes). Causal and explicit masks are applied
// in pass 1 (masked scores stored as -inf): the full S is computed and stored, as PyTorch's math
// backend does. Fully masked rows give zero outputs and lse = -inf (sdpa.hpp's convention).
//
// Traffic model: Q, K, V, S, P, O cost `element_bytes` per element (S and P are tensors of the
// input dtype); on-chip accumulators are fp32. The log-sum-exp is returned for comparison with
// the flash algorithms but not counted as written: Algorithm 0 keeps P, not the lse. FLOPs are
// 2 per multiply-add of Q K^T and P V; the softmax's exponentials are not counted.
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/attention/io_trace.hpp"
#include "attn/attention/options.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct StandardAttentionOptions : AttentionOptions {
    std::size_t block_q = 64;        // Br, rows of Q, S, P, O per block: [1, 4096]
    std::size_t block_k = 64;        // Bc, rows of K, V (columns of S, P) per block: [1, 4096]
    // M in ELEMENTS; when set, block_q and block_k are derived as in sram_blocks.hpp.
    std::optional<std::size_t> sram_elements;
    std::size_t element_bytes = 4;   // 1, 2, 4 or 8
    bool trace = false;
    std::size_t trace_batch = 0;     // which (batch, head) the trace follows
    std::size_t trace_head = 0;
};

enum class StandardStepKind {
    load_q,        // pass 1: Q_i read
    score_tile,    // pass 1: K_j read, S_ij computed and written to HBM
    softmax_rows,  // pass 2: rows of S read, P = softmax(S) written to HBM
    pv_tile,       // pass 3: P_ij and V_j read, O_i += P_ij V_j on chip
    write_o,       // pass 3: O_i written to HBM
};

template <class T>
struct StandardTraceStep {
    StandardStepKind kind;
    std::size_t q_block, k_block;
    std::size_t row_begin, row_end;  // query rows of the step
    std::size_t col_begin, col_end;  // key columns: the tile's for score_tile and pv_tile, [0, S) for softmax_rows
    std::vector<T> scores;  // score_tile: S_ij; softmax_rows: the rows of S read. Row-major, masked = -inf
    std::vector<T> probs;   // softmax_rows: the rows of P written; pv_tile: the P_ij read
    std::vector<T> m, l;    // softmax_rows: per row max score and sum of exp(score - max)
    std::vector<T> output;  // pv_tile and write_o: rows x value_dim, O_i accumulated so far
    std::uint64_t hbm_bytes_read;     // cumulative for the traced head, including this step
    std::uint64_t hbm_bytes_written;  // cumulative for the traced head
    std::uint64_t hbm_bytes_stored;   // bytes of S and P resident in HBM after this step (traced head)
    std::uint64_t sram_bytes_held;    // on-chip bytes live during this step
    std::uint64_t flops;              // cumulative, 2 per multiply-add
    std::vector<HbmTransfer> transfers;  // the HBM reads and writes of this step, in order
};

struct StandardStats {
    std::uint64_t hbm_bytes_read = 0;     // whole launch, all batches and heads
    std::uint64_t hbm_bytes_written = 0;
    std::uint64_t flops = 0;              // 2 per multiply-add in Q K^T and P V
    std::uint64_t peak_sram_bytes = 0;    // largest on-chip working set of one thread block
    std::uint64_t hbm_intermediate_bytes = 0;  // S and P of every head: 2 B H L S element_bytes
};

template <class T>
struct StandardAttentionResult {
    Tensor4<T> output;   // [B, Hq, L, Dv]
    std::vector<T> lse;  // [B, Hq, L]; -inf for rows with no allowed key
    StandardStats stats;
    std::size_t num_q_blocks = 0, num_k_blocks = 0;
    std::size_t block_q = 0, block_k = 0;  // Br and Bc used
    std::vector<StandardTraceStep<T>> trace;  // empty unless options.trace
};

template <class T>
StandardAttentionResult<T> standard_attention(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                              const StandardAttentionOptions& options = {});

}  // namespace attn
