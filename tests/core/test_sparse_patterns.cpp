#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "attn/approx/sparse_patterns.hpp"
#include "attn/attention/sdpa.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::approx;
using attn::test::check_error;
using attn::test::next_seed;

namespace {

std::set<std::size_t> row_of(const std::vector<std::uint8_t>& mask, std::size_t n, std::size_t i) {
    std::set<std::size_t> out;
    for (std::size_t j = 0; j < n; ++j) {
        if (mask[i * n + j]) out.insert(j);
    }
    return out;
}

std::uint64_t count_true(const std::vector<std::uint8_t>& mask) {
    return static_cast<std::uint64_t>(std::count(mask.begin(), mask.end(), std::uint8_t{1}));
}

std::string describe(const SparsePattern& p) {
    return "kind " + std::to_string(static_cast<int>(p.kind)) + " stride " + std::to_string(p.stride) + " summary " +
           std::to_string(p.summary) + " window " + std::to_string(p.one_sided_window) + " dilation " +
           std::to_string(p.dilation) + " global " + std::to_string(p.global) + " block " + std::to_string(p.block) +
           " random " + std::to_string(p.random_blocks) + " seed " + std::to_string(p.seed);
}

// Every kind, with parameters that scale with N and edge cases: window >= N, globals inside the
// window or spanning many pixels, stride 1 and stride > N, c = l, l = N, dilation > N, block > N,
// random blocks beyond what is free.
std::vector<SparsePattern> patterns_for(std::size_t n, std::uint64_t seed) {
    const auto root = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
    return {dense_pattern(),
            causal_pattern(),
            strided_pattern(root),
            strided_pattern(1),
            strided_pattern(3),
            strided_pattern(n + 5),
            fixed_pattern(root, 1),
            fixed_pattern(root, root),
            fixed_pattern(7, 3),
            fixed_pattern(1, 1),
            longformer_pattern(4, 2),
            longformer_pattern(3, 0, 3),
            longformer_pattern(n, 1),
            longformer_pattern(2, 5, 2),
            longformer_pattern(5, n + 1, n + 2),
            longformer_pattern(2, 3, n + 1),
            longformer_pattern(n + 7, 1, 2),  // a window reaching past N in steps of 2
            longformer_pattern(3, n / 3 + 1, 2),  // globals spanning several pixels
            fixed_pattern(n, std::min<std::size_t>(n, 2)),  // one block: causal, nothing earlier
            bigbird_pattern(4, 1, 1, 2, seed),
            bigbird_pattern(3, 0, 0, 3, seed + 1),
            bigbird_pattern(5, 2, 2, 64, seed + 2),
            bigbird_pattern(n + 3, 1, 0, 1, seed + 3),
            bigbird_pattern(1, 3, 4, 5, seed + 4)};
}

// The mask summed over each pixel, the way a reader would down-sample it.
std::vector<std::uint64_t> downsample(const std::vector<std::uint8_t>& mask, std::size_t n,
                                      const std::vector<std::size_t>& edges) {
    const std::size_t pixels = edges.size() - 1;
    std::vector<std::uint64_t> out(pixels * pixels, 0);
    for (std::size_t p = 0; p < pixels; ++p) {
        for (std::size_t c = 0; c < pixels; ++c) {
            for (std::size_t i = edges[p]; i < edges[p + 1]; ++i) {
                for (std::size_t j = edges[c]; j < edges[c + 1]; ++j) out[p * pixels + c] += mask[i * n + j];
            }
        }
    }
    return out;
}

}  // namespace

