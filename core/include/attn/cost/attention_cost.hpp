#pragma once
// What attention costs on a GPU: FLOPs, bytes moved between HBM and the chip, and the time the
// roofline predicts from them, for standard attention (the N x N score matrix materialised in
// HBM) and for FlashAttention (tiles kept in SRAM).
//
// Sources:
//  * Standard attention: Dao et al., "FlashAttention: Fast and Memory-Efficient Exact Attention
//    with IO-Awareness" (NeurIPS 2022), Algorithm 0 (forward) and Algorithm 3 (backward, App. B):
//    S = QK^T, P = softmax(S), O = PV with S and P written to and read back from HBM,
//    Theta(Nd + N^2) accesses (Theorem 2).
//  * FlashAttention: the same paper, Algorithm 1 (forward) and Algorithm 4 (backward, App. B),
//    with block sizes Bc = ceil(M / 4d), Br = min(Bc, d) for an SRAM of M elements,
//    Theta(N^2 d^2 / M) accesses (Theorem 2). The exact counts are in flash_attention_io below.
//  * FLOP conventions: Dao, "FlashAttention-2" (2023), Sec. 4.1, and the repository's
//    benchmarks/benchmark_flash_attention.py.
//
// Conventions. Shapes follow SDPA: B batches, H query heads, L queries, S keys, head_dim d
// (queries and keys), value_dim dv. Every head reads its own K and V (a kernel's L2 reuse between
// heads that share a KV head under GQA is not modelled). Q, K, V, O and their gradients cost
// `element_bytes` each; FlashAttention's per-row statistics (m, l, or the log-sum-exp) are fp32
// (4 bytes), as in its kernels and in flash_forward's traffic counters. FLOPs count the two
// matrix products of each pass, 2 per multiply-add; softmax's exponentials are not counted.
// Byte and FLOP totals are doubles: exact below 2^53.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attn/attention/causal.hpp"
#include "attn/cost/gpu_presets.hpp"
#include "attn/cost/roofline.hpp"

