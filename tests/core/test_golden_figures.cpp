// Published figures the cost model must reproduce, each with its source. Where the series plan
// (shared/seeds/004, "the plan") prints a different value, the test asserts the correct one and
// says what the plan printed.
#include <cmath>

#include "attn/cost/attention_cost.hpp"
#include "attn/cost/gpu_presets.hpp"
#include "attn/cost/roofline.hpp"
#include "attn/models/model_presets.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::cost;

namespace {

constexpr double KiB = 1024.0, MiB = 1024.0 * KiB, GiB = 1024.0 * MiB;

// Bytes of K and V one token adds to the cache of a model with plain (GQA/MHA) attention.
double kv_bytes_per_token(const models::ModelPreset& m, double element_bytes) {
    return 2.0 * static_cast<double>(m.layers.value * m.kv_heads.value * m.head_dim.value) * element_bytes;
}

}  // namespace

TEST_CASE("golden: ridge points, FP16 dense tensor peak / HBM bandwidth") {
    // A100 80GB SXM: 312 TFLOPS / 2,039 GB/s (NVIDIA A100 datasheet) = 153.0 FLOP/byte. The plan's
    // "~150" is this figure rounded.
    CHECK(roofline::ridge_point(gpu_preset("a100-sxm-80gb"), Precision::fp16) == doctest::Approx(153.016).epsilon(1e-5));
    // A100 40GB SXM: 312 TFLOPS / 1,555 GB/s = 200.6 FLOP/byte.
    CHECK(roofline::ridge_point(gpu_preset("a100-sxm-40gb"), Precision::fp16) == doctest::Approx(200.643).epsilon(1e-5));
    // H100 SXM: 989.5 TFLOPS (1,979 with sparsity / 2) / 3.35 TB/s (NVIDIA H100 datasheet) = 295.4
    // FLOP/byte. The plan prints "~330": that is 989 / 3.0, the preliminary 3 TB/s of the 2022
    // whitepaper's Table 3, not the shipping part's 3.35 TB/s.
    const double h100 = roofline::ridge_point(gpu_preset("h100-sxm"), Precision::fp16);
    CHECK(h100 == doctest::Approx(295.373).epsilon(1e-5));
    CHECK(std::abs(h100 - 330) > 30);
}

TEST_CASE("golden: the plan's hardware table and glossary against the presets") {
    // Plan, Part 3 hardware table and glossary; sources in gpu_presets.cpp.
    const GpuPreset& a100 = gpu_preset("a100-sxm-80gb");
    const GpuPreset& h100 = gpu_preset("h100-sxm");
    CHECK(a100.sm_count.value == 108);  // "SM — A100 has 108; H100 has 132"
    CHECK(h100.sm_count.value == 132);
    CHECK(a100.hbm_bytes.value == 80e9);
    CHECK(h100.hbm_bytes.value == 80e9);
    CHECK(a100.hbm_bytes_per_s.value == 2.039e12);  // plan: "2.0 TB/s" (rounded)
    CHECK(h100.hbm_bytes_per_s.value == 3.35e12);
    CHECK(a100.sram_per_sm_bytes.value == 164 * KiB);
    CHECK(h100.sram_per_sm_bytes.value == 228 * KiB);
    CHECK(a100.l2_bytes.value == 40 * MiB);
    CHECK(h100.l2_bytes.value == 50 * MiB);
    CHECK(a100.fp16_flops.value == 312e12);
    CHECK(std::round(h100.fp16_flops.value / 1e12) == 990);  // plan: "989" (989.5 = 1,979 / 2)
    CHECK(a100.fp8_flops.value == 0);                       // plan: "—"
    CHECK(h100.fp8_flops.value == 1979e12);
    // FlashAttention paper (Dao et al. 2022), Sec. 2.1: "A100 GPU has 40-80GB of high bandwidth
    // memory (HBM) with bandwidth 1.5-2.0TB/s and 192KB of on-chip SRAM per each of 108 streaming
    // multiprocessors". 192 KB is the combined L1/shared memory; 164 KB of it can be shared memory.
    for (const char* id : {"a100-sxm-40gb", "a100-sxm-80gb"}) {
        const GpuPreset& g = gpu_preset(id);
        CHECK(g.sm_count.value == 108);
        CHECK(g.hbm_bytes_per_s.value >= 1.5e12);
        CHECK(g.hbm_bytes_per_s.value <= 2.05e12);
        CHECK(g.sram_per_sm_bytes.value < 192 * KiB);
    }
}

