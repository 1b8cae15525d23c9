#include "sparse_geometry.hpp"

#include <algorithm>

#include "attn/random.hpp"

namespace attn::approx::detail {
namespace {

i64 floor_div(i64 a, i64 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }  // b > 0
i64 ceil_div(i64 a, i64 b) { return -floor_div(-a, b); }

// Sum of (alpha + beta m) over the m = first + k step (k >= 0) that lie in [lo, hi].
i64 progression_sum(i64 first, i64 step, i64 lo, i64 hi, i64 alpha, i64 beta) {
    lo = std::max(lo, first);
    if (hi < lo) return 0;
    if (step == 1) return (hi - lo + 1) * alpha + beta * ((lo + hi) * (hi - lo + 1) / 2);  // no divisions
    const i64 start = first + ceil_div(lo - first, step) * step;
    if (start > hi) return 0;
    const i64 end = first + floor_div(hi - first, step) * step;
    const i64 terms = (end - start) / step + 1;
    return terms * alpha + beta * (terms * start + step * (terms * (terms - 1) / 2));
}

// Overlap of [a0, a1) and [b0, b1).
i64 overlap(i64 a0, i64 a1, i64 b0, i64 b1) { return std::max<i64>(0, std::min(a1, b1) - std::max(a0, b0)); }

// Fixed pattern: summary columns (j mod l >= l - c) below x.
i64 summary_below(i64 x, i64 l, i64 c) { return (x / l) * c + std::max<i64>(0, x % l - (l - c)); }

std::uint64_t count_fixed(i64 l, i64 c, const Rect& r) {
    // Disjoint parts: (A) same block and j <= i; (B) summary columns of earlier blocks. A summary
    // column of the query's own block with j <= i is already in (A).
    i64 total = 0;
    // Blocks whose square meets the rectangle: those meeting both the rows and the columns.
    const i64 first = std::max(r.r0, r.c0) / l, last = (std::min(r.r1, r.c1) - 1) / l;
    if (first <= last) {
        auto block_part = [&](i64 b) {
            const Rect sub{std::max(r.r0, b * l), std::min(r.r1, b * l + l), std::max(r.c0, b * l),
                           std::min(r.c1, b * l + l)};
            return static_cast<i64>(diagonal_cells(sub, 0, l - 1, 1));
        };
        total += block_part(first);
        if (last > first) total += block_part(last);
        // Blocks strictly between lie inside rows and columns: full triangles.
        if (last - first > 1) total += (last - first - 1) * (l * (l + 1) / 2);
    }

    // (B): a query in block B sees summary columns j < B l, i.e. S(clamp(B l, c0, c1)) - S(c0).
    const i64 s0 = summary_below(r.c0, l, c), s1 = summary_below(r.c1, l, c);
    auto per_row = [&](i64 b) { return summary_below(std::clamp(b * l, r.c0, r.c1), l, c) - s0; };
    const i64 b0 = r.r0 / l, b1 = (r.r1 - 1) / l;
    total += per_row(b0) * (std::min(r.r1, b0 * l + l) - r.r0);
    if (b1 > b0) total += per_row(b1) * (r.r1 - b1 * l);
    if (b1 - b0 > 1) {
        // Full row blocks b0 < B < b1, l rows each: per_row is 0 while B l <= c0, B c - S(c0)
        // while c0 < B l < c1, S(c1) - S(c0) once B l >= c1.
        const i64 u = b0 + 1, v = b1 - 1;
        const i64 mid_lo = std::max(u, floor_div(r.c0, l) + 1), mid_hi = std::min(v, ceil_div(r.c1, l) - 1);
        i64 sum = 0;
        if (mid_lo <= mid_hi) sum += progression_sum(mid_lo, 1, mid_lo, mid_hi, -s0, c);
        const i64 top_lo = std::max(u, ceil_div(r.c1, l));
        if (top_lo <= v) sum += (v - top_lo + 1) * (s1 - s0);
        total += l * sum;
    }
    return static_cast<std::uint64_t>(total);
}

std::uint64_t count_longformer(const SparsePattern& p, i64 n, const Rect& r, const Progression& window) {
    const i64 g = std::min<i64>(static_cast<i64>(p.global), n);
    const i64 width = r.c1 - r.c0;
    // Global rows see every key; the other rows see the global columns and their window.
    i64 total = overlap(r.r0, r.r1, 0, g) * width;
    const i64 rows_after = overlap(r.r0, r.r1, g, n);
    total += rows_after * overlap(r.c0, r.c1, 0, g);
    const Rect band{std::max(r.r0, g), r.r1, std::max(r.c0, g), r.c1};
    total += static_cast<i64>(diagonal_cells(band, window.first, window.last, window.step));
    return static_cast<std::uint64_t>(total);
}

}  // namespace

std::uint64_t diagonal_cells(const Rect& r, i64 first, i64 last, i64 step) {
    const i64 h = r.r1 - r.r0, w = r.c1 - r.c0;
    if (h <= 0 || w <= 0 || last < first) return 0;
    // Diagonal m holds the rows i in [max(r0, c0 + m), min(r1, c1 + m)): a trapezoid in m that
    // rises with slope 1, stays at min(h, w), falls with slope 1, on [r0 - c1 + 1, r1 - c0 - 1].
    const i64 lo = std::max(first, r.r0 - r.c1 + 1), hi = std::min(last, r.r1 - r.c0 - 1);
    const i64 a = std::min(r.r1 - r.c1, r.r0 - r.c0), b = std::max(r.r1 - r.c1, r.r0 - r.c0);
    i64 total = progression_sum(first, step, lo, std::min(hi, a), r.c1 - r.r0, 1);
    total += progression_sum(first, step, std::max(lo, a + 1), std::min(hi, b), std::min(h, w), 0);
    total += progression_sum(first, step, std::max(lo, b + 1), hi, r.r1 - r.c0, -1);
    return static_cast<std::uint64_t>(total);
}

Diagonals pattern_diagonals(const SparsePattern& p, std::size_t n) {
    const i64 len = static_cast<i64>(n);
    switch (p.kind) {
        case PatternKind::causal:
            return {{{0, len - 1, 1}, {}}, 1};
        case PatternKind::strided: {
            // A(1) u A(2) = offsets {0, ..., l} u {2l, 3l, ...} (l itself is in both).
            const i64 l = static_cast<i64>(p.stride);
            return {{{0, l, 1}, {2 * l, len - 1, l}}, 2};
        }
        case PatternKind::longformer: {
            // Only the window's diagonals within len + 1 of the main one: no cell lies beyond
            // |m| = len - 1, and every sum over the diagonals (diagonal_cells, diagonal_ramp at
            // differences of two edges in [-len, len + 1]) gains nothing from them but terms that
            // cancel. Unclamped, a window of 2^24 at dilation 2^24 put offsets of 2^48 into
            // progression_sum's products, past 64 bits.
            const i64 d = static_cast<i64>(p.dilation);
            const i64 reach = std::min(static_cast<i64>(p.one_sided_window), (len + 1) / d) * d;
            return {{{-reach, reach, d}, {}}, 1};
        }
        case PatternKind::dense:
        case PatternKind::fixed:
        case PatternKind::bigbird:
            break;
    }
    return {};
}

FixedPrefix fixed_prefix(i64 l, i64 c, i64 t) {
    const i64 q = t / l, o = t % l;
    // Block q holds summary offsets l - c .. l - 1 (c of them, sum c (2l - c - 1) / 2) and
    // non-summary offsets 0 .. l - c - 1, whose distances to the block end l - o sum to
    // (l - c)(l + c + 1) / 2. The partial block takes the offsets below o.
    const i64 partial_summary = std::max<i64>(0, o - (l - c)), partial_local = std::min(o, l - c);
    FixedPrefix f;
    f.summary = summary_below(t, l, c);
    f.summary_index_sum = c * l * (q * (q - 1) / 2) + q * (c * (2 * l - c - 1) / 2) + partial_summary * q * l +
                          partial_summary * (l - c + o - 1) / 2;
    f.local_to_block_end = q * ((l - c) * (l + c + 1) / 2) + partial_local * l - partial_local * (partial_local - 1) / 2;
    return f;
}

i64 diagonal_ramp(const Progression& d, i64 x) {
    if (d.last < d.first) return 0;
    return progression_sum(d.first, d.step, d.first, std::min(d.last, x - 1), x, -1);
}

std::uint64_t count_rect(const SparsePattern& p, std::size_t n, const Rect& r) {
    const Diagonals diagonals = pattern_diagonals(p, n);
    switch (p.kind) {
        case PatternKind::dense:
            return static_cast<std::uint64_t>(std::max<i64>(0, r.r1 - r.r0) * std::max<i64>(0, r.c1 - r.c0));
        case PatternKind::causal:
        case PatternKind::strided: {
            std::uint64_t total = 0;
            for (int k = 0; k < diagonals.count; ++k) {
                const Progression& d = diagonals.parts[k];
                total += diagonal_cells(r, d.first, d.last, d.step);
            }
            return total;
        }
        case PatternKind::fixed:
            if (r.r1 <= r.r0 || r.c1 <= r.c0) return 0;
            return count_fixed(static_cast<i64>(p.stride), static_cast<i64>(p.summary), r);
        case PatternKind::longformer:
            if (r.r1 <= r.r0 || r.c1 <= r.c0) return 0;
            return count_longformer(p, static_cast<i64>(n), r, diagonals.parts[0]);
        case PatternKind::bigbird:
            break;
    }
    throw Error("pattern: count_rect has no closed form for BigBird; use its key intervals");
}

}  // namespace attn::approx::detail