namespace attn::cost {

struct AttentionShape {
    std::size_t batch = 1;       // [1, 65536]
    std::size_t heads = 1;       // query heads, [1, 4096]
    std::size_t q_len = 1;       // L, [1, 2^24]
    std::size_t kv_len = 1;      // S, [1, 2^24]
    std::size_t head_dim = 64;   // d of Q and K, [1, 1024]
    std::size_t value_dim = 64;  // dv of V and O, [1, 1024]
    Causal causal = Causal::none;
};

// Throws attn::Error naming the field and its range.
void validate(const AttentionShape& shape);

enum class Pass { forward, backward, forward_backward };
enum class Algorithm { standard, flash };

// Query-key pairs the causal rule leaves visible in one head: the sum over query rows of the keys
// each row attends to (L * S without a mask), for either alignment and L != S. Closed form of
// sum_i causal_key_end(i, L, S, causal).
std::uint64_t attended_pairs(std::size_t q_len, std::size_t kv_len, Causal causal);

// FlashAttention's benchmark FLOP count (FA2 Sec. 4.1): forward 4 * B * H * N^2 * d, divided by
// 2 under a causal mask "to account for the fact that approximately only half of the entries are
// calculated"; backward 2.5 x forward; forward + backward 3.5 x forward.
double benchmark_flops(std::size_t batch, std::size_t heads, std::size_t seq_len, std::size_t head_dim, bool causal,
                       Pass pass);

// The exact form, valid for both causal alignments, L != S and d != dv:
// forward 2 * B * H * L * avg_k * (d + dv), where L * avg_k = attended_pairs (QK^T, then PV);
// backward 2 * B * H * L * avg_k * (3d + 2dv): S recomputed (d), dV = P^T dO (dv), dP = dO V^T (dv),
// dQ = dS K (d), dK = dS^T Q (d) -- 2.5 x forward when d = dv, the factor FA2 uses.
double attention_flops(const AttentionShape& shape, Pass pass);

// HBM traffic of one launch (all batches and heads).
struct HbmTraffic {
    double bytes_read = 0;
    double bytes_written = 0;
    double bytes() const { return bytes_read + bytes_written; }
};

// Standard attention, FA paper Algorithm 0 (forward) and Algorithm 3 (backward), per head:
//   forward  reads  Q, K (step 1), S (step 2), P and V (step 3):  (L*d + T*S*d + 2*L*S + T*S*dv) elements
//            writes S (step 1), P (step 2), O (step 3):          (2*L*S + L*dv)
//   backward reads  P, dO | dO, V | P, dP | dS, K | dS, Q:        (5*L*S + 2*L*dv + S*dv + S*d + L*d)
//            writes dV | dP | dS | dQ | dK:                       (2*L*S + S*dv + L*d + S*d)
// T = ceil(L / block_q): steps 1 and 3 run as blocked products that load Q (and P) in blocks of
// block_q rows and read all of K (and V) once per block -- the count attention/standard_attention's
// trace reports, so the model and the figure agree. block_q >= L gives the paper's once-read
// count. The causal mask is applied while computing P (no extra pass) and skips nothing: every
// entry of the L x S matrices is stored.
HbmTraffic standard_attention_io(const AttentionShape& shape, Pass pass, std::size_t element_bytes,
                                 std::size_t block_q);

struct FlashBlocks {
    std::size_t block_q;  // Br: query rows per tile
    std::size_t block_k;  // Bc: key rows per tile
};

// FA1 Algorithm 1, line 1: Bc = ceil(M / 4d), Br = min(ceil(M / 4d), d), for an SRAM of
// `sram_elements` = M elements (M >= 1; head_dim, value_dim in [1, 1024]). The 4d leaves room for
// the Q_i, K_j, V_j and O_i tiles; with value_dim != head_dim, d is the larger of the two, as in
// attention/sram_blocks.hpp (which caps Bc at 4096 for the tiled algorithms; this model does not).
FlashBlocks fa1_block_sizes(std::size_t sram_elements, std::size_t head_dim, std::size_t value_dim);

// The tiles a blocked kernel visits. Tile (i, j) -- query rows of block i, keys of block j -- is
// computed unless the causal rule hides every key of block j from the last (most permissive)
// row of block i; the same rule as flash_forward.
struct TileCounts {
    std::uint64_t tiles_computed = 0;
    std::uint64_t tiles_skipped = 0;
    double score_entries = 0;    // sum over computed tiles of rows x cols (masked entries included)
    double row_visits = 0;       // sum over computed tiles of rows: query-side tile loads
    double col_visits = 0;       // sum over computed tiles of cols: key-side tile loads
    double kv_rows_loaded = 0;   // keys in the K/V blocks that at least one computed tile uses
};
TileCounts tile_counts(std::size_t q_len, std::size_t kv_len, Causal causal, FlashBlocks blocks);

// FlashAttention (FA1) HBM traffic, counting every load and store of Algorithm 1 (forward) and
// Algorithm 4 (backward) literally, per head, with skipped causal tiles neither loaded nor stored:
//   forward  init  (line 2)  write O = 0, l = 0, m = -inf:       L*dv elements + 2L stats
//            outer (line 6)  read K_j, V_j once:                 kv_rows_loaded * (d + dv)
//            inner (line 8)  read Q_i, O_i, l_i, m_i per tile:    row_visits * (d + dv) + 2 row_visits stats
//            inner (l.12-13) write O_i, l_i, m_i per tile:        row_visits * dv + 2 row_visits stats
//   backward init            write dQ, dK, dV = 0:               L*d + S*(d + dv)
//            outer           read K_j, V_j; write dK_j, dV_j:    kv_rows_loaded * (d + dv) each way
//            inner           read Q_i, O_i, dO_i, dQ_i, l_i, m_i: row_visits * (2d + 2dv) + 2 row_visits stats
//            inner           write dQ_i:                          row_visits * d
// With Tc = ceil(S / Bc) K/V blocks and no mask, row_visits = L * Tc ~ 4 L S d / M: the
// Theta(N^2 d^2 / M) term of Theorem 2.
HbmTraffic flash_attention_io(const AttentionShape& shape, Pass pass, std::size_t element_bytes, FlashBlocks blocks);

// The forward pass in FlashAttention-2's loop order (FA2 Algorithm 1, and flash_forward): each
// query block is read once and its output and log-sum-exp written once; K_j, V_j are read for
// every computed tile. Reads L*d + col_visits*(d + dv) elements, writes L*dv elements + L stats.
// Equals flash_forward's hbm_bytes_read / hbm_bytes_written for the same blocks.
HbmTraffic flash2_forward_io(const AttentionShape& shape, std::size_t element_bytes, FlashBlocks blocks);

// FLOPs the kernels execute (the roofline's compute term). Standard attention multiplies the whole
// L x S matrices whatever the mask: forward 2*L*S*(d + dv), backward 2*L*S*(2d + 2dv) (P is stored,
// nothing recomputed). FlashAttention computes whole tiles: forward 2*score_entries*(d + dv),
// backward 2*score_entries*(3d + 2dv) (S recomputed). Times B * H.
double executed_flops(const AttentionShape& shape, Pass pass, Algorithm algorithm, FlashBlocks blocks);

// The roofline prediction of one attention launch on one GPU at one precision.
struct AttentionPrediction {
    Algorithm algorithm;
    Pass pass;
    Precision precision;
    FlashBlocks blocks;              // FA1 block sizes from the GPU's SRAM (both algorithms block by them)
    double flops;                    // executed_flops
    double useful_flops;             // attention_flops: the exact work, masked pairs excluded
    double hbm_bytes_read;
    double hbm_bytes_written;
    double hbm_bytes;
    double peak_flops_per_s;         // roofline::peak_flops
    double hbm_bytes_per_s;
    double compute_time_s;           // flops / peak
    double memory_time_s;            // hbm_bytes / bandwidth
    double time_s;                   // max of the two: the roofline bound on the run time
    double arithmetic_intensity;     // flops / hbm_bytes, FLOP per byte
    double attained_flops_per_s;     // flops / time_s
    Bound bound;                     // memory when memory_time_s > compute_time_s
};

// Elements are bytes_per_element(precision) wide; FlashAttention's M is the GPU's SRAM per SM in
// elements of that width. Throws attn::Error for an invalid shape, a precision the GPU does not
// support, or (flash) a GPU whose SRAM size is unpublished.
AttentionPrediction predict(const AttentionShape& shape, Algorithm algorithm, Pass pass, const GpuPreset& gpu,
                            Precision precision);

// Memory the L x L score matrix (or P) takes when materialised, at `element_bytes` per entry
// (1, 2, 4 or 8): per head, per layer (x heads), per model (x heads x layers), for one sequence.
struct ScoreMatrixFootprint {
    double per_head_bytes;
    double per_layer_bytes;
    double per_model_bytes;
};
ScoreMatrixFootprint score_matrix_footprint(std::size_t seq_len, std::size_t heads, std::size_t layers,
                                            std::size_t element_bytes);

std::string_view pass_name(Pass pass);            // "forward", "backward", "forward_backward"
std::string_view algorithm_name(Algorithm algo);  // "standard", "flash"

}  // namespace attn::cost