TEST_CASE("Sparse Transformer strided and fixed masks follow Child et al. Sec. 4.2") {
    // Strided, l = 3, row 9: A(1) = {6, 7, 8, 9} (t = i - l), A(2) = {0, 3, 6, 9}.
    const auto strided = pattern_mask(strided_pattern(3), 10);
    CHECK(row_of(strided, 10, 9) == std::set<std::size_t>{0, 3, 6, 7, 8, 9});
    CHECK(row_of(strided, 10, 0) == std::set<std::size_t>{0});
    CHECK(row_of(strided, 10, 2) == std::set<std::size_t>{0, 1, 2});
    // Fixed, l = 4, c = 1, row 9: its block {8, 9} (causal) and the last position of each block: 3, 7.
    const auto fixed = pattern_mask(fixed_pattern(4, 1), 12);
    CHECK(row_of(fixed, 12, 9) == std::set<std::size_t>{3, 7, 8, 9});
    // c = 2: positions 2, 3 and 6, 7 summarise their blocks.
    CHECK(row_of(pattern_mask(fixed_pattern(4, 2), 12), 12, 9) == std::set<std::size_t>{2, 3, 6, 7, 8, 9});
    // Both patterns are causal: nothing above the diagonal.
    for (std::size_t i = 0; i < 12; ++i) {
        for (std::size_t j = i + 1; j < 12; ++j) CHECK_FALSE(fixed[i * 12 + j]);
    }
    CHECK(pattern_is_causal(strided_pattern(3)));
    CHECK_FALSE(pattern_is_causal(longformer_pattern(2, 1)));
}

TEST_CASE("Longformer masks are dilated windows with symmetric global tokens") {
    const std::size_t n = 9;
    // One side 1, dilation 2, one global token: row 5 sees 3, 5, 7 and the global token 0.
    const auto mask = pattern_mask(longformer_pattern(1, 1, 2), n);
    CHECK(row_of(mask, n, 5) == std::set<std::size_t>{0, 3, 5, 7});
    CHECK(row_of(mask, n, 0).size() == n);  // the global token attends everywhere
    for (std::size_t i = 0; i < n; ++i) CHECK(mask[i * n + 0] == 1);  // and everyone attends to it
    // Without dilation, window 2: rows see i-2 .. i+2 clipped to the sequence.
    CHECK(row_of(pattern_mask(longformer_pattern(2, 0), n), n, 1) == std::set<std::size_t>{0, 1, 2, 3});
}

TEST_CASE("BigBird random blocks avoid the window and the globals and are seeded") {
    const std::size_t n = 64, block = 4;  // 16 blocks
    const std::uint64_t seed = next_seed();
    INFO("seed " << seed);
    const SparsePattern p = bigbird_pattern(block, 1, 2, 3, seed);
    bool some_differ = false;
    for (std::size_t rb = 0; rb < 16; ++rb) {
        const auto chosen = bigbird_random_blocks(p, n, rb);
        if (rb < 2) {
            CHECK(chosen.empty());  // global query blocks already see everything
            continue;
        }
        CHECK(chosen.size() == 3);
        CHECK(std::set<std::size_t>(chosen.begin(), chosen.end()).size() == 3);
        for (std::size_t b : chosen) {
            CHECK(b < 16);
            CHECK(b >= 2);                                 // not global
            CHECK((b + 1 < rb || b > rb + 1));             // not in the window
        }
        CHECK(chosen == bigbird_random_blocks(p, n, rb));  // reproducible
        some_differ |= chosen != bigbird_random_blocks(bigbird_pattern(block, 1, 2, 3, seed + 1), n, rb);
    }
    CHECK(some_differ);
    // More random blocks than free ones: every free block is taken, so the row is dense.
    const SparsePattern all = bigbird_pattern(block, 1, 2, 64, seed);
    CHECK(bigbird_random_blocks(all, n, 8).size() == 16 - 2 - 3);
    CHECK(row_of(pattern_mask(all, n), n, 8 * block).size() == n);
    // A mask row of a non-global block holds exactly window + global + random blocks.
    const auto mask = pattern_mask(p, n);
    CHECK(row_of(mask, n, 8 * block + 1).size() == (3 + 2 + 3) * block);

    // The random draw is uniform over the free blocks: with r = 1, each of the 11 free blocks of
    // query block 8 is chosen by about 1/11 of 2200 seeds (binomial sd ~ 14; allow 5 sd).
    std::vector<int> hits(16, 0);
    for (std::uint64_t s = 0; s < 2200; ++s) ++hits[bigbird_random_blocks(bigbird_pattern(block, 1, 2, 1, seed + s), n, 8)[0]];
    for (std::size_t b = 0; b < 16; ++b) {
        INFO("block " << b);
        if (b < 2 || (b >= 7 && b <= 9)) CHECK(hits[b] == 0);
        else CHECK(std::abs(hits[b] - 200) < 70);
    }
}

