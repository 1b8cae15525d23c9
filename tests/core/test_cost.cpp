// The roofline cost model: GPU and model presets, roofline queries, attention FLOP and HBM-traffic
// counts (checked against brute-force sums and against flash_forward's own traffic counters),
// predictions and the score-matrix footprint. Published figures are in test_golden_figures.cpp.
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "attn/attention/flash_forward.hpp"
#include "attn/attention/standard_attention.hpp"
#include "attn/cost/attention_cost.hpp"
#include "attn/cost/gpu_presets.hpp"
#include "attn/cost/roofline.hpp"
#include "attn/models/model_presets.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::cost;

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Every number of a preset: > 0, or 0 for an unsupported feature, or NaN for an unpublished one,
// each with a source that says which.
void check_sourced(const Sourced& s, const char* field, bool may_be_unsupported) {
    INFO(field << " = " << s.value << " (" << s.source << ")");
    CHECK_FALSE(s.source.empty());
    if (std::isnan(s.value)) {
        CHECK(starts_with(s.source, "not published"));
    } else if (s.value == 0) {
        CHECK(may_be_unsupported);
        CHECK(starts_with(s.source, "not supported"));
    } else {
        CHECK(s.value > 0);
        CHECK(std::isfinite(s.value));
    }
}

constexpr Causal kCausals[] = {Causal::none, Causal::top_left, Causal::bottom_right};
constexpr std::size_t kOddLengths[] = {1, 3, 17, 113, 127, 129};

std::uint64_t brute_force_pairs(std::size_t L, std::size_t S, Causal causal) {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < L; ++i) sum += causal_key_end(i, L, S, causal);
    return sum;
}

}  // namespace

TEST_CASE("cost: GPU presets have the agreed ids, unique, every number sourced") {
    const std::set<std::string_view> expected = {"v100-sxm2-32gb", "t4",       "a100-sxm-40gb", "a100-sxm-80gb",
                                                 "h100-sxm",       "h100-pcie", "h200-sxm",      "b200",
                                                 "rtx-4090",       "l40s"};
    std::set<std::string_view> ids;
    for (const GpuPreset& g : gpu_presets()) {
        INFO("gpu " << g.id);
        CHECK(ids.insert(g.id).second);
        CHECK_FALSE(g.name.empty());
        CHECK_FALSE(g.architecture.empty());
        CHECK_FALSE(g.memory_type.empty());
        check_sourced(g.sm_count, "sm_count", false);
        check_sourced(g.boost_clock_hz, "boost_clock_hz", false);
        check_sourced(g.register_file_per_sm_bytes, "register_file_per_sm_bytes", false);
        check_sourced(g.sram_per_sm_bytes, "sram_per_sm_bytes", false);
        check_sourced(g.l2_bytes, "l2_bytes", false);
        check_sourced(g.l2_bytes_per_s, "l2_bytes_per_s", false);
        check_sourced(g.hbm_bytes, "hbm_bytes", false);
        check_sourced(g.hbm_bytes_per_s, "hbm_bytes_per_s", false);
        check_sourced(g.host_link_bytes_per_s, "host_link_bytes_per_s", false);
        check_sourced(sram_bytes_per_s(g), "sram_bytes_per_s", false);
        check_sourced(g.fp32_flops, "fp32_flops", false);
        check_sourced(g.tf32_flops, "tf32_flops", true);
        check_sourced(g.fp16_flops, "fp16_flops", false);
        check_sourced(g.fp8_flops, "fp8_flops", true);
        // What the cost model needs is published for every preset.
        CHECK(g.hbm_bytes_per_s.value > 0);
        CHECK(g.fp16_flops.value > 0);
        CHECK(g.sram_per_sm_bytes.value > 0);
        // Tensor cores outrun the CUDA cores; lower precision never runs slower.
        CHECK(g.fp16_flops.value > g.fp32_flops.value);
        if (g.tf32_flops.value > 0) CHECK(g.fp16_flops.value >= g.tf32_flops.value);
        if (g.fp8_flops.value > 0) CHECK(g.fp8_flops.value >= g.fp16_flops.value);
        // Shared memory per SM is a whole number of KB.
        CHECK(std::fmod(g.sram_per_sm_bytes.value, 1024.0) == 0);
        // Every SM of these architectures has 64 K 32-bit registers, more than its shared memory.
        CHECK(g.register_file_per_sm_bytes.value == 256 * 1024);
        CHECK(g.register_file_per_sm_bytes.value > g.sram_per_sm_bytes.value);
        // Where both are known: SRAM outruns HBM, which outruns the host link, by an order of
        // magnitude each; clocks are those of real GPUs (1-3 GHz).
        const double sram_bw = sram_bytes_per_s(g).value;
        if (!std::isnan(sram_bw)) CHECK(sram_bw > 5 * g.hbm_bytes_per_s.value);
        if (!std::isnan(g.host_link_bytes_per_s.value)) CHECK(g.hbm_bytes_per_s.value > 10 * g.host_link_bytes_per_s.value);
        if (!std::isnan(g.boost_clock_hz.value)) {
            CHECK(g.boost_clock_hz.value > 1e9);
            CHECK(g.boost_clock_hz.value < 3e9);
        }
        CHECK(&gpu_preset(g.id) == &g);
    }
    CHECK(ids == expected);
    test::check_error([] { gpu_preset("a100"); }, "gpu: unknown preset 'a100'; valid ids are v100-sxm2-32gb, t4, a100-sxm-40gb");
    test::check_error([] { gpu_preset(""); }, "l40s");
}

