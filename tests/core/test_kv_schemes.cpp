// KV-cache sizes under MHA / MQA / GQA / MLA and sliding windows: the formula's terms, published
// figures, the plan's Part 4 table (corrected where it is wrong), and argument validation.
#include <cmath>
#include <cstdint>
#include <string>

#include "attn/error.hpp"
#include "attn/kvcache/kv_schemes.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::kvcache;

namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
constexpr KvDtype kDtypes[] = {KvDtype::fp32, KvDtype::fp16, KvDtype::bf16, KvDtype::fp8};

std::uint64_t product_of_terms(const KvBytes& r) {
    std::uint64_t p = 1;
    for (const KvTerm& t : r.terms) p *= t.value;
    return p;
}

}  // namespace

TEST_CASE("kv schemes: dtype names and sizes") {
    CHECK(kv_dtype_bytes(KvDtype::fp32) == 4);
    CHECK(kv_dtype_bytes(KvDtype::fp16) == 2);
    CHECK(kv_dtype_bytes(KvDtype::bf16) == 2);
    CHECK(kv_dtype_bytes(KvDtype::fp8) == 1);
    for (KvDtype t : kDtypes) CHECK(kv_dtype_from_name(kv_dtype_name(t)) == t);
    CHECK_THROWS_WITH_AS(kv_dtype_from_name("int4"), doctest::Contains("dtype: unknown name 'int4'"), Error);
    CHECK(kv_scheme_name(KvScheme::gqa) == "gqa");
}

TEST_CASE("kv schemes golden: the plan's Llama-3-70B-like table at FP16, corrected") {
    // 80 layers, 64 query heads of 128 (the plan's Part 4, item 5). Per token:
    //   MHA    2 x 80 x 64 x 128 x 2 B = 2,621,440 B = 2.5 MiB
    //   MQA    2 x 80 x  1 x 128 x 2 B =    40,960 B = 40 KiB
    //   GQA-8  2 x 80 x  8 x 128 x 2 B =   327,680 B = 320 KiB
    //   MLA    80 x (512 + 64) x 2 B   =    92,160 B = 90 KiB   (DeepSeek-V2 d_c and d_h^R)
    // The plan's MHA/MQA/GQA rows are right in binary units (its "MB/GB" are MiB/GiB). Its MLA row
    // (~21 KB, 168 MB, 670 MB, 2.7 GB) is wrong: it leaves out the RoPE key and undercounts the
    // latent; the correct row is 90 KiB, 720 MiB, 2.8125 GiB, 11.25 GiB.
    struct Row {
        KvScheme scheme;
        std::uint64_t per_token, at_8k, at_32k, at_128k;
    };
    const Row expected[] = {
        {KvScheme::mha, 2 * MiB + 512 * KiB, 20 * GiB, 80 * GiB, 320 * GiB},
        {KvScheme::mqa, 40 * KiB, 320 * MiB, 1 * GiB + 256 * MiB, 5 * GiB},
        {KvScheme::gqa, 320 * KiB, 2 * GiB + 512 * MiB, 10 * GiB, 40 * GiB},
        {KvScheme::mla, 90 * KiB, 720 * MiB, 2 * GiB + 832 * MiB, 11 * GiB + 256 * MiB},
    };
    const std::uint64_t contexts[] = {8 * 1024, 32 * 1024, 128 * 1024};
    for (std::size_t c = 0; c < 3; ++c) {
        const auto rows = compare_kv_schemes({}, KvDtype::fp16, contexts[c]);
        REQUIRE(rows.size() == 4);
        for (std::size_t r = 0; r < 4; ++r) {
            CAPTURE(r);
            CHECK(rows[r].config.scheme == expected[r].scheme);
            CHECK(rows[r].bytes_per_token == expected[r].per_token);
            const std::uint64_t want[] = {expected[r].at_8k, expected[r].at_32k, expected[r].at_128k};
            CHECK(rows[r].bytes_per_request == want[c]);
            CHECK(rows[r].total_bytes == want[c]);
        }
    }
    // What the plan printed for MLA is not what the model caches: even the latent alone
    // (80 x 512 x 2 B = 80 KiB) is about 4x its "~21 KB".
    const auto mla = compare_kv_schemes({}, KvDtype::fp16, 1)[3];
    CHECK(mla.bytes_per_token > 4 * 21 * 1000);
    CHECK(mla.config.latent_dim == 512);
    CHECK(mla.config.rope_dim == 64);
}

