// One decode step on the roofline: a hand-checked Llama 3.1 8B step on an H100, the attention's
// intensity equal to the GQA group size, MLA's absorbed FLOPs, the attention FLOPs against the cost
// model's exact count on random odd shapes, batching, what fits in memory, scheme variants of a
// preset, and argument validation.
#include <cmath>
#include <cstdint>
#include <random>

#include "attn/cost/attention_cost.hpp"
#include "attn/cost/decode_roofline.hpp"
#include "attn/cost/gpu_presets.hpp"
#include "attn/kvcache/kv_schemes.hpp"
#include "attn/models/model_presets.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::cost;
using namespace attn::kvcache;

namespace {

DecodeProblem preset_problem(std::string_view model, KvScheme scheme, std::uint64_t context, std::uint64_t batch,
                             bool weights) {
    const models::ModelPreset& m = models::model_preset(model);
    DecodeProblem p;
    p.cache = kv_config_for_scheme(m, scheme);
    p.context_tokens = context;
    p.batch = batch;
    p.weight_parameters = weights ? m.active_parameters.value : 0;
    return p;
}

}  // namespace

TEST_CASE("decode roofline golden: Llama 3.1 8B, GQA, 1024 tokens, batch 1, FP16, H100 SXM, by hand") {
    // Cache per token: 2 x 32 layers x 8 K/V heads x 128 x 2 B = 131,072 B; x 1024 = 134,217,728 B.
    // Attention: 4 x 32 layers x 32 query heads x 128 x 1024 = 536,870,912 FLOPs (intensity 4 = 32 / 8).
    // Weights: 8,030,261,248 parameters x 2 B = 16,060,522,496 B read, 2 x 8,030,261,248 FLOPs.
    // Step: 16,597,393,408 FLOPs over 16,194,740,224 B = 1.02486... FLOP/B, far below the H100's
    // ridge 989.5e12 / 3.35e12 = 295.37; memory time 16,194,740,224 / 3.35e12 = 4.8342 ms.
    // Memory: (80e9 - 16,060,522,496) / 131,072 = 487,819.8 -> 487,819 tokens fit next to the weights.
    const DecodeRoofline r = decode_roofline(preset_problem("llama3-8b", KvScheme::gqa, 1024, 1, true), gpu_preset("h100-sxm"));
    CHECK(r.kv.bytes_per_token == 131072);
    CHECK(r.kv_bytes_read == 134217728.0);
    CHECK(r.attention_flops == 536870912.0);
    CHECK(r.attention_intensity == 4.0);
    CHECK(r.group_size == 4.0);
    CHECK(r.weight_bytes_read == 16060522496.0);
    CHECK(r.weight_flops == 16060522496.0);
    CHECK(r.flops == 16597393408.0);
    CHECK(r.bytes_read == 16194740224.0);
    CHECK(r.arithmetic_intensity == doctest::Approx(16597393408.0 / 16194740224.0).epsilon(1e-15));
    CHECK(r.ridge_point == doctest::Approx(989.5 / 3.35).epsilon(1e-12));
    CHECK(r.bound == Bound::memory);
    CHECK(r.memory_time_s == doctest::Approx(4.83425081e-3).epsilon(1e-8));
    CHECK(r.kv_memory_time_s == doctest::Approx(134217728.0 / 3.35e12).epsilon(1e-12));
    CHECK(r.compute_time_s == doctest::Approx(16597393408.0 / 989.5e12).epsilon(1e-12));
    CHECK(r.tpot_lower_bound_s == r.memory_time_s);
    CHECK(r.attainable_flops_per_s == doctest::Approx(r.arithmetic_intensity * 3.35e12).epsilon(1e-12));
    CHECK(r.fits);
    REQUIRE(r.max_context_fitting.has_value());
    CHECK(*r.max_context_fitting == 487819);
}