TEST_CASE("Analytic entry counts equal the counted cells of the mask for every pattern and N") {
    const std::uint64_t seed = next_seed();
    INFO("seed " << seed);
    std::vector<std::size_t> lengths;
    for (std::size_t n = 1; n <= 64; ++n) lengths.push_back(n);
    for (std::size_t n = 65; n <= 700; n += 23) lengths.push_back(n);  // odd and even alternate
    lengths.push_back(701);
    for (std::size_t n : lengths) {
        for (const SparsePattern& p : patterns_for(n, seed + n)) {
            INFO("N " << n << " " << describe(p));
            const auto mask = pattern_mask(p, n);
            const PatternStats s = pattern_stats(p, n, 64, 32, 2);
            REQUIRE(s.entries == count_true(mask));
            CHECK(s.flops == s.entries * (2 * 64 + 2 * 32 + 2));
            CHECK(s.score_bytes == 2 * s.entries);
            CHECK(s.density == doctest::Approx(static_cast<double>(s.entries) / (double(n) * double(n))));
        }
    }
}

TEST_CASE("The density image equals the down-sampled mask exactly") {
    const std::uint64_t seed = next_seed();
    INFO("seed " << seed);
    // Pixel counts that divide N and that do not (pixels hold floor(N / P) or one more cell per side).
    for (std::size_t n : {1u, 3u, 17u, 113u, 127u, 129u, 300u, 1000u}) {
        for (std::size_t pixels : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::min<std::size_t>(n, 64),
                                   std::min<std::size_t>(n, 333), n}) {
            if (pixels > n) continue;
            for (const SparsePattern& p : patterns_for(n, seed + n)) {
                INFO("N " << n << " pixels " << pixels << " " << describe(p));
                const DensityImage img = pattern_density_image(p, n, pixels);
                REQUIRE(img.edges.size() == pixels + 1);
                CHECK(img.edges.front() == 0);
                CHECK(img.edges.back() == n);
                REQUIRE(img.allowed == downsample(pattern_mask(p, n), n, img.edges));
                const std::size_t mid = pixels / 2;
                const double cells = double(img.edges[mid + 1] - img.edges[mid]) * double(img.edges[1] - img.edges[0]);
                CHECK(img.fraction(mid, 0) == doctest::Approx(double(img.allowed[mid * pixels]) / cells));
            }
        }
    }
}

