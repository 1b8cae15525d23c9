#pragma once
// Exact cell counting for the sparse patterns without visiting cells.
//
// Strided, fixed, Longformer and the baselines are unions of diagonals (cells with i - j = m for m
// in an arithmetic progression), blocks and column sets; the number of allowed cells in any
// rectangle [r0, r1) x [c0, c1) then has a closed form. BigBird is block-structured with seeded
// random blocks: every query block gets its list of allowed key intervals.
#include <cstdint>
#include <utility>
#include <vector>

#include "attn/approx/sparse_patterns.hpp"

namespace attn::approx::detail {

// A density image of n x n cells at `pixels` x `pixels` with its edges set (edge(x) = floor(x n /
// pixels)) and every count 0; throws attn::Error unless 1 <= pixels <= min(n, 2048).
DensityImage empty_density_image(std::size_t n, std::size_t pixels);

using i64 = std::int64_t;

struct Rect {
    i64 r0, r1, c0, c1;  // rows [r0, r1), columns [c0, c1)
};

// Cells (i, j) of `r` with i - j = m, summed over m = first, first + step, ... <= last (step >= 1).
std::uint64_t diagonal_cells(const Rect& r, i64 first, i64 last, i64 step);

// Diagonal offsets m = i - j: first, first + step, ... <= last (step >= 1; empty when last < first).
struct Progression {
    i64 first, last, step;
};

// The diagonals the diagonal-structured kinds allow, as at most two disjoint progressions:
// causal {0, ..., N-1}; strided {0, ..., l} and {2l, 3l, ...}; Longformer's window {-wd, ..., wd}
// in steps of d, which holds only where row and column are both >= the global tokens. Other
// kinds: none (count 0).
struct Diagonals {
    Progression parts[2];
    int count = 0;
};
Diagonals pattern_diagonals(const SparsePattern& p, std::size_t n);

// D(x) = sum of (x - m) over the progression's offsets m < x. Its second difference is the
// diagonal's indicator, so the rectangle [r0, r1) x [c0, c1) holds
// D(r1 - c0) - D(r0 - c0) - D(r1 - c1) + D(r0 - c1) cells on those diagonals. O(1).
i64 diagonal_ramp(const Progression& d, i64 x);

// Allowed cells of the pattern inside `r` (which lies within [0, n)^2), in O(1). Not for BigBird.
std::uint64_t count_rect(const SparsePattern& p, std::size_t n, const Rect& r);

// Fixed pattern (stride l, summary c), sums over the columns j < t: how many are summary columns
// (j mod l >= l - c), the sum of those j, and over the other columns the sum of their distance to
// the end of their block, (floor(j / l) + 1) l - j. O(1).
struct FixedPrefix {
    i64 summary, summary_index_sum, local_to_block_end;
};
FixedPrefix fixed_prefix(i64 l, i64 c, i64 t);

// BigBird: the allowed key tokens of every query in block `row_block`, as sorted, disjoint,
// non-adjacent intervals [first, second).
std::vector<std::pair<std::size_t, std::size_t>> bigbird_key_intervals(const SparsePattern& p, std::size_t n,
                                                                       std::size_t row_block);

inline std::size_t block_count(std::size_t n, std::size_t block) { return (n + block - 1) / block; }

}  // namespace attn::approx::detail