namespace attn::approx {

std::vector<std::size_t> bigbird_random_blocks(const SparsePattern& p, std::size_t n, std::size_t row_block) {
    validate_pattern(p, n);
    if (p.kind != PatternKind::bigbird) throw Error("pattern: bigbird_random_blocks needs a BigBird pattern");
    const std::size_t blocks = detail::block_count(n, p.block), global = std::min(p.global, blocks);
    if (row_block >= blocks) {
        throw Error("row_block: must be in [0, " + std::to_string(blocks - 1) + "], got " + std::to_string(row_block));
    }
    if (row_block < global) return {};
    // Excluded key blocks: the window and the global blocks, as sorted disjoint intervals.
    const std::size_t w_lo = row_block > p.one_sided_window ? row_block - p.one_sided_window : 0;
    const std::size_t w_hi = std::min(blocks - 1, row_block + p.one_sided_window);
    std::vector<std::pair<std::size_t, std::size_t>> excluded;  // inclusive
    if (global > 0 && global >= w_lo) {
        excluded.push_back({0, std::max(global - 1, w_hi)});
    } else {
        if (global > 0) excluded.push_back({0, global - 1});
        excluded.push_back({w_lo, w_hi});
    }
    std::size_t available = blocks;
    for (auto [a, b] : excluded) available -= b - a + 1;
    const std::size_t draws = std::min(p.random_blocks, available);

    // Floyd's algorithm: `draws` distinct indices of [0, available), uniform, from a counter-based
    // hash of (seed, row block, step), so a block's choice does not depend on N's other blocks.
    std::vector<std::size_t> chosen;
    const std::uint64_t row_seed = p.seed ^ splitmix64(row_block);
    for (std::size_t t = available - draws; t < available; ++t) {
        const auto x = static_cast<std::size_t>(uniform_from_hash(row_seed, t) * static_cast<double>(t + 1));
        const std::size_t pick = std::min(x, t);
        chosen.push_back(std::find(chosen.begin(), chosen.end(), pick) == chosen.end() ? pick : t);
    }
    // Index among the available blocks -> block id, skipping the excluded intervals in order.
    for (std::size_t& c : chosen) {
        for (auto [a, b] : excluded) {
            if (c >= a) c += b - a + 1;
        }
    }
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

}  // namespace attn::approx

namespace attn::approx::detail {

std::vector<std::pair<std::size_t, std::size_t>> bigbird_key_intervals(const SparsePattern& p, std::size_t n,
                                                                       std::size_t row_block) {
    const std::size_t blocks = block_count(n, p.block), global = std::min(p.global, blocks);
    if (row_block < global) return {{0, n}};
    std::vector<std::pair<std::size_t, std::size_t>> key_blocks;  // [first, last] in blocks
    if (global > 0) key_blocks.push_back({0, global - 1});
    key_blocks.push_back({row_block > p.one_sided_window ? row_block - p.one_sided_window : 0,
                          std::min(blocks - 1, row_block + p.one_sided_window)});
    for (std::size_t b : bigbird_random_blocks(p, n, row_block)) key_blocks.push_back({b, b});
    std::sort(key_blocks.begin(), key_blocks.end());

    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (auto [a, b] : key_blocks) {
        const std::size_t first = a * p.block, end = std::min(n, (b + 1) * p.block);
        if (!out.empty() && first <= out.back().second) {
            out.back().second = std::max(out.back().second, end);
        } else {
            out.push_back({first, end});
        }
    }
    return out;
}

}  // namespace attn::approx::detail