TEST_CASE("kv schemes golden: published figures through the model presets") {
    // PagedAttention (Kwon et al., SOSP 2023), Sec. 3: OPT-13B caches 800 KB per token at FP16,
    // "2 (key and value vectors) x 5120 (hidden state size) x 40 (number of layers) x 2 (bytes per FP16)".
    const KvBytes opt = kv_cache_bytes(kv_config_from_preset(models::model_preset("opt-13b")), KvDtype::fp16, 1);
    CHECK(opt.config.scheme == KvScheme::mha);
    CHECK(opt.bytes_per_token == 800 * KiB);

    // DeepSeek-V2 (arXiv:2405.04434), Table 1 and Sec. 2.1.4: MLA caches (d_c + d_h^R) l elements
    // per token, with d_c = 4 d_h and d_h^R = d_h / 2 that is 9/2 d_h l -- "equal to GQA with only
    // 2.25 groups".
    const auto& v2 = models::model_preset("deepseek-v2");
    const KvBytes mla = kv_cache_bytes(kv_config_from_preset(v2), KvDtype::fp16, 1);
    CHECK(mla.config.scheme == KvScheme::mla);
    CHECK(2 * mla.elements_per_token_per_layer == 9 * v2.head_dim.value);
    CHECK(4 * mla.elements_per_token_per_layer == 2 * 9 * v2.head_dim.value);  // 2 x 2.25 x d_h, x 4 to stay integral

    // The plan's worked example (Part 4, item 1): Llama 3 70B with GQA, FP16: 320 KB per token and
    // 40 GB at 128k (binary units); 320 GB without GQA (MHA with its 64 query heads).
    const auto& llama = models::model_preset("llama3-70b");
    const KvBytes gqa = kv_cache_bytes(kv_config_from_preset(llama), KvDtype::fp16, llama.max_context.value);
    CHECK(gqa.config.scheme == KvScheme::gqa);
    CHECK(gqa.bytes_per_token == 320 * KiB);
    CHECK(gqa.bytes_per_request == 40 * GiB);
    const KvBytes mha = kv_cache_bytes(mha_config(80, 64, 128), KvDtype::fp16, llama.max_context.value);
    CHECK(mha.bytes_per_request == 320 * GiB);

    // Mistral 7B (Jiang et al. 2023), Table 1 and Sec. 2: 32 layers, 8 KV heads of 128, rolling
    // buffer of W = 4096 tokens: 128 KiB per token at FP16, at most 4096 x 128 KiB = 512 MiB.
    const KvConfig mistral = kv_config_from_preset(models::model_preset("mistral-7b"));
    CHECK(mistral.sliding_window == 4096);
    CHECK(kv_cache_bytes(mistral, KvDtype::fp16, 1).bytes_per_token == 128 * KiB);
    CHECK(kv_cache_bytes(mistral, KvDtype::fp16, 8192).bytes_per_request == 512 * MiB);
}

TEST_CASE("kv schemes: sliding windows stop the growth, batch and dtype scale linearly") {
    KvConfig c = gqa_config(7, 12, 3, 17);
    c.sliding_window = 113;
    for (std::uint64_t context : {1ull, 3ull, 112ull, 113ull, 114ull, 129ull, 100000ull}) {
        CAPTURE(context);
        const KvBytes r = kv_cache_bytes(c, KvDtype::fp16, context, 5);
        CHECK(r.cached_tokens == std::min<std::uint64_t>(context, 113));
        CHECK(r.bytes_per_request == r.bytes_per_token * r.cached_tokens);
        CHECK(r.total_bytes == 5 * r.bytes_per_request);
        CHECK(r.context_tokens == context);
    }
    for (KvDtype t : kDtypes) {
        CHECK(kv_cache_bytes(c, t, 1).bytes_per_token == 2 * 7 * 3 * 17 * kv_dtype_bytes(t));
    }
}

TEST_CASE("kv schemes: every preset and dtype, terms multiply to the per-token size") {
    for (const models::ModelPreset& p : models::model_presets()) {
        for (KvDtype t : kDtypes) {
            CAPTURE(std::string(p.id));
            const KvBytes r = kv_cache_bytes(kv_config_from_preset(p), t, 129, 3);
            CHECK(product_of_terms(r) == r.bytes_per_token);
            CHECK(r.terms.back().value == kv_dtype_bytes(t));
            if (p.mla) {
                CHECK(r.elements_per_token_per_layer == p.mla->kv_lora_rank.value + p.mla->qk_rope_head_dim.value);
                CHECK(r.formula == "L x (d_c + d_R) x bytes");
                CHECK(r.terms.size() == 3);
            } else {
                CHECK(r.bytes_per_token == 2 * p.layers.value * p.kv_heads.value * p.head_dim.value * kv_dtype_bytes(t));
                CHECK(r.formula == "2 x L x H_kv x d_h x bytes");
                CHECK(r.terms.size() == 5);
            }
        }
    }
}