TEST_CASE("cost: aggregate shared-memory bandwidth is 128 bytes per clock per SM") {
    // CUDA C++ Programming Guide: 32 banks x 32 bits per clock. A100: 128 x 108 x 1.41 GHz.
    const GpuPreset& a100 = gpu_preset("a100-sxm-80gb");
    CHECK(sram_bytes_per_s(a100).value == 128.0 * 108 * 1410e6);
    CHECK(starts_with(sram_bytes_per_s(a100).source, "derived: CUDA C++ Programming Guide"));
    // H100 SXM: the whitepaper's boost clock is "Not finalized"; the datasheet's FP32 peak gives
    // 67e12 / (132 x 128 x 2) = 1.983 GHz, so 128 x 132 x 1.983 GHz = 33.5 TB/s.
    const GpuPreset& h100 = gpu_preset("h100-sxm");
    CHECK(h100.boost_clock_hz.value == doctest::Approx(67e12 / (132 * 128 * 2)).epsilon(1e-12));
    CHECK(sram_bytes_per_s(h100).value == doctest::Approx(128 * 67e12 / (128 * 2)).epsilon(1e-12));
    // A derived boost clock reproduces the FP32 peak it came from; a printed one agrees with it.
    for (const GpuPreset& g : gpu_presets()) {
        INFO("gpu " << g.id);
        if (std::isnan(g.boost_clock_hz.value)) continue;
        const double lanes = g.architecture.find("sm_90") != std::string_view::npos ||
                                     g.architecture.find("sm_89") != std::string_view::npos ? 128 : 64;
        CHECK(g.sm_count.value * lanes * 2 * g.boost_clock_hz.value == doctest::Approx(g.fp32_flops.value).epsilon(0.01));
    }
    // Unpublished inputs give NaN with a reason; invalid ones are rejected.
    CHECK(std::isnan(sram_bytes_per_s(gpu_preset("h200-sxm")).value));
    CHECK(starts_with(sram_bytes_per_s(gpu_preset("h200-sxm")).source, "not published: the SM count"));
    GpuPreset no_clock = a100;
    no_clock.boost_clock_hz = {NAN, "not published: test"};
    CHECK(starts_with(sram_bytes_per_s(no_clock).source, "not published: the boost clock"));
    GpuPreset bad = a100;
    bad.boost_clock_hz = {0, "test"};
    test::check_error([&] { sram_bytes_per_s(bad); }, "gpu.boost_clock_hz must be a finite number > 0 or NaN");
    bad = a100;
    bad.sm_count = {-1, "test"};
    test::check_error([&] { sram_bytes_per_s(bad); }, "gpu.sm_count must be a finite number > 0 or NaN");
}

TEST_CASE("cost: model presets are consistent and every number sourced") {
    const std::set<std::string_view> expected = {"bert-base",  "bert-large", "gpt2",        "gpt2-xl",
                                                 "gpt3-175b",  "opt-13b",    "llama3-8b",   "llama3-70b",
                                                 "llama3-405b", "mistral-7b", "deepseek-v2", "deepseek-v3"};
    std::set<std::string_view> ids;
    for (const models::ModelPreset& m : models::model_presets()) {
        INFO("model " << m.id);
        CHECK(ids.insert(m.id).second);
        CHECK_FALSE(m.name.empty());
        for (const models::SourcedCount* c : {&m.layers, &m.hidden_size, &m.q_heads, &m.kv_heads, &m.head_dim,
                                              &m.max_context}) {
            CHECK(c->value > 0);
            CHECK_FALSE(c->source.empty());
        }
        CHECK_FALSE(m.sliding_window.source.empty());
        if (m.sliding_window.value == 0) {
            CHECK(starts_with(m.sliding_window.source, "none"));
        } else {
            CHECK(m.sliding_window.value < m.max_context.value);
        }
        CHECK(m.q_heads.value % m.kv_heads.value == 0);  // grouped-query attention groups evenly
        CHECK(m.mla.has_value() == starts_with(m.id, "deepseek"));
        if (m.mla) {
            for (const models::SourcedCount* c : {&m.mla->kv_lora_rank, &m.mla->qk_rope_head_dim,
                                                  &m.mla->qk_nope_head_dim, &m.mla->v_head_dim, &m.mla->q_lora_rank}) {
                CHECK(c->value > 0);
                CHECK_FALSE(c->source.empty());
            }
            // The paper's d_h is the per-head key part rebuilt from the latent.
            CHECK(m.mla->qk_nope_head_dim.value == m.head_dim.value);
            // The cached latent is far smaller than the K and V it replaces.
            CHECK(m.mla->kv_lora_rank.value + m.mla->qk_rope_head_dim.value <
                  2 * m.kv_heads.value * m.head_dim.value);
        } else {
            // Without MLA the heads split the model dimension evenly.
            CHECK(m.q_heads.value * m.head_dim.value == m.hidden_size.value);
        }
        CHECK(&models::model_preset(m.id) == &m);
    }
    CHECK(ids == expected);
    test::check_error([] { models::model_preset("llama-3-8b"); },
                "model: unknown preset 'llama-3-8b'; valid ids are bert-base, bert-large, gpt2");
}