TEST_CASE("decode roofline: the attention's intensity is 2 G / bytes per element, whatever the context and batch") {
    const models::ModelPreset& llama = models::model_preset("llama3-70b");
    const KvDtype dtypes[] = {KvDtype::fp32, KvDtype::fp16, KvDtype::bf16, KvDtype::fp8};
    for (std::uint64_t groups : {1u, 2u, 4u, 8u, 16u, 32u, 64u}) {
        for (KvDtype t : dtypes) {
            for (std::uint64_t context : {1u, 17u, 4096u, 131072u}) {
                for (std::uint64_t batch : {1u, 3u, 64u}) {
                    INFO("G " << groups << " dtype " << kv_dtype_name(t) << " T " << context << " B " << batch);
                    DecodeProblem p{kv_config_for_scheme(llama, KvScheme::gqa, groups), t, context, batch, 0};
                    const DecodeRoofline r = decode_roofline(p, gpu_preset("h100-sxm"));
                    const double g = 64.0 / static_cast<double>(groups);
                    CHECK(r.group_size == g);
                    CHECK(r.attention_intensity == doctest::Approx(2 * g / static_cast<double>(kv_dtype_bytes(t))));
                    // KV only: the step's intensity is the attention's.
                    CHECK(r.arithmetic_intensity == r.attention_intensity);
                }
            }
        }
    }
}

TEST_CASE("decode roofline: attention FLOPs equal the cost model's exact count for one query, on random odd shapes") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const std::uint64_t odd[] = {1, 3, 17, 113, 127, 129};
    for (int trial = 0; trial < 40; ++trial) {
        const std::uint64_t kv_heads = odd[rng() % 3], group = odd[rng() % 3];
        const std::uint64_t layers = odd[rng() % 6], head_dim = odd[rng() % 6];
        const std::uint64_t context = odd[rng() % 6] * (1 + rng() % 50), batch = 1 + rng() % 9;
        const std::uint64_t q_heads = kv_heads * group;
        const KvScheme scheme = kv_heads == q_heads ? KvScheme::mha : kv_heads == 1 ? KvScheme::mqa : KvScheme::gqa;
        const KvConfig c{scheme, layers, q_heads, kv_heads, head_dim, 0, 0, 0};
        INFO("L " << layers << " Hq " << c.q_heads << " Hkv " << kv_heads << " d " << head_dim << " T " << context
                  << " B " << batch);
        const DecodeRoofline r = decode_roofline({c, KvDtype::fp16, context, batch, 0}, gpu_preset("a100-sxm-80gb"));
        AttentionShape s;
        s.batch = batch;
        s.heads = c.q_heads;
        s.q_len = 1;
        s.kv_len = context;
        s.head_dim = s.value_dim = head_dim;
        CHECK(r.attention_flops == attention_flops(s, Pass::forward) * static_cast<double>(layers));
        CHECK(r.kv_bytes_read == static_cast<double>(2 * layers * kv_heads * head_dim * 2 * context * batch));
    }
}

TEST_CASE("decode roofline: MLA reads the latent and the RoPE key, and every head scores and mixes the latent") {
    // DeepSeek-V2: 60 layers, 128 heads, d_c = 512, d_R = 64. Per token and layer the cache holds 576
    // values (1152 B); each head does 2 x (512 + 64) FLOPs of scores and 2 x 512 of mixing, so the
    // attention's intensity is 128 x 2 x 1088 / 1152 = 241.78 FLOP/B: below the H100's ridge
    // (295.4), above the A100's (312e12 / 2.039e12 = 153.0).
    for (std::uint64_t context : {1u, 4096u, 163840u}) {
        const DecodeProblem p = preset_problem("deepseek-v2", KvScheme::mla, context, 2, false);
        const DecodeRoofline h100 = decode_roofline(p, gpu_preset("h100-sxm"));
        CHECK(h100.kv.bytes_per_token == 60 * 576 * 2);
        CHECK(h100.attention_flops == 2.0 * 60 * 128 * (2 * 512 + 64) * static_cast<double>(context) * 2);
        CHECK(h100.attention_intensity == doctest::Approx(128.0 * 2 * 1088 / 1152));
        CHECK(h100.group_size == 128);
        CHECK(h100.bound == Bound::memory);
        CHECK(decode_roofline(p, gpu_preset("a100-sxm-80gb")).bound == Bound::compute);
    }
    // The same model's MHA variant reads 2 x 128 x 128 / 576 = 56.9x the bytes at intensity 1.
    const DecodeRoofline mha = decode_roofline(preset_problem("deepseek-v2", KvScheme::mha, 4096, 1, false), gpu_preset("h100-sxm"));
    CHECK(mha.attention_intensity == 1.0);
    CHECK(mha.kv.bytes_per_token == 60 * 2 * 128 * 128 * 2);
}

