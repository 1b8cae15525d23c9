// The pattern-zoo figure draws N up to 8192 (and beyond) in a few hundred pixels, and must redraw
// within a frame. No N x N mask is ever built:
//  * every kind but BigBird is read off one grid of (P + 1)^2 values V(a, b) at the pixel edges,
//    V(a, b) = the allowed cells of [0, e_a) x [0, e_b) up to terms in a alone or b alone, which
//    cancel in allowed(p, c) = V(p+1, c+1) - V(p, c+1) - V(p+1, c) + V(p, c). Each V is a few
//    multiplications and table look-ups: the divisions of the closed forms are spent O(P) times
//    building the tables, not once per pixel (a 512-pixel image has 262,144 pixels);
//  * BigBird spreads its per-block key intervals over the pixel grid with difference arrays.
#include <algorithm>
#include <string>
#include <utility>

#include "attn/approx/sparse_patterns.hpp"
#include "sparse_geometry.hpp"

namespace attn::approx {
namespace {

using detail::i64;

// allowed(p, c) from the edge grid V, computed one row of V at a time. The loops index raw
// pointers: the size-optimised WebAssembly build (-Oz) does not inline vector::operator[].
template <class Grid>
std::vector<std::uint64_t> image_from_grid(std::size_t pixels, const Grid& v) {
    std::vector<std::uint64_t> out(pixels * pixels);
    std::vector<i64> rows(2 * (pixels + 1));
    i64* prev = rows.data();
    i64* cur = prev + pixels + 1;
    for (std::size_t b = 0; b <= pixels; ++b) prev[b] = v(0, b);
    for (std::size_t p = 0; p < pixels; ++p) {
        for (std::size_t b = 0; b <= pixels; ++b) cur[b] = v(p + 1, b);
        std::uint64_t* row = out.data() + p * pixels;
        for (std::size_t c = 0; c < pixels; ++c) {
            row[c] = static_cast<std::uint64_t>(cur[c + 1] - prev[c + 1] - cur[c] + prev[c]);
        }
        std::swap(prev, cur);
    }
    return out;
}

// The diagonal ramp D (detail::diagonal_ramp, summed over the pattern's diagonals) at every
// difference of two pixel edges. e_a - e_b = floor(a N / P) - floor(b N / P) is floor((a - b) N / P)
// or one more, so 2 (2P + 1) values cover the grid, looked up without dividing.
class EdgeRamp {
public:
    EdgeRamp(const detail::Diagonals& diagonals, const std::vector<std::size_t>& edges, std::size_t n)
        : diagonals_(diagonals), edges_(edges), pixels_(edges.size() - 1) {
        const auto len = static_cast<i64>(n), p = static_cast<i64>(pixels_);
        floor_diff_.resize(2 * pixels_ + 1);
        table_.resize(2 * floor_diff_.size());
        for (i64 k = -p; k <= p; ++k) {
            const i64 floor_diff = k >= 0 ? k * len / p : -((-k * len + p - 1) / p);
            floor_diff_[static_cast<std::size_t>(k + p)] = floor_diff;
            table_[2 * static_cast<std::size_t>(k + p)] = (*this)(floor_diff);
            table_[2 * static_cast<std::size_t>(k + p) + 1] = (*this)(floor_diff + 1);
        }
    }

    // D(x) for any x.
    i64 operator()(i64 x) const {
        i64 sum = 0;
        for (int k = 0; k < diagonals_.count; ++k) sum += detail::diagonal_ramp(diagonals_.parts[k], x);
        return sum;
    }

    // D(e_a - e_b).
    i64 at_edges(std::size_t a, std::size_t b) const {
        const std::size_t k = a + pixels_ - b;
        const std::size_t* e = edges_.data();
        const i64 diff = static_cast<i64>(e[a]) - static_cast<i64>(e[b]);
        return table_.data()[2 * k + static_cast<std::size_t>(diff - floor_diff_.data()[k])];
    }

private:
    detail::Diagonals diagonals_;
    const std::vector<std::size_t>& edges_;
    std::size_t pixels_;
    std::vector<i64> floor_diff_;  // floor((a - b) N / P), indexed by a - b + P
    std::vector<i64> table_;       // D(floor_diff), D(floor_diff + 1)
};

// Fixed (Child et al. Sec. 4.2): (i, j) is allowed iff j <= i and j is in i's block or a summary
// column, so with x's block starting at s = floor(x / l) l and m = min(x, y),
//   F(x, y) = sum_{j < min(m, s)} [summary(j) (x - j) + (1 - summary(j)) ((floor(j / l) + 1) l - j)]
//           + sum_{s <= j < m} (x - j),
// i.e. prefix sums over the columns (detail::fixed_prefix) at the edges and at each edge's s.
class FixedGrid {
public:
    FixedGrid(const SparsePattern& p, const std::vector<std::size_t>& edges) : edges_(edges) {
        const auto l = static_cast<i64>(p.stride), c = static_cast<i64>(p.summary);
        for (std::size_t t = 0; t < edges.size(); ++t) {
            const auto x = static_cast<i64>(edges[t]);
            const detail::FixedPrefix at_edge = detail::fixed_prefix(l, c, x);
            at_edge_.push_back(at_edge);
            block_start_.push_back(x / l * l);
            const detail::FixedPrefix at_start = detail::fixed_prefix(l, c, block_start_.back());
            before_block_.push_back(x * at_start.summary - at_start.summary_index_sum + at_start.local_to_block_end);
        }
    }