TEST_CASE("cost: precisions, peaks, ridge points and unsupported precisions") {
    for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::fp8}) {
        CHECK(precision_from_name(precision_name(p)) == p);
    }
    CHECK(precision_from_name("bf16") == Precision::fp16);
    CHECK(bytes_per_element(Precision::fp32) == 4);
    CHECK(bytes_per_element(Precision::tf32) == 4);
    CHECK(bytes_per_element(Precision::fp16) == 2);
    CHECK(bytes_per_element(Precision::fp8) == 1);
    test::check_error([] { precision_from_name("int8"); }, "precision: unknown name 'int8'; valid names are fp32, tf32");

    const GpuPreset& h100 = gpu_preset("h100-sxm");
    CHECK(roofline::peak_flops(h100, Precision::fp32) == h100.fp32_flops.value);
    CHECK(roofline::peak_flops(h100, Precision::tf32) == h100.tf32_flops.value);
    CHECK(roofline::peak_flops(h100, Precision::fp16) == h100.fp16_flops.value);
    CHECK(roofline::peak_flops(h100, Precision::fp8) == h100.fp8_flops.value);
    CHECK(roofline::ridge_point(h100, Precision::fp16) == h100.fp16_flops.value / h100.hbm_bytes_per_s.value);

    test::check_error([] { roofline::peak_flops(gpu_preset("a100-sxm-80gb"), Precision::fp8); },
                "precision: NVIDIA A100 80GB SXM has no dense fp8 peak");
    test::check_error([] { roofline::ridge_point(gpu_preset("v100-sxm2-32gb"), Precision::tf32); }, "has no dense tf32");
    test::check_error([] { roofline::arithmetic_intensity(1, 0); }, "bytes: must be a finite number > 0");
    test::check_error([] { roofline::arithmetic_intensity(-1, 1); }, "flops: must be a finite number >= 0");
    test::check_error([] { roofline::arithmetic_intensity(NAN, 1); }, "flops");
    test::check_error([] { roofline::attainable_flops(gpu_preset("t4"), Precision::fp16, -1); },
                "intensity: must be a number >= 0");
    test::check_error([] { roofline::bound(gpu_preset("t4"), Precision::fp16, 1, 0); }, "bytes");
}

TEST_CASE("cost: attainable FLOP/s is min(peak, intensity x bandwidth) and the bound flips at the ridge") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> log_intensity(-3, 5);  // 1e-3 .. 1e5 FLOP per byte
    for (const GpuPreset& g : gpu_presets()) {
        for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::fp8}) {
            if (p == Precision::tf32 && !(g.tf32_flops.value > 0)) continue;  // unsupported: tested above
            if (p == Precision::fp8 && !(g.fp8_flops.value > 0)) continue;
            INFO(g.id << " " << precision_name(p));
            const double peak = roofline::peak_flops(g, p), bw = g.hbm_bytes_per_s.value;
            const double ridge = roofline::ridge_point(g, p);
            CHECK(roofline::attainable_flops(g, p, ridge) == doctest::Approx(peak).epsilon(1e-12));
            CHECK(roofline::attainable_flops(g, p, INFINITY) == peak);
            CHECK(roofline::attainable_flops(g, p, 0) == 0);
            for (int n = 0; n < 50; ++n) {
                const double intensity = std::pow(10.0, log_intensity(rng));
                const double a = roofline::attainable_flops(g, p, intensity);
                CHECK(a <= peak);
                CHECK(a <= intensity * bw * (1 + 1e-15));
                CHECK((a == peak || a == intensity * bw));
                const Bound b = roofline::bound(g, p, intensity * 1e6, 1e6);
                CHECK((b == Bound::memory) == (intensity < ridge));
            }
            // Just below and at the ridge.
            CHECK(roofline::bound(g, p, ridge * 0.999 * 1e3, 1e3) == Bound::memory);
            CHECK(roofline::bound(g, p, ridge * 1.001 * 1e3, 1e3) == Bound::compute);
        }
    }
    CHECK(bound_name(Bound::memory) == "memory");
    CHECK(bound_name(Bound::compute) == "compute");
}

