#pragma once
// Tiled exact attention, in either of FlashAttention's two loop orders.
//
// FlashAttention-2 (Dao 2023, arXiv:2307.08691, Algorithm 1) -- the default:
//
//   for each query block Q_i (Br rows):             -- outer loop, independent blocks
//     load Q_i; m = -inf, l = 0, acc = 0            -- kept on chip (SRAM / registers)
//     for each key/value block K_j, V_j (Bc rows):  -- inner loop
//       S_ij = scale * Q_i K_j^T (+ mask)
//       online_softmax::update(m, l, acc, S_ij, V_j)
//     O_i = acc / l, L_i = m + log(l)  -> written to HBM once
//
// FlashAttention-1 (Dao et al. 2022, arXiv:2205.14135, Algorithm 1), FlashLoopOrder::fa1_kv_outer:
//
//   O = 0, l = 0, m = -inf written to HBM             -- line 2
//   for each key/value block K_j, V_j:                -- OUTER loop (line 5)
//     load K_j, V_j
//     for each query block Q_i:                       -- inner loop (line 7)
//       load Q_i, O_i, l_i, m_i                       -- line 8: re-read for every K/V block
//       S_ij = scale * Q_i K_j^T; the tile's own max m~, P~ = exp(S_ij - m~), l~ = rowsum(P~)
//       merge (m~, l~, P~ V_j) into (m_i, l_i, diag(l_i) O_i)    -- lines 10-11
//       write O_i = the merged sum / l_new (normalised every step), l_i, m_i   -- lines 12-13
//
// Both compute the same exact output; they differ in HBM traffic. FA2 reads Q once and writes O
// once; FA1 reads and writes O, l, m once per K/V block, which is where its Theta(N^2 d^2 / M)
// traffic comes from (FA1 paper, Theorem 2). Nothing of size L x S is ever stored. Under a causal
// mask, (Q block, K/V block) pairs that lie entirely above the diagonal are skipped without being
// loaded; in FA1's order a K/V block no query block needs is not loaded at all.
//
// Block sizes are explicit (block_q = Br, block_k = Bc) or derived from an SRAM budget of M
// elements as in FA1 Algorithm 1 line 1 (see sram_blocks.hpp).
//
// The optional trace records, for one (batch, head), every state a reader should see: the tile
// indices, the tile's scores and weights, per-row m, l, rescale factor and partial output, the
// HBM transfers of the step, and running counters of bytes moved between HBM and on-chip memory.
// Counters model a GPU kernel with the same blocking: Q, K, V, O cost `element_bytes` per
// element; the statistics m, l, the log-sum-exp and the score tile are fp32 (4 bytes), as in
// FlashAttention's kernels. Mask reads are not counted (causal masks are index arithmetic).
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/attention/io_trace.hpp"
#include "attn/attention/options.hpp"
#include "attn/tensor.hpp"

namespace attn {

enum class FlashLoopOrder {
    fa2_q_outer,   // FlashAttention-2: query blocks outer, rescaling deferred to the end of the row
    fa1_kv_outer,  // FlashAttention-1: key/value blocks outer, O, l, m re-read and re-written per block
};

struct FlashOptions : AttentionOptions {
    std::size_t block_q = 64;      // Br, in [1, 4096]
    std::size_t block_k = 64;      // Bc, in [1, 4096]
    std::size_t element_bytes = 4;  // bytes per Q/K/V/O element in the traffic model: 1, 2, 4 or 8
    bool trace = false;
    std::size_t trace_batch = 0;    // which (batch, head) the trace follows
    std::size_t trace_head = 0;
    FlashLoopOrder loop_order = FlashLoopOrder::fa2_q_outer;
    // M, the on-chip budget in ELEMENTS (FA1 Algorithm 1). When set, block_q and block_k are
    // ignored: Bc = ceil(M / 4d), Br = min(Bc, d) with d = max(head_dim, value_dim).
    std::optional<std::size_t> sram_elements;
};

enum class FlashStepKind {
    load_q,   // Q_i read from HBM; m, l, acc initialised on chip
    tile,     // K_j, V_j read; S_ij computed; state updated
    skip,     // K_j, V_j block entirely masked by the causal rule: neither loaded nor computed
    write_o,  // O_i = acc / l and the log-sum-exp written to HBM
    init_o,   // FA1 order: O = 0, l = 0, m = -inf written to HBM for every row (Algorithm 1 line 2)
    load_kv,  // FA1 order: K_j, V_j read for the inner loop over query blocks
};

template <class T>
struct FlashTraceStep {
    FlashStepKind kind;
    std::size_t q_block, k_block;  // k_block is meaningful for tile, skip and load_kv steps
    // Rows of Q_i (all L rows for init_o, none for load_kv); columns (keys) of K_j.
    std::size_t row_begin, row_end, col_begin, col_end;
    std::vector<T> scores;   // tile steps: (row_end-row_begin) x (col_end-col_begin), masked = -inf
    std::vector<T> weights;  // tile steps: exp(score - m) with the updated m, same layout
    std::vector<T> m, l;     // per row, after this step
    std::vector<T> rescale;  // per row: exp(m_old - m_new) applied to l and acc in this step
    std::vector<T> acc;      // per row x value_dim: the unnormalised accumulator after this step
    std::vector<T> output;   // per row x value_dim: acc / l, the output if the row stopped here
                             // (in FA1's order: the normalised O_i this step wrote to HBM)
    std::uint64_t hbm_bytes_read;     // cumulative for the traced head, including this step
    std::uint64_t hbm_bytes_written;  // cumulative for the traced head
    std::uint64_t sram_bytes_held;    // on-chip bytes live during this step
    std::uint64_t flops;              // cumulative multiply-adds x 2 for the traced head
    std::vector<HbmTransfer> transfers;  // the HBM reads and writes of this step, in order
};

struct FlashStats {
    std::uint64_t hbm_bytes_read = 0;     // whole launch, all batches and heads
    std::uint64_t hbm_bytes_written = 0;
    std::uint64_t flops = 0;              // 2 per multiply-add in Q K^T and P V, over computed tiles
    std::uint64_t tiles_computed = 0;
    std::uint64_t tiles_skipped = 0;
    std::uint64_t peak_sram_bytes = 0;    // largest on-chip working set of one thread block
};

template <class T>
struct FlashResult {
    Tensor4<T> output;   // [B, Hq, L, Dv]
    std::vector<T> lse;  // [B, Hq, L]; -inf for rows with no allowed key
    FlashStats stats;
    std::size_t num_q_blocks = 0, num_k_blocks = 0;
    std::size_t block_q = 0, block_k = 0;  // Br and Bc used (derived from sram_elements when set)
    std::vector<FlashTraceStep<T>> trace;  // empty unless options.trace
};

template <class T>
FlashResult<T> flash_forward(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                             const FlashOptions& options = {});

}  // namespace attn