TEST_CASE("Large N: image and stats agree without materialising the mask") {
    const std::uint64_t seed = next_seed();
    INFO("seed " << seed);
    for (std::size_t n : {8192u, 8191u, 100003u}) {
        const auto root = static_cast<std::size_t>(std::ceil(std::sqrt(double(n))));
        for (const SparsePattern& p : {strided_pattern(root), fixed_pattern(root, 8), longformer_pattern(256, 2, 1),
                                       longformer_pattern(64, 1, 4), bigbird_pattern(64, 1, 2, 3, seed)}) {
            INFO("N " << n << " " << describe(p));
            const DensityImage img = pattern_density_image(p, n, 256);
            std::uint64_t sum = 0;
            for (auto a : img.allowed) sum += a;
            CHECK(sum == pattern_stats(p, n).entries);
        }
    }
    // Beyond what a mask can check: edge(c) at P pixels is edge(4c) at 4P, so the coarse image is
    // the fine one summed over 4 x 4 blocks, up to the largest N (products near 2^48 included).
    for (std::size_t n : {8191u, 1000003u, 1u << 24}) {
        const auto root = static_cast<std::size_t>(std::ceil(std::sqrt(double(n))));
        for (const SparsePattern& p : {causal_pattern(), strided_pattern(root), strided_pattern(n / 3 + 7),
                                       fixed_pattern(root, 5), fixed_pattern(n / 5 + 1, n / 7), longformer_pattern(256, 2, 1),
                                       longformer_pattern(n / 9, n / 4, 3), bigbird_pattern(n / 100, 1, 2, 3, seed)}) {
            INFO("N " << n << " " << describe(p));
            const std::size_t coarse_pixels = 128, k = 4;
            const DensityImage coarse = pattern_density_image(p, n, coarse_pixels);
            const DensityImage fine = pattern_density_image(p, n, k * coarse_pixels);
            std::vector<std::uint64_t> summed(coarse_pixels * coarse_pixels, 0);
            for (std::size_t r = 0; r < k * coarse_pixels; ++r) {
                for (std::size_t c = 0; c < k * coarse_pixels; ++c) {
                    summed[(r / k) * coarse_pixels + c / k] += fine.allowed[r * k * coarse_pixels + c];
                }
            }
            CHECK(summed == coarse.allowed);
            std::uint64_t sum = 0;
            for (auto a : coarse.allowed) sum += a;
            CHECK(sum == pattern_stats(p, n).entries);
        }
    }

    // The Sparse Transformer's point: with l = sqrt(N) the strided pattern holds O(N sqrt N)
    // entries. Per row: min(i, l) + 1 local keys plus floor(i / l) strided ones, less the overlap
    // (i itself, and i - l when i >= l).
    const std::size_t n = 1000000, l = 1000;
    std::uint64_t expected = 0;
    for (std::size_t i = 0; i < n; ++i) expected += std::min(i, l) + 1 + i / l + 1 - 1 - (i >= l ? 1 : 0);
    CHECK(pattern_stats(strided_pattern(l), n).entries == expected);
}

TEST_CASE("Sparse attention equals attention over each row's allowed keys") {
    const std::uint64_t seed = next_seed();
    INFO("seed " << seed);
    for (std::size_t n : {1u, 17u, 113u}) {
        const auto in = test::random_qkv({2, 2, n, 8}, 2, n, 5, seed + n);
        for (const SparsePattern& p : patterns_for(n, seed)) {
            INFO("N " << n << " " << describe(p));
            const ApproxResult r = sparse_attention(in.q, in.k, in.v, p);
            const auto mask = pattern_mask(p, n);
            // Reference: for a few rows, gather the allowed keys and run unmasked sdpa on them.
            for (std::size_t i : {std::size_t{0}, n / 2, n - 1}) {
                const auto keys = row_of(mask, n, i);
                const std::size_t m = keys.size();
                REQUIRE(m >= 1);  // every pattern lets a query see itself
                Tensor4<double> q1({1, 1, 1, 8}), k1({1, 1, m, 8}), v1({1, 1, m, 5});
                std::copy_n(in.q.row(1, 1, i), 8, q1.row(0, 0, 0));
                std::size_t slot = 0;
                for (std::size_t j : keys) {
                    std::copy_n(in.k.row(1, 1, j), 8, k1.row(0, 0, slot));
                    std::copy_n(in.v.row(1, 1, j), 5, v1.row(0, 0, slot));
                    ++slot;
                }
                const auto ref = sdpa(q1, k1, v1);
                for (std::size_t c = 0; c < 5; ++c) CHECK(r.output.at(1, 1, i, c) == doctest::Approx(ref.output.at(0, 0, 0, c)).epsilon(1e-12));
            }
            const PatternStats s = pattern_stats(p, n, 8, 5, 8);
            CHECK(r.cost.score_entries == 4 * s.entries);
            CHECK(r.cost.flops == 4 * s.flops);
            CHECK(r.cost.peak_bytes == 4 * s.entries * 8);
        }
    }
}