TEST_CASE("golden: the FlashAttention paper's memory hierarchy against the presets") {
    // Dao et al. 2022, Fig. 1 left, for the A100: "SRAM: 19 TB/s (20 MB)", "HBM: 1.5 TB/s (40 GB)".
    // The derived shared-memory bandwidth (128 B/clock/SM x 108 SMs x 1410 MHz = 19.49 TB/s) is the
    // paper's 19 TB/s; 20 MB is 108 SMs x 192 KB of combined L1/shared memory.
    const GpuPreset& a40 = gpu_preset("a100-sxm-40gb");
    const double sram = sram_bytes_per_s(a40).value;
    CHECK(std::floor(sram / 1e12) == 19);
    CHECK(sram == doctest::Approx(19.49e12).epsilon(1e-3));
    CHECK(std::round(108 * 192 * KiB / MiB) == 20);
    CHECK(std::floor(a40.hbm_bytes_per_s.value / 1e11) == 15);  // 1,555 GB/s
    // The gap: about 12.5x on the 40GB part (13x with the paper's rounded 19 / 1.5), 9.6x on the
    // 80GB part, 10x on the H100 SXM (33.5 TB/s against 3.35 TB/s).
    CHECK(sram / a40.hbm_bytes_per_s.value == doctest::Approx(12.53).epsilon(1e-3));
    const GpuPreset& a100 = gpu_preset("a100-sxm-80gb");
    const GpuPreset& h100 = gpu_preset("h100-sxm");
    CHECK(sram_bytes_per_s(a100).value / a100.hbm_bytes_per_s.value == doctest::Approx(9.559).epsilon(1e-3));
    CHECK(sram_bytes_per_s(h100).value / h100.hbm_bytes_per_s.value == doctest::Approx(10.0).epsilon(1e-9));
    // Registers: 256 KB per SM (A100 whitepaper Table 4, H100 whitepaper Table 3); boost clock
    // 1410 MHz (A100 Table 4); host links as the datasheets print them, both directions together:
    // "PCIe Gen4: 64GB/s" (A100) and "PCIe Gen5: 128GB/s" (H100; the H100 whitepaper: 64 GB/sec
    // in each direction). L2 bandwidth is not published for either.
    CHECK(a100.register_file_per_sm_bytes.value == 256 * KiB);
    CHECK(h100.register_file_per_sm_bytes.value == 256 * KiB);
    CHECK(a100.boost_clock_hz.value == 1410e6);
    CHECK(a100.host_link_bytes_per_s.value == 64e9);
    CHECK(a40.host_link_bytes_per_s.value == 64e9);
    CHECK(h100.host_link_bytes_per_s.value == 128e9);
    CHECK(std::isnan(a100.l2_bytes_per_s.value));
    CHECK(std::isnan(h100.l2_bytes_per_s.value));
    // HBM outruns the host link 32x (A100 80GB) and 26x (H100 SXM).
    CHECK(std::round(a100.hbm_bytes_per_s.value / a100.host_link_bytes_per_s.value) == 32);
    CHECK(std::round(h100.hbm_bytes_per_s.value / h100.host_link_bytes_per_s.value) == 26);
}

