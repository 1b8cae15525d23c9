// The pattern-zoo figure draws N up to 8192 (and beyond) in a few hundred pixels. Each pixel is a
// rectangle of cells; its allowed-cell count comes from the closed-form rectangle counts (one O(1)
// evaluation per pixel), or for BigBird from its per-block key intervals spread over the pixel
// grid with difference arrays, so no N x N mask is ever built.
#include <algorithm>
#include <string>

#include "attn/approx/sparse_patterns.hpp"
#include "sparse_geometry.hpp"

namespace attn::approx {
namespace {

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
    if (pattern.kind == PatternKind::bigbird) {
        img.allowed = bigbird_image(pattern, n, img.edges);
        return img;
    }
    img.allowed.resize(pixels * pixels);
    for (std::size_t p = 0; p < pixels; ++p) {
        for (std::size_t c = 0; c < pixels; ++c) {
            const detail::Rect r{static_cast<detail::i64>(img.edges[p]), static_cast<detail::i64>(img.edges[p + 1]),
                                 static_cast<detail::i64>(img.edges[c]), static_cast<detail::i64>(img.edges[c + 1])};
            img.allowed[p * pixels + c] = detail::count_rect(pattern, n, r);
        }
    }
    return img;
}

}  // namespace attn::approx
