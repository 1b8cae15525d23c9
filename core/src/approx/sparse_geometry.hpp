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

using i64 = std::int64_t;

struct Rect {
    i64 r0, r1, c0, c1;  // rows [r0, r1), columns [c0, c1)
};

// Cells (i, j) of `r` with i - j = m, summed over m = first, first + step, ... <= last (step >= 1).
std::uint64_t diagonal_cells(const Rect& r, i64 first, i64 last, i64 step);

// Allowed cells of the pattern inside `r` (which lies within [0, n)^2), in O(1). Not for BigBird.
std::uint64_t count_rect(const SparsePattern& p, std::size_t n, const Rect& r);

// BigBird: the allowed key tokens of every query in block `row_block`, as sorted, disjoint,
// non-adjacent intervals [first, second).
std::vector<std::pair<std::size_t, std::size_t>> bigbird_key_intervals(const SparsePattern& p, std::size_t n,
                                                                       std::size_t row_block);

inline std::size_t block_count(std::size_t n, std::size_t block) { return (n + block - 1) / block; }

}  // namespace attn::approx::detail