TEST_CASE("cost: attended pairs equal the brute-force sum of causal key ends, both alignments, L != S") {
    for (std::size_t L : kOddLengths) {
        for (std::size_t S : kOddLengths) {
            for (Causal c : kCausals) {
                INFO("L=" << L << " S=" << S << " causal=" << static_cast<int>(c));
                CHECK(attended_pairs(L, S, c) == brute_force_pairs(L, S, c));
            }
        }
    }
    // Square causal: N (N + 1) / 2 for both alignments.
    CHECK(attended_pairs(4096, 4096, Causal::top_left) == 4096ull * 4097 / 2);
    CHECK(attended_pairs(4096, 4096, Causal::bottom_right) == 4096ull * 4097 / 2);
    // Bottom-right with L > S: the first L - S rows see nothing, the rest form a triangle plus a block.
    CHECK(attended_pairs(10, 3, Causal::bottom_right) == 1 + 2 + 3);
    CHECK(attended_pairs(3, 10, Causal::top_left) == 1 + 2 + 3);
    test::check_error([] { attended_pairs(0, 3, Causal::none); }, "q_len: must be an integer in [1, 16777216], got 0");
    test::check_error([] { attended_pairs(3, (std::size_t{1} << 24) + 1, Causal::none); }, "kv_len");
}

TEST_CASE("cost: attention FLOPs, general form against the benchmark convention") {
    for (std::size_t L : kOddLengths) {
        for (std::size_t S : {std::size_t{1}, std::size_t{17}, std::size_t{129}, L}) {
            for (Causal c : kCausals) {
                const AttentionShape s{2, 3, L, S, 16, 24, c};
                INFO("L=" << L << " S=" << S << " causal=" << static_cast<int>(c));
                const double pairs = static_cast<double>(brute_force_pairs(L, S, c)) * 6;
                CHECK(attention_flops(s, Pass::forward) == 2 * pairs * (16 + 24));
                CHECK(attention_flops(s, Pass::backward) == 2 * pairs * (3 * 16 + 2 * 24));
                CHECK(attention_flops(s, Pass::forward_backward) ==
                      attention_flops(s, Pass::forward) + attention_flops(s, Pass::backward));
            }
        }
    }
    // With L = S = N and d = dv the general form is the convention without a mask, and exceeds the
    // convention's halved causal count by exactly the diagonal: N (N + 1) / 2 versus N^2 / 2 pairs.
    for (std::size_t n : {std::size_t{1}, std::size_t{127}, std::size_t{4096}}) {
        const AttentionShape dense{3, 5, n, n, 64, 64, Causal::none};
        CHECK(attention_flops(dense, Pass::forward) == benchmark_flops(3, 5, n, 64, false, Pass::forward));
        CHECK(attention_flops(dense, Pass::backward) == benchmark_flops(3, 5, n, 64, false, Pass::backward));
        const AttentionShape causal{3, 5, n, n, 64, 64, Causal::top_left};
        const double nd = static_cast<double>(n);
        CHECK(attention_flops(causal, Pass::forward) ==
              doctest::Approx(benchmark_flops(3, 5, n, 64, true, Pass::forward) * (nd + 1) / nd).epsilon(1e-15));
    }
    CHECK(benchmark_flops(1, 1, 8, 2, false, Pass::forward_backward) == 3.5 * 4 * 64 * 2);
    test::check_error([] { benchmark_flops(0, 1, 8, 2, false, Pass::forward); }, "batch: must be an integer in [1, 65536]");
    test::check_error([] { benchmark_flops(1, 1, 8, 2000, false, Pass::forward); }, "head_dim: must be an integer in [1, 1024]");
}