TEST_CASE("decode roofline: batching shares the weight read, so intensity rises toward (2P + a) / k") {
    const DecodeRoofline one = decode_roofline(preset_problem("llama3-8b", KvScheme::gqa, 1024, 1, true), gpu_preset("h100-sxm"));
    const double per_request_flops = one.flops, per_request_kv = one.kv_bytes_read;
    double previous = 0;
    for (std::uint64_t batch : {1u, 2u, 8u, 64u, 512u, 4096u}) {
        INFO("batch " << batch);
        const DecodeRoofline r = decode_roofline(preset_problem("llama3-8b", KvScheme::gqa, 1024, batch, true), gpu_preset("h100-sxm"));
        CHECK(r.arithmetic_intensity > previous);
        CHECK(r.arithmetic_intensity < per_request_flops / per_request_kv);
        CHECK(r.weight_bytes_read == one.weight_bytes_read);  // read once per step
        CHECK(r.kv_bytes_read == per_request_kv * static_cast<double>(batch));
        previous = r.arithmetic_intensity;
    }
    // Without the weights batching changes nothing: the attention's intensity is fixed.
    for (std::uint64_t batch : {1u, 64u}) {
        CHECK(decode_roofline(preset_problem("llama3-8b", KvScheme::gqa, 1024, batch, false), gpu_preset("h100-sxm"))
                  .arithmetic_intensity == 4.0);
    }
}

TEST_CASE("decode roofline: what fits in the GPU's memory") {
    const GpuPreset& h100 = gpu_preset("h100-sxm");
    // 487,819 tokens fit next to Llama 3.1 8B's weights (see the golden case); one more does not.
    CHECK(decode_roofline(preset_problem("llama3-8b", KvScheme::gqa, 487819, 1, true), h100).fits);
    CHECK_FALSE(decode_roofline(preset_problem("llama3-8b", KvScheme::gqa, 487820, 1, true), h100).fits);
    // Two requests share the memory: half the context each.
    CHECK(*decode_roofline(preset_problem("llama3-8b", KvScheme::gqa, 1, 2, true), h100).max_context_fitting == 243909);
    // Cache only: 80e9 / 131,072 = 610,351.5.
    CHECK(*decode_roofline(preset_problem("llama3-8b", KvScheme::gqa, 1, 1, false), h100).max_context_fitting == 610351);
    // Llama 3.1 70B's weights (141.1 GB at FP16) do not fit one H100 at all.
    const DecodeRoofline big = decode_roofline(preset_problem("llama3-70b", KvScheme::gqa, 1, 1, true), h100);
    CHECK_FALSE(big.fits);
    CHECK(*big.max_context_fitting == 0);
    // Mistral 7B's rolling 4096-token cache (512 MiB) fits next to its weights: any context does.
    const DecodeRoofline mistral = decode_roofline(preset_problem("mistral-7b", KvScheme::gqa, 1000000, 1, true), h100);
    CHECK(mistral.kv.cached_tokens == 4096);
    CHECK(mistral.fits);
    CHECK_FALSE(mistral.max_context_fitting.has_value());
}