    i64 operator()(std::size_t a, std::size_t b) const {
        const std::size_t* e = edges_.data();
        const auto x = static_cast<i64>(e[a]);
        const std::size_t min_index = std::min(a, b);
        const auto m = static_cast<i64>(e[min_index]), s = block_start_.data()[a];
        if (m <= s) {
            const detail::FixedPrefix& f = at_edge_.data()[min_index];
            return x * f.summary - f.summary_index_sum + f.local_to_block_end;
        }
        return before_block_.data()[a] + (m - s) * x - (s + m - 1) * (m - s) / 2;
    }

private:
    const std::vector<std::size_t>& edges_;
    std::vector<detail::FixedPrefix> at_edge_;
    std::vector<i64> block_start_;   // floor(e_a / l) l
    std::vector<i64> before_block_;  // F's first sum at (e_a, y) once y >= block_start_[a]
};

// Longformer (Beltagy et al. Sec. 3.1): global rows see everything, the other rows the global
// columns, F_global(x, y) = min(x, g) y + max(0, x - g) min(y, g); the window counts only in
// [g, N)^2, where it holds D(x' - g) - D(0) - D(x' - y') + D(g - y') cells of [g, x') x [g, y')
// with x' = max(x, g), y' = max(y, g); only -D(x' - y') is not a term in a or b alone.
class LongformerGrid {
public:
    LongformerGrid(const SparsePattern& p, const std::vector<std::size_t>& edges, std::size_t n)
        : edges_(edges), global_(static_cast<i64>(std::min(p.global, n))),
          ramp_(detail::pattern_diagonals(p, n), edges, n), ramp_at_zero_(ramp_(0)) {
        for (std::size_t t = 0; t < edges.size(); ++t) {
            const auto x = static_cast<i64>(edges[t]);
            ramp_from_global_.push_back(x >= global_ ? ramp_(x - global_) : 0);
            ramp_to_global_.push_back(x >= global_ ? ramp_(global_ - x) : 0);
        }
    }

    i64 operator()(std::size_t a, std::size_t b) const {
        const std::size_t* e = edges_.data();
        const auto x = static_cast<i64>(e[a]), y = static_cast<i64>(e[b]), g = global_;
        const i64 global = std::min(x, g) * y + std::max<i64>(0, x - g) * std::min(y, g);
        i64 ramp = ramp_at_zero_;  // x' - y' = 0
        if (x >= g && y >= g) ramp = ramp_.at_edges(a, b);
        else if (x >= g) ramp = ramp_from_global_.data()[a];
        else if (y >= g) ramp = ramp_to_global_.data()[b];
        return global - ramp;
    }

private:
    const std::vector<std::size_t>& edges_;
    i64 global_;
    EdgeRamp ramp_;
    i64 ramp_at_zero_;
    std::vector<i64> ramp_from_global_;  // D(e_a - g) for e_a >= g
    std::vector<i64> ramp_to_global_;    // D(g - e_b) for e_b >= g
};

// Pixel whose range [edge(c), edge(c + 1)) holds cell x: the largest c with floor(c N / P) <= x,
// i.e. ceil((x + 1) P / N) - 1.
std::size_t pixel_of(std::size_t x, std::size_t n, std::size_t pixels) {
    const std::uint64_t num = (static_cast<std::uint64_t>(x) + 1) * pixels;
    return static_cast<std::size_t>((num + n - 1) / n - 1);
}

// Adds `weight` rows' worth of key interval [first, end) to one pixel row: partial pixels at the
// ends directly, the whole pixels between through a difference array of "rows covering the
// whole pixel", multiplied by the pixel width when resolved.
struct PixelRowAccumulator {
    const std::vector<std::size_t>& edges;
    std::size_t n, pixels;
    std::vector<std::uint64_t> partial;  // pixels x pixels
    std::vector<std::int64_t> whole;     // pixels x (pixels + 1), difference form