TEST_CASE("cost: FlashAttention-2 traffic and tiles equal flash_forward's counters") {
    // flash_forward (FA2 loop order) counts every byte it moves; the closed forms must agree
    // exactly, for odd sizes, both causal alignments, ragged blocks and two element widths.
    const std::pair<std::size_t, std::size_t> blocks[] = {{16, 16}, {7, 5}, {64, 32}, {1, 128}, {128, 1}};
    for (std::size_t L : kOddLengths) {
        for (std::size_t S : {std::size_t{1}, std::size_t{17}, std::size_t{129}, L}) {
            for (Causal c : kCausals) {
                const auto [br, bc] = blocks[(L + 3 * S + static_cast<std::size_t>(c)) % 5];
                const std::size_t eb = (L + S) % 2 ? 2 : 4;
                const std::uint64_t seed = test::next_seed();
                INFO("seed=" << seed << " L=" << L << " S=" << S << " causal=" << static_cast<int>(c) << " Br=" << br
                             << " Bc=" << bc << " eb=" << eb);
                const auto in = test::random_qkv({2, 2, L, 8}, 1, S, 5, seed);
                FlashOptions o;
                o.block_q = br;
                o.block_k = bc;
                o.causal = c;
                o.element_bytes = eb;
                const auto run = flash_forward(in.q, in.k, in.v, o);
                const AttentionShape shape{2, 2, L, S, 8, 5, c};
                const HbmTraffic io = flash2_forward_io(shape, eb, {br, bc});
                CHECK(io.bytes_read == static_cast<double>(run.stats.hbm_bytes_read));
                CHECK(io.bytes_written == static_cast<double>(run.stats.hbm_bytes_written));
                CHECK(executed_flops(shape, Pass::forward, Algorithm::flash, {br, bc}) ==
                      static_cast<double>(run.stats.flops));
                const TileCounts t = tile_counts(L, S, c, {br, bc});
                CHECK(t.tiles_computed * 4 == run.stats.tiles_computed);  // 4 = batch x heads
                CHECK(t.tiles_skipped * 4 == run.stats.tiles_skipped);
            }
        }
    }
}

TEST_CASE("cost: FlashAttention-1 forward traffic equals flash_forward in FA1 loop order") {
    const std::pair<std::size_t, std::size_t> blocks[] = {{16, 16}, {7, 5}, {64, 32}, {1, 128}, {128, 1}};
    for (std::size_t L : kOddLengths) {
        for (std::size_t S : {std::size_t{1}, std::size_t{17}, std::size_t{129}, L}) {
            for (Causal c : kCausals) {
                const auto [br, bc] = blocks[(2 * L + S + static_cast<std::size_t>(c)) % 5];
                const std::uint64_t seed = test::next_seed();
                INFO("seed=" << seed << " L=" << L << " S=" << S << " causal=" << static_cast<int>(c) << " Br=" << br
                             << " Bc=" << bc);
                const auto in = test::random_qkv({1, 3, L, 6}, 3, S, 6, seed);
                FlashOptions o;
                o.block_q = br;
                o.block_k = bc;
                o.causal = c;
                o.element_bytes = 2;
                o.loop_order = FlashLoopOrder::fa1_kv_outer;
                const auto run = flash_forward(in.q, in.k, in.v, o);
                const HbmTraffic io = flash_attention_io({1, 3, L, S, 6, 6, c}, Pass::forward, 2, {br, bc});
                CHECK(io.bytes_read == static_cast<double>(run.stats.hbm_bytes_read));
                CHECK(io.bytes_written == static_cast<double>(run.stats.hbm_bytes_written));
            }
        }
    }
}

TEST_CASE("cost: tile counts against an explicit enumeration of tiles") {
    for (std::size_t L : kOddLengths) {
        for (std::size_t S : kOddLengths) {
            for (Causal c : kCausals) {
                for (FlashBlocks b : {FlashBlocks{1, 1}, FlashBlocks{4, 3}, FlashBlocks{32, 64}, FlashBlocks{200, 7}}) {
                    INFO("L=" << L << " S=" << S << " causal=" << static_cast<int>(c) << " Br=" << b.block_q
                              << " Bc=" << b.block_k);
                    TileCounts want;
                    double widest = 0;
                    for (std::size_t r0 = 0; r0 < L; r0 += b.block_q) {
                        const std::size_t rows = std::min(b.block_q, L - r0);
                        for (std::size_t c0 = 0; c0 < S; c0 += b.block_k) {
                            const std::size_t cols = std::min(b.block_k, S - c0);
                            // Computed iff some (row, key) pair of the tile is visible.
                            bool visible = false;
                            for (std::size_t r = r0; r < r0 + rows; ++r) visible |= causal_key_end(r, L, S, c) > c0;
                            if (!visible) {
                                ++want.tiles_skipped;
                                continue;
                            }
                            ++want.tiles_computed;
                            want.score_entries += static_cast<double>(rows * cols);
                            want.row_visits += static_cast<double>(rows);
                            want.col_visits += static_cast<double>(cols);
                            widest = std::max(widest, static_cast<double>(c0 + cols));
                        }
                    }
                    const TileCounts got = tile_counts(L, S, c, b);
                    CHECK(got.tiles_computed == want.tiles_computed);
                    CHECK(got.tiles_skipped == want.tiles_skipped);
                    CHECK(got.score_entries == want.score_entries);
                    CHECK(got.row_visits == want.row_visits);
                    CHECK(got.col_visits == want.col_visits);
                    CHECK(got.kv_rows_loaded == widest);
                    // Every visible pair lies in a computed tile.
                    CHECK(got.score_entries >= static_cast<double>(attended_pairs(L, S, c)));
                }
            }
        }
    }
    test::check_error([] { tile_counts(4, 4, Causal::none, {0, 4}); }, "block_q: must be an integer in [1, 16777216], got 0");
    test::check_error([] { tile_counts(4, 4, Causal::none, {4, 0}); }, "block_k");
}

