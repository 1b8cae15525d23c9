#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "attn/approx/complexity.hpp"
#include "attn/approx/linformer.hpp"
#include "attn/approx/lsh_attention.hpp"
#include "attn/approx/performer.hpp"
#include "attn/approx/sparse_patterns.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::approx;
using attn::test::check_error;

namespace {

// Local slope of log(y) against log(N) between N and 10 N.
double growth_exponent(ComplexityMethod m, std::size_t n, std::uint64_t ComplexityPoint::*field,
                       const ComplexityParams& p = {}) {
    const double a = static_cast<double>(complexity_point(m, n, p).*field);
    const double b = static_cast<double>(complexity_point(m, 10 * n, p).*field);
    return std::log10(b / a);
}

}  // namespace

TEST_CASE("Dense memory reproduces the plan's N-squared table at FP16") {
    // One head's N x N scores at 2 bytes: 512 -> 0.5 MiB, 2k -> 8 MiB, 8k -> 128 MiB, 32k -> 2 GiB;
    // times 16 heads x 24 layers: 192 MiB, 3 GiB, 48 GiB, 768 GiB.
    const double mib = 1024.0 * 1024.0;
    const std::pair<std::size_t, double> rows[] = {{512, 0.5}, {2048, 8}, {8192, 128}, {32768, 2048}};
    for (auto [n, per_head_mib] : rows) {
        const ComplexityPoint d = complexity_point(ComplexityMethod::dense, n);
        CHECK(d.score_entries == std::uint64_t{n} * n);
        CHECK(static_cast<double>(d.peak_bytes) / mib == per_head_mib);
        CHECK(static_cast<double>(d.peak_bytes) * 16 * 24 / mib == per_head_mib * 384);
        CHECK(d.flops == std::uint64_t{n} * n * (2 * 64 + 2 * 64 + 2));
    }
}

TEST_CASE("Complexity points use each implementation's own counts") {
    ComplexityParams p;
    p.head_dim = 48;
    p.value_dim = 40;
    p.bytes_per_element = 8;  // the implementations' own width: no rescaling
    p.lsh_buckets = 16;
    p.lsh_rounds = 3;
    p.lsh_chunk = 32;
    p.linformer_k = 128;
    p.performer_features = 96;
    for (std::size_t n : {1u, 3u, 17u, 113u, 1000u, 65537u, 524288u}) {
        INFO("N " << n);
        const auto root = static_cast<std::size_t>(std::ceil(std::sqrt(double(n))));
        const PatternStats s = pattern_stats(strided_pattern(root), n, 48, 40, 8);
        const ComplexityPoint sparse = complexity_point(ComplexityMethod::sparse, n, p);
        CHECK(sparse.score_entries == s.entries);
        CHECK(sparse.flops == s.flops);
        CHECK(sparse.peak_bytes == s.score_bytes);

        LshOptions o;
        o.num_buckets = 16;
        o.num_rounds = 3;
        o.chunk_length = 32;
        const CostCounts lsh = lsh_attention_cost(1, n, 48, 40, o);
        const ComplexityPoint l = complexity_point(ComplexityMethod::lsh, n, p);
        CHECK(l.score_entries == lsh.score_entries);
        CHECK(l.flops == lsh.flops);
        CHECK(l.peak_bytes == lsh.peak_bytes);
        std::uint64_t log2n = 0;
        while ((std::uint64_t{1} << log2n) < n) ++log2n;
        CHECK(l.sort_comparisons == 3 * std::uint64_t{n} * log2n);

        const CostCounts perf = performer_cost(1, n, n, 48, 40, 96);
        const ComplexityPoint f = complexity_point(ComplexityMethod::performer, n, p);
        CHECK(f.score_entries == 0);
        CHECK(f.flops == perf.flops);
        CHECK(f.peak_bytes == perf.peak_bytes);

        // Linformer's formula is evaluated here (linformer_cost caps k N at 2^26 because the
        // method materialises E and F); it must agree wherever linformer_cost accepts N.
        const ComplexityPoint lin = complexity_point(ComplexityMethod::linformer, n, p);
        if (std::uint64_t{n} * 128 <= (std::uint64_t{1} << 26)) {
            const CostCounts c = linformer_cost(1, n, n, 48, 40, 128);
            CHECK(lin.score_entries == c.score_entries);
            CHECK(lin.flops == c.flops);
            CHECK(lin.peak_bytes == c.peak_bytes);
        }
        CHECK(lin.score_entries == std::uint64_t{n} * 128);
    }
    // Rescaling to FP16 keeps the element count: a quarter of the 8-byte figure.
    ComplexityParams half = p;
    half.bytes_per_element = 2;
    CHECK(complexity_point(ComplexityMethod::performer, 4096, half).peak_bytes * 4 ==
          complexity_point(ComplexityMethod::performer, 4096, p).peak_bytes);
}