    void add(std::size_t pixel_row, std::uint64_t weight, std::size_t first, std::size_t end) {
        const std::size_t a = pixel_of(first, n, pixels), b = pixel_of(end - 1, n, pixels);
        std::uint64_t* part = partial.data() + pixel_row * pixels;
        if (a == b) {
            part[a] += weight * (end - first);
            return;
        }
        part[a] += weight * (edges[a + 1] - first);
        part[b] += weight * (end - edges[b]);
        std::int64_t* diff = whole.data() + pixel_row * (pixels + 1);
        diff[a + 1] += static_cast<std::int64_t>(weight);
        diff[b] -= static_cast<std::int64_t>(weight);
    }

    std::vector<std::uint64_t> resolve() const {
        std::vector<std::uint64_t> out(partial);
        for (std::size_t p = 0; p < pixels; ++p) {
            std::int64_t covering = 0;
            for (std::size_t c = 0; c < pixels; ++c) {
                covering += whole[p * (pixels + 1) + c];
                out[p * pixels + c] += static_cast<std::uint64_t>(covering) * (edges[c + 1] - edges[c]);
            }
        }
        return out;
    }
};

std::vector<std::uint64_t> bigbird_image(const SparsePattern& p, std::size_t n, const std::vector<std::size_t>& edges) {
    const std::size_t pixels = edges.size() - 1;
    PixelRowAccumulator acc{edges, n, pixels, std::vector<std::uint64_t>(pixels * pixels, 0),
                            std::vector<std::int64_t>(pixels * (pixels + 1), 0)};
    for (std::size_t row_block = 0; row_block * p.block < n; ++row_block) {
        const std::size_t r0 = row_block * p.block, r1 = std::min(n, r0 + p.block);
        const auto intervals = detail::bigbird_key_intervals(p, n, row_block);
        // The block's rows fall into one or more pixel rows; each gets the rows it holds.
        for (std::size_t pr = pixel_of(r0, n, pixels); pr < pixels && edges[pr] < r1; ++pr) {
            const std::uint64_t rows = std::min(r1, edges[pr + 1]) - std::max(r0, edges[pr]);
            for (auto [first, end] : intervals) acc.add(pr, rows, first, end);
        }
    }
    return acc.resolve();
}

}  // namespace

namespace detail {

DensityImage empty_density_image(std::size_t n, std::size_t pixels) {
    const std::size_t max_pixels = std::min<std::size_t>(n, 2048);
    if (pixels < 1 || pixels > max_pixels) {
        throw Error("pixels: must be in [1, min(seq_len, 2048)] = [1, " + std::to_string(max_pixels) + "], got " +
                    std::to_string(pixels));
    }
    DensityImage img;
    img.pixels = pixels;
    img.edges.resize(pixels + 1);
    for (std::size_t c = 0; c <= pixels; ++c) {
        img.edges[c] = static_cast<std::size_t>(static_cast<std::uint64_t>(c) * n / pixels);
    }
    img.allowed.assign(pixels * pixels, 0);
    return img;
}

}  // namespace detail

double DensityImage::fraction(std::size_t p, std::size_t c) const {
    if (p >= pixels || c >= pixels) {
        throw Error("pixel: (p, c) must be in [0, " + std::to_string(pixels - 1) + "], got (" + std::to_string(p) +
                    ", " + std::to_string(c) + ")");
    }
    const double cells = static_cast<double>(edges[p + 1] - edges[p]) * static_cast<double>(edges[c + 1] - edges[c]);
    return static_cast<double>(allowed[p * pixels + c]) / cells;
}

DensityImage pattern_density_image(const SparsePattern& pattern, std::size_t n, std::size_t pixels) {
    validate_pattern(pattern, n);
    DensityImage img = detail::empty_density_image(n, pixels);
    const auto& edges = img.edges;
    switch (pattern.kind) {
        case PatternKind::dense:
            img.allowed = image_from_grid(pixels, [e = edges.data()](std::size_t a, std::size_t b) {
                return static_cast<i64>(e[a]) * static_cast<i64>(e[b]);
            });
            break;
        case PatternKind::causal:
        case PatternKind::strided: {
            // Only diagonals: V(a, b) = -D(e_a - e_b) (see detail::diagonal_ramp).
            const EdgeRamp ramp(detail::pattern_diagonals(pattern, n), edges, n);
            img.allowed = image_from_grid(pixels, [&](std::size_t a, std::size_t b) { return -ramp.at_edges(a, b); });
            break;
        }
        case PatternKind::fixed:
            img.allowed = image_from_grid(pixels, FixedGrid(pattern, edges));
            break;
        case PatternKind::longformer:
            img.allowed = image_from_grid(pixels, LongformerGrid(pattern, edges, n));
            break;
        case PatternKind::bigbird:
            img.allowed = bigbird_image(pattern, n, edges);
            break;
    }
    return img;
}

}  // namespace attn::approx