TEST_CASE("cost: FA1 block sizes from the SRAM size") {
    // Bc = ceil(M / 4d), Br = min(Bc, d).
    CHECK(fa1_block_sizes(1, 64, 64).block_k == 1);
    CHECK(fa1_block_sizes(1, 64, 64).block_q == 1);
    CHECK(fa1_block_sizes(256, 64, 64).block_k == 1);
    CHECK(fa1_block_sizes(257, 64, 64).block_k == 2);
    // A100: 164 KB of shared memory holds 83968 FP16 elements.
    const FlashBlocks a100 = fa1_block_sizes(164 * 1024 / 2, 64, 64);
    CHECK(a100.block_k == 328);  // ceil(83968 / 256)
    CHECK(a100.block_q == 64);   // min(328, d)
    // The larger of head_dim and value_dim is the d of the formula.
    CHECK(fa1_block_sizes(1000, 8, 50).block_k == 5);
    CHECK(fa1_block_sizes(1000, 8, 50).block_q == 5);
    test::check_error([] { fa1_block_sizes(0, 64, 64); }, "sram_elements: must be >= 1");
    test::check_error([] { fa1_block_sizes(100, 0, 64); }, "head_dim: must be an integer in [1, 1024], got 0");
    test::check_error([] { fa1_block_sizes(100, 64, 1025); }, "value_dim");
}

TEST_CASE("cost: HBM traffic scales as Theorem 2 says: N^2 for standard, N^2 d^2 / M for FlashAttention") {
    const std::size_t eb = 2;
    for (std::size_t d : {std::size_t{64}, std::size_t{128}}) {
        INFO("d=" << d);
        // block_q = N: the paper's count, every input read once.
        auto standard = [&](std::size_t n) { return standard_attention_io({1, 1, n, n, d, d}, Pass::forward, eb, n).bytes(); };
        // The N^2 terms (S and P written and read back) dominate: doubling N quadruples the traffic.
        CHECK(standard(32768) / standard(16384) == doctest::Approx(4).epsilon(0.01));
        // Theta(Nd + N^2): 4 N^2 + 4 N d elements (d = dv, L = S = N).
        CHECK(standard(1000) == eb * (4.0 * 1000 * 1000 + 4.0 * 1000 * d));
        // The backward pass reads P, dP, dS (five N^2 reads) and writes dP, dS.
        CHECK(standard_attention_io({1, 1, 1000, 1000, d, d}, Pass::backward, eb, 1000).bytes() ==
              eb * (7.0 * 1000 * 1000 + 8.0 * 1000 * d));

        auto flash = [&](std::size_t n, std::size_t sram_elements, Pass pass) {
            return flash_attention_io({1, 1, n, n, d, d}, pass, eb, fa1_block_sizes(sram_elements, d, d)).bytes();
        };
        for (Pass pass : {Pass::forward, Pass::backward}) {
            INFO("pass=" << pass_name(pass));
            // Quadratic in N once N spans many K/V blocks ...
            CHECK(flash(65536, 8192 * 4, pass) / flash(32768, 8192 * 4, pass) == doctest::Approx(4).epsilon(0.02));
            // ... and inversely proportional to M: doubling the SRAM halves the N^2 d^2 / M term.
            CHECK(flash(65536, 8192 * 4, pass) / flash(65536, 8192 * 8, pass) == doctest::Approx(2).epsilon(0.05));
        }
    }
    // FlashAttention over standard attention: N^2 d^2 / M against N^2, so the ratio grows as d^2.
    // With the A100's 164 KB (M = 83968 FP16 elements) FA1 moves ~15% of the bytes at d = 64 and
    // ~60% at d = 128 (where Bc = 164 and each of the N / Bc K/V blocks re-reads Q and O).
    for (Pass pass : {Pass::forward, Pass::backward}) {
        INFO("pass=" << pass_name(pass));
        auto ratio = [&](std::size_t d) {
            const AttentionShape s{1, 1, 16384, 16384, d, d};
            return flash_attention_io(s, pass, eb, fa1_block_sizes(164 * 1024 / eb, d, d)).bytes() /
                   standard_attention_io(s, pass, eb, s.q_len).bytes();
        };
        CHECK(ratio(64) < 0.2);
        CHECK(ratio(128) < 1);
        CHECK(ratio(128) / ratio(64) == doctest::Approx(4).epsilon(0.1));
    }
    // Batch and heads multiply every count.
    const AttentionShape one{1, 1, 100, 70, 16, 8, Causal::top_left}, many{3, 5, 100, 70, 16, 8, Causal::top_left};
    CHECK(standard_attention_io(many, Pass::forward_backward, 4, 32).bytes() ==
          15 * standard_attention_io(one, Pass::forward_backward, 4, 32).bytes());
    CHECK(flash_attention_io(many, Pass::forward_backward, 4, {8, 8}).bytes() ==
          15 * flash_attention_io(one, Pass::forward_backward, 4, {8, 8}).bytes());
    test::check_error([] { standard_attention_io({1, 1, 4, 4, 4, 4}, Pass::forward, 3, 4); }, "element_bytes: must be 1, 2, 4 or 8");
    test::check_error([] { standard_attention_io({1, 1, 4, 4, 4, 4}, Pass::forward, 2, 0); }, "block_q");
    test::check_error([] { flash_attention_io({1, 1, 4, 4, 4, 4}, Pass::forward, 16, {4, 4}); }, "element_bytes");
}