TEST_CASE("kv schemes: a preset's cache under each scheme keeps its shape, and mixtures of experts name their total") {
    const models::ModelPreset& llama = models::model_preset("llama3-70b");
    CHECK(kv_config_for_scheme(llama, KvScheme::mha).kv_heads == 64);
    CHECK(kv_config_for_scheme(llama, KvScheme::mqa).kv_heads == 1);
    CHECK(kv_config_for_scheme(llama, KvScheme::gqa).kv_heads == 8);  // the preset's own
    CHECK(kv_config_for_scheme(llama, KvScheme::gqa, 16).kv_heads == 16);
    const KvConfig mla = kv_config_for_scheme(llama, KvScheme::mla);  // DeepSeek-V2's d_c and d_R
    CHECK((mla.latent_dim == 512 && mla.rope_dim == 64 && mla.layers == 80 && mla.q_heads == 64));
    // The preset's own scheme is what kv_config_from_preset gives.
    for (const models::ModelPreset& m : models::model_presets()) {
        INFO("model " << m.id);
        const KvConfig own = kv_config_from_preset(m);
        const KvConfig variant = kv_config_for_scheme(m, own.scheme);
        CHECK(kv_cache_bytes(variant, KvDtype::fp16, 1000).bytes_per_request ==
              kv_cache_bytes(own, KvDtype::fp16, 1000).bytes_per_request);
        CHECK(variant.sliding_window == m.sliding_window.value);
        CHECK(m.active_parameters.value > 0);
        CHECK_FALSE(m.active_parameters.source.empty());
        // A Mixture-of-Experts model names its total, larger than what one token activates.
        if (m.total_parameters) {
            CHECK(m.total_parameters->value > m.active_parameters.value);
            CHECK_FALSE(m.total_parameters->source.empty());
        }
    }
    // The two DeepSeek models are the mixtures of experts; the rest are dense.
    for (const models::ModelPreset& m : models::model_presets()) {
        INFO("model " << m.id);
        CHECK(m.total_parameters.has_value() == (m.id == "deepseek-v2" || m.id == "deepseek-v3"));
    }
    CHECK(models::model_preset("deepseek-v2").total_parameters->value == 236000000000ULL);
    CHECK(models::model_preset("deepseek-v3").total_parameters->value == 671000000000ULL);
    // DeepSeek-V2 (MHA-sized kv_heads in its config) gets 8 groups under GQA.
    CHECK(kv_config_for_scheme(models::model_preset("deepseek-v2"), KvScheme::gqa).kv_heads == 8);
    for (KvScheme s : {KvScheme::mha, KvScheme::mqa, KvScheme::gqa, KvScheme::mla}) CHECK(kv_scheme_from_name(kv_scheme_name(s)) == s);
    test::check_error([] { kv_scheme_from_name("gqa8"); }, "scheme: unknown name 'gqa8'; valid names are mha, mqa, gqa, mla");
    test::check_error([] { kv_config_for_scheme(models::model_preset("gpt2-xl"), KvScheme::gqa); },
                      "kv_heads: must divide q_heads (25)");
}

TEST_CASE("decode roofline: arguments are validated") {
    const GpuPreset& h100 = gpu_preset("h100-sxm");
    DecodeProblem p = preset_problem("llama3-8b", KvScheme::gqa, 1024, 1, true);
    test::check_error([&] { decode_roofline({p.cache, p.dtype, 0, 1, 0}, h100); }, "context_tokens: must be in [1, ");
    test::check_error([&] { decode_roofline({p.cache, p.dtype, 1, 0, 0}, h100); }, "batch: must be in [1, ");
    test::check_error([&] { decode_roofline({p.cache, p.dtype, 1, 1, (std::uint64_t{1} << 50) + 1}, h100); },
                      "weight_parameters: must be in [0, 1125899906842624]");
    test::check_error([&] { decode_roofline({p.cache, KvDtype::fp8, 1, 1, 0}, gpu_preset("a100-sxm-80gb")); },
                      "precision: NVIDIA A100 80GB SXM has no dense fp8 peak");
    KvConfig bad = p.cache;
    bad.kv_heads = 3;
    test::check_error([&] { decode_roofline({bad, p.dtype, 1, 1, 0}, h100); }, "kv_heads: must divide q_heads (32)");
    GpuPreset unpublished = h100;
    unpublished.hbm_bytes.value = std::nan("");
    test::check_error([&] { decode_roofline(p, unpublished); }, "gpu: NVIDIA H100 SXM5 80GB has no published memory size");
}
