// The GPU decode benchmarks' planning (native/bench/gpu_decode_plan.hpp), which runs on the host:
// byte accounting against hand-computed counts, the sweep's memory capping, the block tables, the
// launch shape the split heuristic reads, and the pre-timing check's inputs and comparison.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "attn/attention/paged_decode.hpp"
#include "attn/attention/sdpa.hpp"
#include "attn/error.hpp"
#include "gpu_decode_plan.hpp"

namespace {

using namespace attn;
using namespace attn::bench;

const DecodeShape kLlama8b{"llama3-8b", 32, 8, 128};
const DecodeShape kLlama70b{"llama3-70b", 64, 8, 128};
constexpr GpuDecodeLayout kPaged16 = kGpuDecodeLayouts[0];
constexpr GpuDecodeLayout kPaged32 = kGpuDecodeLayouts[1];
constexpr GpuDecodeLayout kContiguous = kGpuDecodeLayouts[2];
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST_CASE("gpu decode: the shared shapes are the Llama 3 presets") {
    const std::vector<DecodeShape> shapes = decode_shapes();
    REQUIRE(shapes.size() == 2);
    CHECK(shapes[0].model == kLlama8b.model);
    CHECK(shapes[0].q_heads == 32);
    CHECK(shapes[0].kv_heads == 8);
    CHECK(shapes[0].head_dim == 128);
    CHECK(shapes[1].model == kLlama70b.model);
    CHECK(shapes[1].q_heads == 64);
}

TEST_CASE("gpu decode: bytes per step, counted by hand for Llama 3 8B, batch 8, context 8192") {
    const GpuDecodeProblem p{kLlama8b, kPaged16, 8, 8192};
    const DecodeTraffic t = decode_traffic(p, 3);
    CHECK(t.kv_bytes == 2.0 * 8 * 8 * 8192 * 128 * 2);  // K and V, 8 sequences, 8 KV heads, 2-byte elements
    CHECK(t.q_bytes == 8.0 * 32 * 128 * 4);            // FP32 query per query head
    CHECK(t.out_bytes == 8.0 * 32 * 129 * 4);          // FP32 output and lse
    CHECK(t.table_bytes == 8.0 * (512 + 1) * 4);       // 512 int32 entries and the context length
    CHECK(t.workspace_bytes == 2.0 * 8 * 32 * 3 * 130 * 4);
    CHECK(t.headline_bytes() == t.kv_bytes + t.q_bytes + t.out_bytes);
    // The group size changes q and out, not the K/V bytes: GQA's point.
    CHECK(decode_traffic({kLlama70b, kPaged16, 8, 8192}, 3).kv_bytes == t.kv_bytes);
    CHECK_THROWS_WITH_AS(decode_traffic(p, 0), "splits must be at least 1, got 0", Error);
}

TEST_CASE("gpu decode: device bytes count whole blocks, one workspace") {
    // 1000 tokens in 32-token blocks: 32 blocks, 1024 slots per sequence.
    const GpuDecodeProblem p{kLlama8b, kPaged32, 3, 1000};
    CHECK(p.blocks_per_seq() == 32);
    CHECK(p.num_blocks() == 96);
    const DecodeTraffic t = decode_traffic(p, 2);
    const double pools = 2.0 * 96 * 8 * 32 * 128 * 2;
    CHECK(decode_device_bytes(p, 2) == pools + t.q_bytes + t.out_bytes + t.table_bytes + 3.0 * 32 * 2 * 130 * 4);
}

TEST_CASE("gpu decode: the memory cap keeps the headroom") {
    CHECK(fits_in_device_memory(kGiB, kGiB + kDeviceHeadroomBytes));
    CHECK_FALSE(fits_in_device_memory(kGiB + 1, kGiB + kDeviceHeadroomBytes));
}

TEST_CASE("gpu decode: the sweep covers shapes x layouts x batches x contexts and drops what cannot fit") {
    auto four_splits = [](const GpuDecodeProblem&) { return 4; };
    const GpuDecodeSweep big = gpu_decode_sweep(80 * kGiB, four_splits);
    CHECK(big.problems.size() == 2 * std::size(kGpuDecodeLayouts) * std::size(kGpuDecodeBatches) * std::size(kDecodeContexts));
    CHECK(big.too_large.empty());
    // Contexts innermost, batches next: a table row's runs are adjacent.
    CHECK(big.problems[0].context == kDecodeContexts[0]);
    CHECK(big.problems[1].context == kDecodeContexts[1]);
    CHECK(big.problems[std::size(kDecodeContexts)].batch == kGpuDecodeBatches[1]);

    // 16 GiB: 32 sequences of 128k tokens need 16 GiB of K/V alone (4 KiB per token and layer).
    const GpuDecodeSweep small = gpu_decode_sweep(16 * kGiB, four_splits);
    CHECK(small.problems.size() + small.too_large.size() == big.problems.size());
    CHECK(small.too_large.size() == 2 * std::size(kGpuDecodeLayouts));
    for (const GpuDecodeProblem& p : small.too_large) {
        CHECK(p.batch == 32);
        CHECK(p.context == 131072);
        CHECK_FALSE(fits_in_device_memory(decode_device_bytes(p, 4), 16 * kGiB));
    }
    for (const GpuDecodeProblem& p : small.problems) CHECK(fits_in_device_memory(decode_device_bytes(p, 4), 16 * kGiB));
}

TEST_CASE("gpu decode: block tables are permutations, in order only for the contiguous layout") {
    const GpuDecodeProblem paged{kLlama8b, kPaged16, 8, 1000};
    const std::vector<int> t = decode_block_tables(paged, 7);
    REQUIRE(t.size() == paged.num_blocks());
    std::vector<int> sorted = t;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> identity(t.size());
    std::iota(identity.begin(), identity.end(), 0);
    CHECK(sorted == identity);
    std::size_t in_order = 0;
    for (std::size_t i = 1; i < t.size(); ++i) in_order += t[i] == t[i - 1] + 1;
    CHECK(in_order < t.size() / 10);  // shuffled: neighbouring logical blocks rarely neighbours in the pool
    CHECK(decode_block_tables(paged, 7) == t);
    CHECK(decode_block_tables(paged, 8) != t);
    CHECK(decode_block_tables({kLlama8b, kContiguous, 8, 1000}, 7) == identity);
}

TEST_CASE("gpu decode: launch shape and benchmark name") {
    const GpuDecodeProblem p{kLlama70b, kPaged32, 32, 131072};
    const DecodeLaunchShape s = decode_launch_shape(p);
    CHECK(s.num_seqs == 32);
    CHECK(s.q_heads == 64);
    CHECK(s.kv_heads == 8);
    CHECK(s.head_dim == 128);
    CHECK(s.block_size == 32);
    CHECK(s.max_blocks_per_seq == 4096);
    CHECK(s.num_blocks == 32 * 4096);
    CHECK(s.max_context_len == 131072);
    CHECK(gpu_decode_benchmark_name(p, "bf16") == "cuda/decode_bf16_paged32/llama3-70b/N:131072/B:32");
    const GpuDecodeProblem huge{kLlama8b, kPaged16, std::size_t{1} << 31, 16};
    CHECK_THROWS_WITH_AS(decode_launch_shape(huge),
                         "batch must be at most 2147483647 for the kernel's int32 arguments, got 2147483648", Error);
}

TEST_CASE("gpu decode check: poisoned pool, exact inputs, reference equal to sdpa over the gathered context") {
    for (const GpuDecodeLayout& layout : kGpuDecodeLayouts) {
        const DecodeCheckCase c = make_decode_check_case(kLlama8b, layout, 11);
        INFO(c.description);
        const std::size_t bs = layout.block_size, d = 128, hkv = 8, row = hkv * bs * d;
        CHECK(c.context_lens == std::vector<int>{1, 17, static_cast<int>(2 * bs), 1037});
        REQUIRE(c.key_pool.size() == static_cast<std::size_t>(c.num_blocks) * row);
        // Exactly the slots of the contexts hold numbers; those lie on the 2^-6 grid.
        std::size_t numbers = 0, off_grid = 0;
        for (const std::vector<float>* pool : {&c.key_pool, &c.value_pool}) {
            for (float x : *pool) {
                if (std::isnan(x)) continue;
                ++numbers;
                off_grid += !(std::abs(x) < 4.0f && x * 64.0f == std::round(x * 64.0f));
            }
        }
        CHECK(numbers == 2 * (1 + 17 + 2 * bs + 1037) * hkv * d);
        CHECK(off_grid == 0);
        // Table entries past a context name a block that is NaN throughout.
        const std::size_t width = static_cast<std::size_t>(c.max_blocks_per_seq);
        const int poison = c.block_tables[width - 1];
        CHECK(std::all_of(c.key_pool.begin() + poison * row, c.key_pool.begin() + (poison + 1) * row,
                          [](float x) { return std::isnan(x); }));
        // Consecutive blocks per sequence for the contiguous layout only.
        const bool in_order = c.block_tables[3 * width + 1] == c.block_tables[3 * width] + 1 &&
                              c.block_tables[3 * width + 2] == c.block_tables[3 * width + 1] + 1;
        CHECK(in_order == !layout.shuffled);

        // Sequence 3 (1,037 tokens) against dense sdpa over its gathered K/V in double.
        const Shape4 pool_shape{static_cast<std::size_t>(c.num_blocks), hkv, bs, d};
        Tensor4<double> kp(pool_shape), vp(pool_shape), q({1, 32, 1, d});
        std::copy(c.key_pool.begin(), c.key_pool.end(), kp.data.begin());
        std::copy(c.value_pool.begin(), c.value_pool.end(), vp.data.begin());
        std::copy_n(c.q.begin() + 3 * 32 * d, 32 * d, q.data.begin());
        PagedSequence s;
        s.context_len = 1037;
        s.block_table.assign(c.block_tables.begin() + 3 * width, c.block_tables.begin() + 3 * width + (1037 + bs - 1) / bs);
        const auto [k, v] = gather_paged_kv(kp, vp, s);
        const SdpaResult<double> dense = sdpa(q, k, v);
        double worst = 0;
        for (std::size_t i = 0; i < 32 * d; ++i) worst = std::max(worst, std::abs(c.expected_out[3 * 32 * d + i] - dense.output.data[i]));
        for (std::size_t h = 0; h < 32; ++h) worst = std::max(worst, std::abs(c.expected_lse[3 * 32 + h] - dense.lse[h]));
        CHECK(worst < 1e-12);
    }
}

TEST_CASE("gpu decode check: passes the reference rounded to float, fails an error, a NaN or a wrong size") {
    const DecodeCheckCase c = make_decode_check_case(kLlama70b, kPaged16, 5);
    std::vector<float> out(c.expected_out.begin(), c.expected_out.end());
    std::vector<float> lse(c.expected_lse.begin(), c.expected_lse.end());
    const DecodeCheckOutcome ok = compare_with_reference(c, out, lse);
    CHECK(ok.passed);
    CHECK(ok.max_abs_error < 1e-5);

    std::vector<float> off = out;
    off[out.size() / 2] += 2e-4f;
    CHECK_FALSE(compare_with_reference(c, off, lse).passed);
    std::vector<float> lse_off = lse;
    lse_off.back() -= 2e-4f;
    CHECK_FALSE(compare_with_reference(c, out, lse_off).passed);
    std::vector<float> nan_out = out;
    nan_out[7] = std::numeric_limits<float>::quiet_NaN();
    const DecodeCheckOutcome nan = compare_with_reference(c, nan_out, lse);
    CHECK_FALSE(nan.passed);
    CHECK(std::isinf(nan.max_abs_error));
    CHECK_THROWS_AS(compare_with_reference(c, std::vector<float>(out.size() - 1), lse), Error);
    CHECK_THROWS_AS(compare_with_reference(c, out, std::vector<float>(lse.size() + 1)), Error);
}

TEST_CASE("gpu decode check: a shape the kernel cannot take is refused") {
    CHECK_THROWS_WITH_AS(make_decode_check_case({"odd", 6, 4, 64}, kPaged16, 1),
                         "q_heads must be a positive multiple of kv_heads >= 1, got q_heads = 6 and kv_heads = 4", Error);
    CHECK_THROWS_AS(make_decode_check_case({"none", 4, 0, 64}, kPaged16, 1), Error);
    CHECK_THROWS_WITH_AS(make_decode_check_case({"flat", 4, 4, 0}, kPaged16, 1),
                         "head_dim and block_size must be at least 1, got 0 and 16", Error);
    CHECK_THROWS_AS(make_decode_check_case(kLlama8b, GpuDecodeLayout{"empty", 0, true}, 1), Error);
}

}  // namespace