TEST_CASE("Complexity curves grow as their big-O says up to a million tokens") {
    const auto curves = complexity_curves(16, 1000000, 60);
    REQUIRE(curves.size() == 6);
    for (const auto& c : curves) {
        INFO(c.name);
        REQUIRE(c.points.size() >= 40);
        CHECK(c.points.front().seq_len == 16);
        CHECK(c.points.back().seq_len == 1000000);
        for (std::size_t s = 1; s < c.points.size(); ++s) {
            CHECK(c.points[s].seq_len > c.points[s - 1].seq_len);
            CHECK(c.points[s].flops > c.points[s - 1].flops);
            CHECK(c.points[s].peak_bytes >= c.points[s - 1].peak_bytes);
        }
    }
    CHECK(curves[0].name == "dense");
    CHECK(curves[1].big_o == "N sqrt N");
    const auto flops = &ComplexityPoint::flops;
    const auto bytes = &ComplexityPoint::peak_bytes;
    CHECK(growth_exponent(ComplexityMethod::dense, 100000, flops) == doctest::Approx(2.0).epsilon(1e-6));
    CHECK(growth_exponent(ComplexityMethod::dense, 100000, bytes) == doctest::Approx(2.0).epsilon(1e-6));
    CHECK(growth_exponent(ComplexityMethod::sparse, 100000, flops) == doctest::Approx(1.5).epsilon(0.01));
    CHECK(growth_exponent(ComplexityMethod::linformer, 100000, flops) == doctest::Approx(1.0).epsilon(1e-3));
    CHECK(growth_exponent(ComplexityMethod::performer, 100000, flops) == doctest::Approx(1.0).epsilon(1e-3));
    // LSH: with fixed buckets and chunk its FLOPs are linear; the sort brings the log factor.
    CHECK(growth_exponent(ComplexityMethod::lsh, 100000, flops) == doctest::Approx(1.0).epsilon(1e-3));
    const double sort = growth_exponent(ComplexityMethod::lsh, 100000, &ComplexityPoint::sort_comparisons);
    CHECK(sort > 1.05);
    CHECK(sort < 1.25);
    // At a million tokens dense attention needs N^2 * 2 bytes = 2 TB for one head's scores.
    CHECK(curves[0].points.back().peak_bytes == 2000000000000ull);
    for (std::size_t m = 1; m < 6; ++m) CHECK(curves[m].points.back().peak_bytes < curves[0].points.back().peak_bytes / 100);
}