TEST_CASE("golden: utilisation figures of the FlashAttention papers against the presets' peaks") {
    // FA2 (Dao 2023), Sec. 3.1: A100 "max theoretical throughput of FP16/BF16 matmul is 312 TFLOPs/s,
    // but only 19.5 TFLOPs/s of non-matmul FP32" -- each non-matmul FLOP is 16x more expensive.
    const GpuPreset& a100 = gpu_preset("a100-sxm-80gb");
    CHECK(a100.fp16_flops.value / a100.fp32_flops.value == 16);
    // FA2, abstract: "up to 225 TFLOPs/s per A100 GPU (72% model FLOPs utilization)".
    CHECK(std::round(100 * 225e12 / roofline::peak_flops(a100, Precision::fp16)) == 72);
    // FA3 (Shah et al. 2024), abstract: on H100 "FP16 reaching up to 740 TFLOPs/s (75% utilization)".
    const GpuPreset& h100 = gpu_preset("h100-sxm");
    CHECK(std::round(100 * 740e12 / roofline::peak_flops(h100, Precision::fp16)) == 75);
}

TEST_CASE("golden: the N^2 score-matrix table, FP16, 16 heads x 24 layers (BERT-large)") {
    // Plan, Part 2 Sec. 1 "worked table": per-head FP16 size and x 16 heads x 24 layers. The shape
    // is BERT-large's (Devlin et al. 2019: L=24, A=16; see model_presets.cpp).
    const models::ModelPreset& bert = models::model_preset("bert-large");
    REQUIRE(bert.q_heads.value == 16);
    REQUIRE(bert.layers.value == 24);
    auto table = [&](std::size_t n) { return score_matrix_footprint(n, 16, 24, 2); };
    // Every power of two from 512 to 32768: N^2 x 2 bytes per head, x 384 per model.
    for (std::size_t n = 512; n <= 32768; n *= 2) {
        const ScoreMatrixFootprint f = table(n);
        CHECK(f.per_head_bytes == 2.0 * n * n);
        CHECK(f.per_layer_bytes == 16 * f.per_head_bytes);
        CHECK(f.per_model_bytes == 384 * f.per_head_bytes);
    }
    // The plan's rows. Its per-head column is right in binary units (MiB, GiB); its model column is
    // not: 512 -> 192 MiB (plan "~190 MB"), 8k -> 48 GiB (plan "~50 GB"), 32k -> 768 GiB (plan
    // "~770 GB"); only 2k -> 3 GiB matches.
    CHECK(table(512).per_head_bytes == 0.5 * MiB);
    CHECK(table(512).per_model_bytes == 192 * MiB);
    CHECK(table(512).per_model_bytes == 201326592);  // 201.3 MB in decimal units
    CHECK(table(2048).per_head_bytes == 8 * MiB);
    CHECK(table(2048).per_model_bytes == 3 * GiB);
    CHECK(table(8192).per_head_bytes == 128 * MiB);
    CHECK(table(8192).per_model_bytes == 48 * GiB);
    CHECK(table(32768).per_head_bytes == 2 * GiB);
    CHECK(table(32768).per_model_bytes == 768 * GiB);
    // Plan, Part 3 "memory savings" table: 128k -> "32 GB per head per layer" (32 GiB).
    CHECK(score_matrix_footprint(131072, 1, 1, 2).per_head_bytes == 32 * GiB);
}

TEST_CASE("golden: attention FLOPs of the FlashAttention-2 benchmark setting") {
    // FA2 (Dao 2023), Sec. 4.1, and benchmarks/benchmark_flash_attention.py of the flash-attention
    // repository: seqlen 512..16k with batch = 16k / seqlen, hidden dimension 2048, head dimension
    // 64 or 128 (32 or 16 heads); forward FLOPs 4 * batch * seqlen^2 * heads * headdim, halved when
    // causal, backward 2.5x, forward + backward 3.5x. With batch * seqlen = 2^14 and heads * headdim
    // = 2^11 the forward count is 2^27 * seqlen whatever the head dimension.
    for (std::size_t seqlen = 512; seqlen <= 16384; seqlen *= 2) {
        for (std::size_t headdim : {std::size_t{64}, std::size_t{128}}) {
            const std::size_t batch = 16384 / seqlen, heads = 2048 / headdim;
            INFO("seqlen=" << seqlen << " headdim=" << headdim);
            const double forward = std::ldexp(static_cast<double>(seqlen), 27);
            CHECK(benchmark_flops(batch, heads, seqlen, headdim, false, Pass::forward) == forward);
            CHECK(benchmark_flops(batch, heads, seqlen, headdim, true, Pass::forward) == forward / 2);
            CHECK(benchmark_flops(batch, heads, seqlen, headdim, false, Pass::backward) == 2.5 * forward);
            CHECK(benchmark_flops(batch, heads, seqlen, headdim, true, Pass::forward_backward) == 3.5 * forward / 2);
            // The exact general form agrees without a mask (d = dv, L = S).
            CHECK(attention_flops({batch, heads, seqlen, seqlen, headdim, headdim}, Pass::forward) == forward);
        }
    }
    CHECK(benchmark_flops(1, 16, 16384, 128, false, Pass::forward) == 2199023255552.0);  // 2^41
}

