#pragma once
// Fixed sparse attention patterns of the approximation era, as masks that run through the dense
// reference and as analytic counts that never materialise N x N cells.
//
// Conventions: query i (row) may attend to key j (column) iff the mask cell is true (SDPA's
// boolean convention); 0 <= i, j < N; self-attention (L = S = N).
//
//  * Sparse Transformer, strided (Child et al. 2019, arXiv:1904.10509, Sec. 4.2): the union of
//    A(1)_i = {t, ..., i}, t = max(0, i - l) and A(2)_i = {j : (i - j) mod l = 0}, causal (j <= i).
//    Note A(1) holds l + 1 positions: "the previous l locations" and i itself, as the paper writes it.
//  * Sparse Transformer, fixed (same section): A(1)_i = {j : floor(j/l) = floor(i/l)} and
//    A(2)_i = {j : j mod l in {l - c, ..., l}} (the last c positions of every block), causal.
//    The mask is the union of both heads' sets, i.e. the paper's "merged head" (Sec. 4.3).
//  * Longformer (Beltagy et al. 2020, arXiv:2004.05150, Sec. 3.1): sliding window of w/2 keys on
//    each side (one_sided_window), optionally dilated by d (keys i + k d, |k| <= w/2), plus
//    symmetric global attention: the first `global_tokens` tokens attend to every token and every
//    token attends to them. Non-causal, as the pretrained encoder.
//  * BigBird (Zaheer et al. 2020, arXiv:2007.14062, Sec. 2 and App. D, the ITC block form): the
//    sequence is cut into blocks of b tokens (the last may be shorter); query block I attends to
//    key blocks I - w .. I + w (window), to the first g blocks (global; those blocks also attend to
//    everything), and to r random key blocks drawn without replacement from the blocks that are
//    neither in its window nor global (as the reference implementation does), seeded.
//  * dense and causal: the baselines.
#include <cstdint>
#include <vector>

#include "attn/approx/approx_report.hpp"
#include "attn/tensor.hpp"

namespace attn::approx {

enum class PatternKind { dense, causal, strided, fixed, longformer, bigbird };

struct SparsePattern {
    PatternKind kind = PatternKind::dense;
    std::size_t stride = 0;            // strided, fixed: l >= 1
    std::size_t summary = 0;           // fixed: c in [1, l]
    std::size_t one_sided_window = 0;  // longformer: tokens per side; bigbird: blocks per side
    std::size_t dilation = 1;          // longformer: d >= 1
    std::size_t global = 0;            // longformer: first tokens; bigbird: first blocks (clipped to N)
    std::size_t block = 0;             // bigbird: b >= 1
    std::size_t random_blocks = 0;     // bigbird: r in [0, 64]
    std::uint64_t seed = 0;            // bigbird: which random blocks
};

SparsePattern dense_pattern();
SparsePattern causal_pattern();
SparsePattern strided_pattern(std::size_t stride);
SparsePattern fixed_pattern(std::size_t stride, std::size_t summary);
SparsePattern longformer_pattern(std::size_t one_sided_window, std::size_t global_tokens, std::size_t dilation = 1);
SparsePattern bigbird_pattern(std::size_t block, std::size_t one_sided_window_blocks, std::size_t global_blocks,
                              std::size_t random_blocks, std::uint64_t seed);

// Limits: N in [1, kMaxPatternLength] for counts and images, [1, kMaxMaskLength] for masks.
// Pattern parameters above are at most kMaxPatternLength (random_blocks at most 64).
inline constexpr std::size_t kMaxPatternLength = std::size_t{1} << 24;
inline constexpr std::size_t kMaxMaskLength = std::size_t{1} << 12;

// Throws attn::Error naming the offending field and its allowed range.
void validate_pattern(const SparsePattern& pattern, std::size_t seq_len);

// The N x N boolean mask, row-major (cell i * N + j), 1 = may attend. O(N^2): for small N only.
std::vector<std::uint8_t> pattern_mask(const SparsePattern& pattern, std::size_t seq_len);

// What one (batch, head) of the pattern costs, counted analytically: exact entries (the number of
// true mask cells) in O(1) for every kind but BigBird, whose random blocks are enumerated
// (O(N/b * r^2)). Costs follow dense_cost() per allowed entry: 2d + 2dv + 2 FLOPs (QK^T and PV
// multiply-adds, exp and normalisation) and bytes_per_score bytes of stored score.
struct PatternStats {
    std::uint64_t entries = 0;
    std::uint64_t flops = 0;
    std::uint64_t score_bytes = 0;
    double density = 0;  // entries / N^2
};
PatternStats pattern_stats(const SparsePattern& pattern, std::size_t seq_len, std::size_t head_dim = 64,
                           std::size_t value_dim = 64, std::size_t bytes_per_score = 8);

// The mask down-sampled to pixels x pixels: pixel (p, c) covers rows [edge(p), edge(p + 1)) and
// columns [edge(c), edge(c + 1)) with edge(x) = floor(x N / pixels), and `allowed` counts its true
// cells exactly. Built from per-pixel rectangle counts in closed form (BigBird: per block row
// intervals), O(pixels^2 + N/b * r^2), never O(N^2). pixels in [1, min(N, 2048)].
struct DensityImage {
    std::size_t pixels = 0;
    std::vector<std::size_t> edges;       // pixels + 1 boundaries, edges[0] = 0, edges[pixels] = N
    std::vector<std::uint64_t> allowed;   // pixels x pixels, row-major
    double fraction(std::size_t p, std::size_t c) const;  // allowed / cells of the pixel
};
DensityImage pattern_density_image(const SparsePattern& pattern, std::size_t seq_len, std::size_t pixels);

// Self-attention restricted to the pattern, run for real: the mask goes to attn::sdpa (the dense
// reference with a boolean mask), so the output is exactly what a block-sparse kernel computes.
// q, k, v are [B, H, N, D] with one K/V head per query head and N <= kMaxMaskLength. The error is
// measured against dense attention with the same causality as the pattern (strided, fixed and
// causal are compared with causal dense attention, the others with full attention); the cost is
// pattern_stats times B * H, i.e. what a kernel computing only allowed entries does.
ApproxResult sparse_attention(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                              const SparsePattern& pattern);

// BigBird: the random key blocks (sorted block indices) of query block `row_block` at length N;
// empty for global query blocks. Throws attn::Error for other kinds or row_block >= ceil(N / b).
std::vector<std::size_t> bigbird_random_blocks(const SparsePattern& pattern, std::size_t seq_len,
                                               std::size_t row_block);

// Whether the pattern only looks backwards (its reference is causal dense attention).
bool pattern_is_causal(const SparsePattern& pattern);

}  // namespace attn::approx