TEST_CASE("Sparse attention error vs dense: zero when the pattern covers the reference, positive otherwise") {
    const std::uint64_t seed = next_seed();
    INFO("seed " << seed);
    const std::size_t n = 127;
    const auto in = test::random_qkv({1, 2, n, 16}, 2, n, 16, seed);
    // Covering patterns (tolerance: double rounding of the same sums in a different order).
    for (const SparsePattern& p : {dense_pattern(), longformer_pattern(n, 0), causal_pattern(), strided_pattern(n),
                                   fixed_pattern(n, 1), bigbird_pattern(8, 0, 0, 64, seed)}) {
        INFO(describe(p));
        const ApproxResult r = sparse_attention(in.q, in.k, in.v, p);
        CHECK(r.error.relative_frobenius < 1e-13);
        CHECK(r.error.max_abs < 1e-13);
    }
    // Sparse patterns drop keys, so the output moves; the counted work shrinks accordingly.
    const CostCounts dense = dense_cost(in.q.shape, in.k.shape, 16);
    for (const SparsePattern& p : {strided_pattern(11), fixed_pattern(11, 2), longformer_pattern(4, 1),
                                   bigbird_pattern(8, 1, 1, 2, seed)}) {
        INFO(describe(p));
        const ApproxResult r = sparse_attention(in.q, in.k, in.v, p);
        CHECK(r.error.relative_frobenius > 1e-3);
        CHECK(std::isfinite(r.error.relative_frobenius));
        CHECK(r.cost.score_entries < dense.score_entries / 2);
        CHECK(r.cost.flops < dense.flops / 2);
    }
}

TEST_CASE("Sparse pattern functions reject bad arguments") {
    check_error([] { pattern_stats(strided_pattern(0), 10); }, "stride: must be in [1, ");
    check_error([] { pattern_stats(fixed_pattern(4, 5), 10); }, "summary: must be in [1, 4], got 5");
    check_error([] { pattern_stats(fixed_pattern(4, 0), 10); }, "summary");
    check_error([] { pattern_stats(longformer_pattern(2, 1, 0), 10); }, "dilation: must be in [1, ");
    check_error([] { pattern_stats(bigbird_pattern(0, 1, 1, 1, 0), 10); }, "block: must be in [1, ");
    check_error([] { pattern_stats(bigbird_pattern(4, 1, 1, 65, 0), 10); }, "random_blocks: must be in [0, 64], got 65");
    check_error([] { pattern_stats(dense_pattern(), 0); }, "seq_len: must be in [1, 16777216], got 0");
    check_error([] { pattern_stats(dense_pattern(), kMaxPatternLength + 1); }, "seq_len");
    check_error([] { pattern_stats(dense_pattern(), 10, 0); }, "head_dim");
    check_error([] { pattern_stats(dense_pattern(), 10, 64, 64, 0); }, "bytes_per_score");
    check_error([] { pattern_mask(dense_pattern(), 5000); }, "seq_len: must be in [1, 4096], got 5000");
    check_error([] { pattern_density_image(dense_pattern(), 10, 11); }, "pixels: must be in [1, min(seq_len, 2048)] = [1, 10], got 11");
    check_error([] { pattern_density_image(dense_pattern(), 10000, 0); }, "pixels");
    check_error([] { pattern_density_image(dense_pattern(), 10, 4).fraction(4, 0); }, "pixel: (p, c) must be in [0, 3]");
    check_error([] { bigbird_random_blocks(dense_pattern(), 10, 0); }, "needs a BigBird pattern");
    check_error([] { bigbird_random_blocks(bigbird_pattern(4, 1, 1, 1, 0), 10, 3); }, "row_block: must be in [0, 2], got 3");
    SparsePattern bad;
    bad.kind = static_cast<PatternKind>(99);
    check_error([&] { pattern_stats(bad, 10); }, "kind");
    const auto in = test::random_qkv({1, 1, 5, 4}, 1, 6, 4, 1);
    check_error([&] { sparse_attention(in.q, in.k, in.v, dense_pattern()); }, "key: sparse patterns are self-attention");
    const auto gqa = test::random_qkv({1, 2, 5, 4}, 1, 5, 4, 1);
    check_error([&] { sparse_attention(gqa.q, gqa.k, gqa.v, dense_pattern()); }, "one K/V head per query head");
}