TEST_CASE("cost: FA1 traffic counts each load and store of Algorithms 1 and 4 (one tile)") {
    // One query block and one key block: Algorithm 1 initialises O, l, m (writes L*dv + 2L stats),
    // reads K, V, then Q, O, l, m, and writes O, l, m once.
    const std::size_t L = 5, S = 7, d = 3, dv = 2, eb = 2;
    const HbmTraffic fwd = flash_attention_io({1, 1, L, S, d, dv}, Pass::forward, eb, {8, 8});
    CHECK(fwd.bytes_read == eb * (S * (d + dv) + L * (d + dv)) + 4.0 * 2 * L);
    CHECK(fwd.bytes_written == eb * (L * dv + L * dv) + 4.0 * (2 * L + 2 * L));
    // Algorithm 4: dQ, dK, dV initialised; K, V read; Q, O, dO, dQ, l, m read; dQ, dK, dV written.
    const HbmTraffic bwd = flash_attention_io({1, 1, L, S, d, dv}, Pass::backward, eb, {8, 8});
    CHECK(bwd.bytes_read == eb * (S * (d + dv) + L * (2 * d + 2 * dv)) + 4.0 * 2 * L);
    CHECK(bwd.bytes_written == eb * (L * d + S * (d + dv) + L * d + S * (d + dv)));
}

TEST_CASE("cost: executed FLOPs: dense matmuls for standard attention, whole tiles for FlashAttention") {
    for (Causal c : kCausals) {
        const AttentionShape s{2, 4, 129, 113, 32, 16, c};
        INFO("causal=" << static_cast<int>(c));
        const double entries = 2.0 * 4 * 129 * 113;
        CHECK(executed_flops(s, Pass::forward, Algorithm::standard, {0, 0}) == 2 * entries * (32 + 16));
        CHECK(executed_flops(s, Pass::backward, Algorithm::standard, {0, 0}) == 2 * entries * (2 * 32 + 2 * 16));
        const double flash = executed_flops(s, Pass::forward, Algorithm::flash, {16, 16});
        CHECK(flash <= executed_flops(s, Pass::forward, Algorithm::standard, {0, 0}));
        CHECK(flash >= attention_flops(s, Pass::forward));
        if (c == Causal::none) CHECK(flash == executed_flops(s, Pass::forward, Algorithm::standard, {0, 0}));
        CHECK(executed_flops(s, Pass::backward, Algorithm::flash, {16, 16}) == flash / (32 + 16) * (3 * 32 + 2 * 16));
    }
}

TEST_CASE("cost: predictions follow the roofline, standard attention is memory-bound, FlashAttention is not") {
    const GpuPreset& a100 = gpu_preset("a100-sxm-80gb");
    const AttentionShape s{4, 16, 4096, 4096, 64, 64, Causal::none};
    for (Algorithm algo : {Algorithm::standard, Algorithm::flash}) {
        for (Pass pass : {Pass::forward, Pass::backward, Pass::forward_backward}) {
            INFO(algorithm_name(algo) << " " << pass_name(pass));
            const AttentionPrediction p = predict(s, algo, pass, a100, Precision::fp16);
            CHECK(p.time_s == std::max(p.compute_time_s, p.memory_time_s));
            CHECK(p.compute_time_s == p.flops / 312e12);
            CHECK(p.memory_time_s == p.hbm_bytes / 2039e9);
            CHECK(p.hbm_bytes == p.hbm_bytes_read + p.hbm_bytes_written);
            CHECK(p.arithmetic_intensity == p.flops / p.hbm_bytes);
            CHECK(p.bound == roofline::bound(a100, Precision::fp16, p.flops, p.hbm_bytes));
            CHECK(p.attained_flops_per_s ==
                  doctest::Approx(roofline::attainable_flops(a100, Precision::fp16, p.arithmetic_intensity)));
            CHECK(p.useful_flops == attention_flops(s, pass));
            CHECK(p.bound == (algo == Algorithm::standard ? Bound::memory : Bound::compute));
        }
    }
    const AttentionPrediction flash = predict(s, Algorithm::flash, Pass::forward, a100, Precision::fp16);
    CHECK(flash.blocks.block_k == 328);
    CHECK(flash.blocks.block_q == 64);
    const AttentionPrediction standard = predict(s, Algorithm::standard, Pass::forward, a100, Precision::fp16);
    // Standard attention's products run in the same row blocks, re-reading K and V per block.
    CHECK(standard.blocks.block_q == flash.blocks.block_q);
    CHECK(standard.hbm_bytes == standard_attention_io(s, Pass::forward, 2, standard.blocks.block_q).bytes());
    CHECK(standard.time_s > 2 * flash.time_s);

    test::check_error([&] { predict(s, Algorithm::flash, Pass::forward, a100, Precision::fp8); }, "has no dense fp8");
    GpuPreset unknown_sram = a100;
    unknown_sram.sram_per_sm_bytes = {NAN, "not published: test"};
    test::check_error([&] { predict(s, Algorithm::flash, Pass::forward, unknown_sram, Precision::fp16); },
                "has no published shared-memory size");
    test::check_error([&] { predict(s, Algorithm::standard, Pass::forward, unknown_sram, Precision::fp16); },
                "has no published shared-memory size");
}

