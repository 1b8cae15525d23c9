#pragma once
// The complexity-scaling figure: memory and FLOPs of one attention head as functions of N, for
// dense attention and one representative of each approximation family, with the constants of the
// implementations in this core (not big-O sketches):
//
//   dense      dense_cost()                                   O(N^2)
//   sparse     pattern_stats() of the Sparse Transformer's strided pattern with l = ceil(sqrt N),
//              the paper's choice "l close to sqrt(n)" (Child et al. 2019, Sec. 4.2)    O(N sqrt N)
//   lsh        lsh_attention_cost() (Reformer), plus the sort by bucket that its O(N log N) comes
//              from: rounds * N * ceil(log2 N) comparisons, reported apart from FLOPs  O(N log N)
//   linformer  low rank, k projected keys: the formula documented at linformer_cost(),
//              evaluated here without that function's materialisation cap (k N <= 2^26) so N can
//              reach 10^6; tests check both agree wherever linformer_cost accepts N     O(N)
//   performer  performer_cost() (FAVOR+ with m random features)                         O(N)
//   flash      FlashAttention (Dao et al. 2022, arXiv:2205.14135, Algorithm 1), the exact contrast:
//              every score is formed, so FLOPs and score entries are dense_cost()'s; none is stored
//              in HBM, so the extra memory is the per-row statistics m and l (2 N elements) plus one
//              on-chip score tile of Br x Bc (block sizes as FlashOptions' defaults, clamped to N),
//              the paper's "O(N) extra memory beyond inputs and output" (Theorem 1)         O(N) memory
//
// Memory is the counted peak working set beyond inputs and output; the implementations count it
// in 8-byte elements, and the curves rescale it to `bytes_per_element` (2 = FP16, as the plan's
// "N^2 wall" table). All counts are exact integers below 2^64 for N <= 2^24; the curve carries
// them as double for plotting.
#include <cstdint>
#include <string>
#include <vector>

namespace attn::approx {

enum class ComplexityMethod { dense, sparse, lsh, linformer, performer, flash };

struct ComplexityParams {
    std::size_t head_dim = 64;
    std::size_t value_dim = 64;
    std::size_t bytes_per_element = 2;  // in [1, 8]
    // Reformer (LshOptions): buckets (1 or even, <= 4096), hash rounds (<= 64), chunk length m.
    std::size_t lsh_buckets = 64;
    std::size_t lsh_rounds = 4;
    std::size_t lsh_chunk = 64;
    std::size_t linformer_k = 256;         // projected length, in [1, 2^20]
    std::size_t performer_features = 256;  // m, in [1, 65536]
    std::size_t flash_block_q = 64;        // Br, in [1, 4096] (FlashOptions::block_q)
    std::size_t flash_block_k = 64;        // Bc, in [1, 4096] (FlashOptions::block_k)
};

struct ComplexityPoint {
    std::uint64_t seq_len = 0;
    std::uint64_t score_entries = 0;     // query-key scores formed (0 for Performer)
    std::uint64_t flops = 0;             // counted as in each method's *_cost()
    std::uint64_t sort_comparisons = 0;  // LSH only: the sort by bucket
    std::uint64_t peak_bytes = 0;        // at bytes_per_element
};

struct ComplexityCurve {
    ComplexityMethod method;
    std::string name;        // "dense", "sparse", "lsh", "linformer", "performer", "flash"
    std::string big_o;       // "N^2", "N sqrt N", "N log N", "N", "N", "N^2 FLOPs, N memory"
    std::vector<ComplexityPoint> points;
};

// Throws attn::Error naming the offending field and its allowed range.
void validate_complexity_params(const ComplexityParams& params);

// One method at one N (N in [1, kMaxPatternLength]), for the dot that follows the slider.
ComplexityPoint complexity_point(ComplexityMethod method, std::size_t seq_len, const ComplexityParams& params = {});

// Every method at `points` log-spaced N from n_min to n_max (both included; rounded to integers,
// duplicates dropped). 1 <= n_min <= n_max <= 2^24, points in [2, 512].
std::vector<ComplexityCurve> complexity_curves(std::size_t n_min, std::size_t n_max, std::size_t points,
                                               const ComplexityParams& params = {});

// The time-line markers of the figure: a model, the year it appeared and its context length,
// with the primary source each value comes from.
struct TimelineMarker {
    std::string model;
    int year;
    std::uint64_t context_tokens;
    std::string source;
};
const std::vector<TimelineMarker>& timeline_markers();

// The memory line the figure draws for scale: one A100 80GB's device memory, read from the GPU
// presets (attn::cost::gpu_preset("a100-sxm-80gb").hbm_bytes) with the datasheet it cites.
struct MemoryReference {
    std::string label;  // "80 GB: one A100"
    std::uint64_t bytes;
    std::string source;
};
MemoryReference a100_memory_reference();

}  // namespace attn::approx