TEST_CASE("golden: skipping masked blocks bounds the causal speed-up by 2") {
    // A causal mask hides about half of the score matrix, so skipping fully masked blocks at most
    // halves the work and the traffic: the speed-up of causal over non-causal FlashAttention is
    // below 2 and tends to 2 as the sequence spans more blocks. The FA2 paper's measured causal
    // speed-ups (1.7-1.8x, per the brief) must lie under this bound, and the bound must leave room
    // for them at long sequences. Setting: FA2 Sec. 4.1 on the A100 80GB preset, FP16.
    const GpuPreset& a100 = gpu_preset("a100-sxm-80gb");
    for (std::size_t headdim : {std::size_t{64}, std::size_t{128}}) {
        double previous = 1;
        for (std::size_t seqlen = 512; seqlen <= 16384; seqlen *= 2) {
            const std::size_t batch = 16384 / seqlen, heads = 2048 / headdim;
            INFO("seqlen=" << seqlen << " headdim=" << headdim);
            const AttentionShape dense{batch, heads, seqlen, seqlen, headdim, headdim, Causal::none};
            AttentionShape causal = dense;
            causal.causal = Causal::bottom_right;
            for (Pass pass : {Pass::forward, Pass::forward_backward}) {
                const double speedup = predict(dense, Algorithm::flash, pass, a100, Precision::fp16).time_s /
                                       predict(causal, Algorithm::flash, pass, a100, Precision::fp16).time_s;
                CHECK(speedup > 1);
                CHECK(speedup < 2);
                if (pass == Pass::forward) {
                    CHECK(speedup >= previous);  // more blocks per row, closer to 2
                    previous = speedup;
                }
                if (seqlen == 16384) CHECK(speedup >= 1.8);
            }
        }
    }
}

TEST_CASE("golden: KV-cache bytes per token from the model presets") {
    // PagedAttention (Kwon et al., SOSP 2023), Sec. 3: for OPT-13B "the KV cache of a single token
    // demands 800 KB of space, calculated as 2 (key and value vectors) x 5120 (hidden state size) x
    // 40 (number of layers) x 2 (bytes per FP16)".
    CHECK(kv_bytes_per_token(models::model_preset("opt-13b"), 2) == 800 * KiB);
    // Plan, Part 4: Llama 3 70B (80 layers, 8 KV heads, d_head 128, FP16) "~320 KB per token" and
    // "128k context = 40 GB"; "Without GQA: 320 GB" (64 KV heads).
    const models::ModelPreset& llama = models::model_preset("llama3-70b");
    CHECK(kv_bytes_per_token(llama, 2) == 320 * KiB);
    CHECK(kv_bytes_per_token(llama, 2) * static_cast<double>(llama.max_context.value) == 40 * GiB);
    CHECK(kv_bytes_per_token(llama, 2) * static_cast<double>(llama.q_heads.value / llama.kv_heads.value) *
              static_cast<double>(llama.max_context.value) ==
          320 * GiB);
    // DeepSeek-V2 (arXiv:2405.04434), Table 1: MLA caches (d_c + d_h^R) x l elements per token,
    // "equal to GQA with only 2.25 groups": d_c + d_h^R = 4.5 d_h.
    const models::ModelPreset& v2 = models::model_preset("deepseek-v2");
    REQUIRE(v2.mla.has_value());
    CHECK(2 * (v2.mla->kv_lora_rank.value + v2.mla->qk_rope_head_dim.value) == 9 * v2.head_dim.value);
}