TEST_CASE("kv schemes: random explicit shapes, MQA and GQA shrink MHA by H and H / G") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (std::uint64_t n = 0; n < 50; ++n) {
        const auto draw = [&](std::uint64_t k, std::uint64_t hi) {
            return 1 + static_cast<std::uint64_t>(uniform_from_hash(seed, 4 * n + k) * static_cast<double>(hi));
        };
        const std::uint64_t layers = draw(0, 129), groups = draw(1, 17), head_dim = draw(2, 257);
        const std::uint64_t heads = groups * draw(3, 9);
        CAPTURE(layers);
        CAPTURE(heads);
        CAPTURE(groups);
        CAPTURE(head_dim);
        const auto mha = kv_cache_bytes(mha_config(layers, heads, head_dim), KvDtype::bf16, 127);
        const auto mqa = kv_cache_bytes(mqa_config(layers, heads, head_dim), KvDtype::bf16, 127);
        const auto gqa = kv_cache_bytes(gqa_config(layers, heads, groups, head_dim), KvDtype::bf16, 127);
        CHECK(mha.bytes_per_request == heads * mqa.bytes_per_request);
        CHECK(mha.bytes_per_request * groups == heads * gqa.bytes_per_request);
        CHECK(mha.bytes_per_request == 127 * product_of_terms(mha));
        const auto mla = kv_cache_bytes(mla_config(layers, heads, head_dim, 2 * groups), KvDtype::fp8, 17);
        CHECK(mla.bytes_per_request == 17 * layers * (head_dim + 2 * groups));
    }
}

TEST_CASE("kv schemes: argument validation") {
    CHECK_THROWS_WITH_AS(mha_config(0, 8, 64), doctest::Contains("layers: must be in [1, 1048576], got 0"), Error);
    CHECK_THROWS_WITH_AS(mha_config(2, 0, 64), doctest::Contains("q_heads"), Error);
    CHECK_THROWS_WITH_AS(mqa_config(2, 8, 0), doctest::Contains("head_dim"), Error);
    CHECK_THROWS_WITH_AS(gqa_config(2, 12, 5, 64), doctest::Contains("kv_heads: must divide q_heads (12)"), Error);
    CHECK_THROWS_WITH_AS(gqa_config(2, 12, 13, 64), doctest::Contains("kv_heads: must be in [1, 12]"), Error);
    CHECK_THROWS_WITH_AS(mla_config(2, 8, 0, 64), doctest::Contains("latent_dim"), Error);
    CHECK_THROWS_WITH_AS(mla_config(2, 8, 512, 0), doctest::Contains("rope_dim"), Error);

    KvConfig bad = mha_config(2, 8, 64);
    bad.kv_heads = 4;
    CHECK_THROWS_WITH_AS(validate_kv_config(bad), doctest::Contains("kv_heads: must equal q_heads (8) under mha"), Error);
    bad = mqa_config(2, 8, 64);
    bad.kv_heads = 2;
    CHECK_THROWS_WITH_AS(validate_kv_config(bad), doctest::Contains("kv_heads: must be 1 under mqa"), Error);
    bad = mla_config(2, 8, 512, 64);
    bad.kv_heads = 8;
    CHECK_THROWS_WITH_AS(validate_kv_config(bad), doctest::Contains("kv_heads: must be 0 under mla"), Error);
    bad = gqa_config(2, 8, 2, 64);
    bad.latent_dim = 16;
    CHECK_THROWS_WITH_AS(validate_kv_config(bad), doctest::Contains("latent_dim: must be 0 under gqa"), Error);
    bad = gqa_config(2, 8, 2, 64);
    bad.sliding_window = (std::uint64_t{1} << 32) + 1;
    CHECK_THROWS_WITH_AS(validate_kv_config(bad), doctest::Contains("sliding_window"), Error);

    const KvConfig ok = gqa_config(2, 8, 2, 64);
    CHECK_THROWS_WITH_AS(kv_cache_bytes(ok, KvDtype::fp16, 0), doctest::Contains("context_tokens: must be in [1, "), Error);
    CHECK_THROWS_WITH_AS(kv_cache_bytes(ok, KvDtype::fp16, (std::uint64_t{1} << 32) + 1),
                         doctest::Contains("context_tokens"), Error);
    CHECK_THROWS_WITH_AS(kv_cache_bytes(ok, KvDtype::fp16, 1, 0), doctest::Contains("batch: must be in [1, "), Error);
    CHECK_THROWS_WITH_AS(kv_cache_bytes(ok, static_cast<KvDtype>(9), 1), doctest::Contains("dtype"), Error);
    // 2^20 layers x 2^20 heads x 2^20 x 2 x 4 bytes per token x 2^32 tokens overflows 64 bits.
    const std::uint64_t big = std::uint64_t{1} << 20;
    CHECK_THROWS_WITH_AS(kv_cache_bytes(mha_config(big, big, big), KvDtype::fp32, std::uint64_t{1} << 32),
                         doctest::Contains("does not fit in 64 bits"), Error);
    SchemeComparisonShape shape;
    shape.gqa_groups = 7;
    CHECK_THROWS_WITH_AS(compare_kv_schemes(shape, KvDtype::fp16, 1), doctest::Contains("kv_heads: must divide"), Error);
}
