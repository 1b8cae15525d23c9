#pragma once
// Tiled exact attention in the FlashAttention-2 loop order (Dao 2023, Algorithm 1):
//
//   for each query block Q_i (Br rows):             -- outer loop, independent blocks
//     load Q_i; m = -inf, l = 0, acc = 0            -- kept on chip (SRAM / registers)
//     for each key/value block K_j, V_j (Bc rows):  -- inner loop
//       S_ij = scale * Q_i K_j^T (+ mask)
//       online_softmax::update(m, l, acc, S_ij, V_j)
//     O_i = acc / l, L_i = m + log(l)  -> written to HBM once
//
// Nothing of size L x S is ever stored. Under a causal mask, key blocks that lie entirely above
// the diagonal are skipped without being loaded.
//
// The optional trace records, for one (batch, head), every state a reader should see: the tile
// indices, the tile's scores and weights, per-row m, l, rescale factor and partial output, and
// running counters of bytes moved between HBM and on-chip memory. Counters model a GPU kernel
// with the same blocking: tiles of Q, K, V, O cost `element_bytes` per element, the statistics
// m, l, the log-sum-exp and the score tile are fp32 (4 bytes), as in FlashAttention's kernels.
#include <cstdint>
#include <vector>

#include "attn/attention/options.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct FlashOptions : AttentionOptions {
    std::size_t block_q = 64;      // Br, in [1, 4096]
    std::size_t block_k = 64;      // Bc, in [1, 4096]
    std::size_t element_bytes = 4;  // bytes per Q/K/V/O element in the traffic model: 1, 2, 4 or 8
    bool trace = false;
    std::size_t trace_batch = 0;    // which (batch, head) the trace follows
    std::size_t trace_head = 0;
};

enum class FlashStepKind {
    load_q,   // Q_i read from HBM; m, l, acc initialised on chip
    tile,     // K_j, V_j read; S_ij computed; state updated
    skip,     // K_j, V_j block entirely masked by the causal rule: neither loaded nor computed
    write_o,  // O_i = acc / l and the log-sum-exp written to HBM
};

template <class T>
struct FlashTraceStep {
    FlashStepKind kind;
    std::size_t q_block, k_block;  // k_block is meaningful for tile and skip steps
    std::size_t row_begin, row_end, col_begin, col_end;  // rows of Q_i; columns (keys) of K_j
    std::vector<T> scores;   // tile steps: (row_end-row_begin) x (col_end-col_begin), masked = -inf
    std::vector<T> weights;  // tile steps: exp(score - m) with the updated m, same layout
    std::vector<T> m, l;     // per row, after this step
    std::vector<T> rescale;  // per row: exp(m_old - m_new) applied to l and acc in this step
    std::vector<T> acc;      // per row x value_dim: the unnormalised accumulator after this step
    std::vector<T> output;   // per row x value_dim: acc / l, the output if the row stopped here
    std::uint64_t hbm_bytes_read;     // cumulative for the traced head, including this step
    std::uint64_t hbm_bytes_written;  // cumulative for the traced head
    std::uint64_t sram_bytes_held;    // on-chip bytes live during this step
    std::uint64_t flops;              // cumulative multiply-adds x 2 for the traced head
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
    std::vector<FlashTraceStep<T>> trace;  // empty unless options.trace
};

template <class T>
FlashResult<T> flash_forward(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                             const FlashOptions& options = {});

}  // namespace attn