TEST_CASE("cost: shape validation names the field and its range") {
    const AttentionShape good{1, 1, 8, 8, 4, 4};
    auto with = [&](auto change) {
        AttentionShape s = good;
        change(s);
        return s;
    };
    test::check_error([&] { validate(with([](auto& s) { s.batch = 0; })); }, "batch: must be an integer in [1, 65536], got 0");
    test::check_error([&] { validate(with([](auto& s) { s.heads = 5000; })); }, "heads: must be an integer in [1, 4096]");
    test::check_error([&] { validate(with([](auto& s) { s.q_len = 0; })); }, "q_len");
    test::check_error([&] { validate(with([](auto& s) { s.kv_len = 0; })); }, "kv_len");
    test::check_error([&] { validate(with([](auto& s) { s.head_dim = 0; })); }, "head_dim");
    test::check_error([&] { validate(with([](auto& s) { s.value_dim = 2048; })); }, "value_dim");
    test::check_error([&] { validate(with([](auto& s) { s.causal = static_cast<Causal>(7); })); }, "causal");
    test::check_error([&] { attention_flops(with([](auto& s) { s.batch = 0; }), Pass::forward); }, "batch");
    test::check_error([&] { predict(with([](auto& s) { s.q_len = 0; }), Algorithm::standard, Pass::forward,
                              gpu_preset("t4"), Precision::fp16); },
                "q_len");
    CHECK(pass_name(Pass::forward_backward) == "forward_backward");
    CHECK(algorithm_name(Algorithm::flash) == "flash");
}

TEST_CASE("cost: score-matrix footprint per head, layer and model") {
    const ScoreMatrixFootprint f = score_matrix_footprint(1000, 12, 7, 4);
    CHECK(f.per_head_bytes == 4e6);
    CHECK(f.per_layer_bytes == 12 * 4e6);
    CHECK(f.per_model_bytes == 7 * 12 * 4e6);
    test::check_error([] { score_matrix_footprint(0, 1, 1, 2); }, "seq_len: must be an integer in [1, 16777216]");
    test::check_error([] { score_matrix_footprint(8, 0, 1, 2); }, "heads");
    test::check_error([] { score_matrix_footprint(8, 1, 1025, 2); }, "layers: must be an integer in [1, 1024]");
    test::check_error([] { score_matrix_footprint(8, 1, 1, 3); }, "element_bytes: must be 1, 2, 4 or 8");
}

TEST_CASE("cost: the standard-attention model counts exactly the bytes the traced algorithm moves") {
    // One formula for the figure and the tables: attention/standard_attention's counters equal
    // standard_attention_io for the same blocking, odd sizes and causal masks included.
    for (auto [L, S, br] : {std::tuple{17u, 29u, 8u}, std::tuple{113u, 127u, 16u}, std::tuple{129u, 3u, 64u},
                            std::tuple{1u, 129u, 4u}}) {
        for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right}) {
            INFO("L=" << L << " S=" << S << " Br=" << br << " causal=" << static_cast<int>(causal));
            const std::size_t B = 2, H = 3, d = 16, dv = 8, eb = 2;
            const auto in = test::random_qkv({B, H, L, d}, H, S, dv, test::next_seed());
            StandardAttentionOptions o;
            o.block_q = br;
            o.block_k = 8;
            o.causal = causal;
            o.element_bytes = eb;
            const auto traced = standard_attention(in.q, in.k, in.v, o).stats;
            const HbmTraffic model = standard_attention_io({B, H, L, S, d, dv, causal}, Pass::forward, eb, br);
            CHECK(static_cast<double>(traced.hbm_bytes_read) == model.bytes_read);
            CHECK(static_cast<double>(traced.hbm_bytes_written) == model.bytes_written);
        }
    }
}
