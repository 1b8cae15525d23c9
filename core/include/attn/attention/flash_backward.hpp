#pragma once
// FlashAttention's backward pass with recomputation (Dao 2023, arXiv:2307.08691, Algorithm 2;
// the same recomputation as FA1, arXiv:2205.14135, Algorithm 4): dQ, dK, dV from Q, K, V, O, dO
// and the forward's log-sum-exp L only. S and P are never stored; each tile of P is recomputed
// from Q_i, K_j and L_i, trading FLOPs for the 2 * L * S elements a dense backward keeps.
//
//   D = rowsum(dO o O)                                   -- a preprocessing pass, written to HBM
//   for each key/value block K_j, V_j:                   -- outer loop
//     load K_j, V_j; dK_j = dV_j = 0 on chip
//     for each query head of the group, each query block i:   -- inner loop
//       load Q_i, dO_i, dQ_i, L_i, D_i
//       S_ij = scale * Q_i K_j^T (+ mask);  P_ij = exp(S_ij - L_i)   -- recomputed
//       dV_j += P_ij^T dO_i;  dP_ij = dO_i V_j^T;  dS_ij = P_ij o (dP_ij - D_i)
//       dQ_i += scale * dS_ij K_j  -> written back to HBM
//       dK_j += scale * dS_ij^T Q_i
//     write dK_j, dV_j
//
// Grouped-query attention: the K/V loop runs once per key/value head and the inner loop visits
// every query head of its group, so dK and dV accumulate the group's gradients on chip. Causal
// blocks entirely above the diagonal are skipped; a K/V block no query row can see is not loaded
// (its dK_j, dV_j are still written: zeros). Rows with L_i = -inf (no allowed key) get P = 0 and
// so zero gradients, never NaN.
//
// Traffic model: Q, K, V, O, dO, dK, dV cost `element_bytes` per element; dQ is accumulated
// through HBM in fp32 (as FA2's kernel does), L and D are fp32. The inner loop reads the inputs it
// uses (Q_i, dO_i, dQ_i, L_i, D_i): O enters only through D. FLOPs are 2 per multiply-add: the
// five tile matmuls and D's row sums.
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/attention/io_trace.hpp"
#include "attn/attention/options.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct FlashBackwardOptions : AttentionOptions {
    std::size_t block_q = 64;        // Br: [1, 4096]
    std::size_t block_k = 64;        // Bc: [1, 4096]
    // M in ELEMENTS; when set, block_q and block_k are derived as in sram_blocks.hpp.
    std::optional<std::size_t> sram_elements;
    std::size_t element_bytes = 4;   // 1, 2, 4 or 8
    bool trace = false;
    // The trace follows the key/value head that query head trace_head reads, with every query
    // head of its group (GQA), in batch trace_batch.
    std::size_t trace_batch = 0;
    std::size_t trace_head = 0;
};

enum class FlashBackwardStepKind {
    compute_delta,  // O_i and dO_i read, D_i = rowsum(dO_i o O_i) written
    load_kv,        // K_j, V_j read; dK_j = dV_j = 0 on chip
    tile,           // Q_i, dO_i, dQ_i, L_i, D_i read; P_ij recomputed; dQ_i written back
    skip,           // the block is entirely masked by the causal rule: nothing loaded or computed
    write_dkdv,     // dK_j, dV_j written
};

template <class T>
struct FlashBackwardStep {
    FlashBackwardStepKind kind;
    std::size_t q_head;              // compute_delta, tile, skip: the query head
    std::size_t q_block, k_block;
    std::size_t row_begin, row_end;  // query rows (none for load_kv and write_dkdv)
    std::size_t col_begin, col_end;  // key rows (none for compute_delta)
    std::vector<T> probs;     // tile: the recomputed P_ij = exp(S_ij - L_i), rows x cols
    std::vector<T> d_scores;  // tile: dS_ij = P_ij o (dP_ij - D_i), rows x cols
    std::vector<T> delta;     // compute_delta: D_i per row
    std::uint64_t hbm_bytes_read;     // cumulative for the traced key/value head's group
    std::uint64_t hbm_bytes_written;
    std::uint64_t sram_bytes_held;    // on-chip bytes live during this step
    std::uint64_t flops;              // cumulative, 2 per multiply-add
    std::vector<HbmTransfer> transfers;  // the HBM reads and writes of this step, in order
};

struct FlashBackwardStats {
    std::uint64_t hbm_bytes_read = 0;     // whole launch
    std::uint64_t hbm_bytes_written = 0;
    std::uint64_t flops = 0;              // every multiply-add x 2, recomputation included
    std::uint64_t recompute_flops = 0;    // the part that recomputes S = Q K^T: 2 * D per computed score
    std::uint64_t tiles_computed = 0;     // (query head, Q block, K/V block) triples
    std::uint64_t tiles_skipped = 0;
    std::uint64_t peak_sram_bytes = 0;
    // The S and P matrices a non-recomputing backward would have stored: 2 * B * Hq * L * S
    // elements of element_bytes each.
    std::uint64_t bytes_not_stored = 0;
};

template <class T>
struct FlashBackwardResult {
    Tensor4<T> dq;  // [B, Hq, L, D]
    Tensor4<T> dk;  // [B, Hkv, S, D]
    Tensor4<T> dv;  // [B, Hkv, S, Dv]
    FlashBackwardStats stats;
    std::size_t num_q_blocks = 0, num_k_blocks = 0;
    std::size_t block_q = 0, block_k = 0;  // Br and Bc used
    std::vector<FlashBackwardStep<T>> trace;  // empty unless options.trace
};

// o and d_o: [B, Hq, L, Dv], finite. lse: [B, Hq, L], the forward's log-sum-exp (finite or -inf
// for rows with no allowed key), as flash_forward or sdpa return it.
template <class T>
FlashBackwardResult<T> flash_backward(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                      const Tensor4<T>& o, const Tensor4<T>& d_o, const std::vector<T>& lse,
                                      const FlashBackwardOptions& options = {});

}  // namespace attn