TEST_CASE("FlashAttention's curve: dense attention's FLOPs, linear extra memory") {
    ComplexityParams p;
    p.head_dim = 80;
    p.value_dim = 48;
    p.bytes_per_element = 2;
    for (std::size_t n : {1u, 3u, 17u, 63u, 64u, 113u, 4096u, 65537u, 1000000u}) {
        INFO("N " << n);
        const ComplexityPoint f = complexity_point(ComplexityMethod::flash, n, p);
        const ComplexityPoint d = complexity_point(ComplexityMethod::dense, n, p);
        CHECK(f.flops == d.flops);
        CHECK(f.score_entries == d.score_entries);
        CHECK(f.sort_comparisons == 0);
        // m and l for every row, plus one 64 x 64 score tile (smaller when N is).
        const std::uint64_t side = std::min<std::uint64_t>(n, 64);
        CHECK(f.peak_bytes == (2 * std::uint64_t{n} + side * side) * 2);
    }
    p.flash_block_q = 128;
    p.flash_block_k = 32;
    CHECK(complexity_point(ComplexityMethod::flash, 1000, p).peak_bytes == (2000 + 128 * 32) * 2);
    CHECK(growth_exponent(ComplexityMethod::flash, 100000, &ComplexityPoint::peak_bytes) == doctest::Approx(1.0).epsilon(0.01));
    CHECK(growth_exponent(ComplexityMethod::flash, 100000, &ComplexityPoint::flops) == doctest::Approx(2.0).epsilon(1e-6));
    // At a million tokens: 2 TB of scores for dense attention, about 4 MB for FlashAttention.
    CHECK(complexity_point(ComplexityMethod::flash, 1000000).peak_bytes == (2000000 + 4096) * 2);
    p.flash_block_k = 0;
    check_error([&] { complexity_point(ComplexityMethod::flash, 10, p); }, "flash_block_k: must be in [1, 4096], got 0");
    p.flash_block_k = 64;
    p.flash_block_q = 5000;
    check_error([&] { complexity_curves(1, 10, 4, p); }, "flash_block_q: must be in [1, 4096], got 5000");
}

TEST_CASE("The A100 memory line comes from the GPU presets") {
    const MemoryReference a100 = a100_memory_reference();
    CHECK(a100.bytes == 80000000000ull);
    CHECK(a100.label == "80 GB: one A100");
    CHECK(a100.source.find("A100") != std::string::npos);
}

TEST_CASE("Time-line markers carry corrected years, context lengths and sources") {
    const auto& markers = timeline_markers();
    REQUIRE(markers.size() == 3);
    CHECK(markers[0].model == "GPT-2");
    CHECK(markers[0].year == 2019);  // the plan said 2017
    CHECK(markers[0].context_tokens == 1024);
    CHECK(markers[1].model == "Longformer");
    CHECK(markers[1].year == 2020);
    CHECK(markers[1].context_tokens == 4096);
    CHECK(markers[2].year == 2024);
    CHECK(markers[2].context_tokens == 1000000);
    for (const auto& m : markers) {
        CHECK(m.source.size() > 20);
        CHECK(m.context_tokens <= 1000000);  // every marker lies on the figure's N axis
    }
}

TEST_CASE("Complexity functions reject bad arguments") {
    ComplexityParams p;
    p.lsh_buckets = 3;
    check_error([&] { complexity_point(ComplexityMethod::lsh, 100, p); }, "lsh_buckets: must be 1 or an even number");
    p = {};
    p.bytes_per_element = 0;
    check_error([&] { complexity_point(ComplexityMethod::dense, 100, p); }, "bytes_per_element: must be in [1, 8], got 0");
    p = {};
    p.performer_features = 0;
    check_error([&] { complexity_curves(1, 10, 4, p); }, "performer_features");
    check_error([] { complexity_point(ComplexityMethod::dense, 0); }, "seq_len: must be in [1, 16777216], got 0");
    check_error([] { complexity_curves(10, 5, 4); }, "n_min: must be in [1, 5], got 10");
    check_error([] { complexity_curves(1, 100, 1); }, "points: must be in [2, 512], got 1");
    check_error([] { complexity_curves(1, std::size_t{1} << 25, 8); }, "n_max");
    check_error([] { complexity_point(static_cast<ComplexityMethod>(9), 10); }, "method: not a ComplexityMethod");
}
