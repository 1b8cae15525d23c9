// GQA uptraining's conversion step (Ainslie et al. 2023, Sec. 2.1): mean-pooled K/V heads, checked
// against the MHA model they come from. Double precision throughout.
#include <cmath>
#include <vector>

#include "attn/attention/sdpa.hpp"
#include "attn/error.hpp"
#include "attn/kvcache/gqa_conversion.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::kvcache;

namespace {

// Sums of a few O(1) products and a softmax: rounding stays far below this.
constexpr double kTol = 1e-12;

Tensor4<double> hidden(std::size_t batch, std::size_t seq, std::size_t model_dim, std::uint64_t seed) {
    return test::randn({batch, 1, seq, model_dim}, seed);
}

// [B, H, S, D] -> [B, G, S, D]: the mean of each group of H / G consecutive heads.
Tensor4<double> mean_of_groups(const Tensor4<double>& t, std::size_t groups) {
    const std::size_t per = t.shape.heads / groups;
    Tensor4<double> r({t.shape.batch, groups, t.shape.seq, t.shape.dim});
    for (std::size_t b = 0; b < t.shape.batch; ++b)
        for (std::size_t g = 0; g < groups; ++g)
            for (std::size_t s = 0; s < t.shape.seq; ++s)
                for (std::size_t d = 0; d < t.shape.dim; ++d) {
                    double sum = 0;
                    for (std::size_t j = 0; j < per; ++j) sum += t.at(b, g * per + j, s, d);
                    r.at(b, g, s, d) = sum / static_cast<double>(per);
                }
    return r;
}

// Each of the G heads repeated H / G times (SDPA's repeat_interleave), for a plain MHA call.
Tensor4<double> repeat_heads(const Tensor4<double>& t, std::size_t times) {
    Tensor4<double> r({t.shape.batch, t.shape.heads * times, t.shape.seq, t.shape.dim});
    for (std::size_t b = 0; b < t.shape.batch; ++b)
        for (std::size_t h = 0; h < r.shape.heads; ++h)
            for (std::size_t s = 0; s < t.shape.seq; ++s)
                for (std::size_t d = 0; d < t.shape.dim; ++d) r.at(b, h, s, d) = t.at(b, h / times, s, d);
    return r;
}

}  // namespace

TEST_CASE("gqa conversion: G = H keeps the multi-head model exactly") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (std::size_t heads : {1, 3, 17}) {
        const AttentionProjections mha = random_mha_projections(13, heads, 5, 7, seed + heads);
        const AttentionProjections same = mean_pool_kv_heads(mha, heads);
        CHECK(same.kv_heads == heads);
        CHECK(same.w_k == mha.w_k);  // a mean of one head is that head, bit for bit
        CHECK(same.w_v == mha.w_v);
        const Tensor4<double> x = hidden(2, 17, 13, seed + 100 + heads);
        const ProjectedQkv a = project_qkv(mha, x), b = project_qkv(same, x);
        CHECK(sdpa(a.q, a.k, a.v).output.data == sdpa(b.q, b.k, b.v).output.data);
    }
}

TEST_CASE("gqa conversion: G = 1 is multi-query attention with the mean of all heads") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::size_t heads = 6, model_dim = 11, head_dim = 3, value_dim = 4;
    const AttentionProjections mha = random_mha_projections(model_dim, heads, head_dim, value_dim, seed);
    const AttentionProjections mqa = mean_pool_kv_heads(mha, 1);
    REQUIRE(mqa.kv_heads == 1);
    REQUIRE(mqa.w_k.size() == head_dim * model_dim);
    REQUIRE(mqa.w_v.size() == value_dim * model_dim);
    for (std::size_t n = 0; n < head_dim * model_dim; ++n) {
        double sum = 0;
        for (std::size_t h = 0; h < heads; ++h) sum += mha.w_k[h * head_dim * model_dim + n];
        CHECK(std::abs(mqa.w_k[n] - sum / heads) < 1e-15);
    }
    for (std::size_t n = 0; n < value_dim * model_dim; ++n) {
        double sum = 0;
        for (std::size_t h = 0; h < heads; ++h) sum += mha.w_v[h * value_dim * model_dim + n];
        CHECK(std::abs(mqa.w_v[n] - sum / heads) < 1e-15);
    }
    CHECK(mqa.w_q == mha.w_q);
}

TEST_CASE("gqa conversion: the converted model is SDPA-GQA on the pooled projections, for every G") {
    // Pooling weights then projecting equals projecting with every head then averaging the K/V
    // rows (linearity), and SDPA's GQA broadcast equals MHA on repeated heads. Queries and keys
    // come from different sequences so that L != S; every causal alignment.
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    struct Case {
        std::size_t heads, groups, model_dim, head_dim, value_dim, q_len, kv_len;
    };
    const Case cases[] = {{12, 1, 9, 4, 3, 3, 17},  {12, 2, 9, 4, 3, 17, 3},  {12, 3, 16, 8, 8, 17, 17},
                          {12, 4, 5, 1, 2, 1, 29},  {12, 6, 7, 3, 5, 13, 6}, {9, 3, 17, 5, 7, 17, 113},
                          {17, 17, 3, 2, 2, 5, 1},  {17, 1, 3, 2, 2, 1, 5}};
    for (const Case& c : cases) {
        for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right}) {
            CAPTURE(c.heads);
            CAPTURE(c.groups);
            CAPTURE(static_cast<int>(causal));
            const AttentionProjections mha =
                random_mha_projections(c.model_dim, c.heads, c.head_dim, c.value_dim, seed + c.heads + c.groups);
            const AttentionProjections gqa = mean_pool_kv_heads(mha, c.groups);
            const Tensor4<double> xq = hidden(2, c.q_len, c.model_dim, seed + 7), xkv = hidden(2, c.kv_len, c.model_dim, seed + 8);
            SdpaOptions o;
            o.causal = causal;

            const ProjectedQkv pq = project_qkv(gqa, xq), pkv = project_qkv(gqa, xkv);
            REQUIRE(pkv.k.shape.heads == c.groups);
            const auto converted = sdpa(pq.q, pkv.k, pkv.v, o);

            const ProjectedQkv mq = project_qkv(mha, xq), mkv = project_qkv(mha, xkv);
            CHECK(test::max_abs_diff(pq.q.data, mq.q.data) == 0.0);
            const std::size_t per = c.heads / c.groups;
            const Tensor4<double> k = repeat_heads(mean_of_groups(mkv.k, c.groups), per);
            const Tensor4<double> v = repeat_heads(mean_of_groups(mkv.v, c.groups), per);
            CHECK(test::max_abs_diff(converted.output.data, sdpa(mq.q, k, v, o).output.data) < kTol);
            CHECK(test::max_abs_diff(converted.lse, sdpa(mq.q, k, v, o).lse) < kTol);
        }
    }
}

TEST_CASE("gqa conversion: argument validation") {
    const AttentionProjections mha = random_mha_projections(8, 6, 4, 4, 1);
    CHECK_THROWS_WITH_AS(mean_pool_kv_heads(mha, 0), doctest::Contains("groups: must be in [1, 6] and divide q_heads (6), got 0"),
                         Error);
    CHECK_THROWS_WITH_AS(mean_pool_kv_heads(mha, 4), doctest::Contains("groups"), Error);
    CHECK_THROWS_WITH_AS(mean_pool_kv_heads(mha, 12), doctest::Contains("groups"), Error);
    CHECK_THROWS_WITH_AS(mean_pool_kv_heads(mean_pool_kv_heads(mha, 3), 3),
                         doctest::Contains("mha: the checkpoint must be multi-head"), Error);
    AttentionProjections bad = mha;
    bad.w_k.pop_back();
    CHECK_THROWS_WITH_AS(mean_pool_kv_heads(bad, 2), doctest::Contains("w_k: expected 24 x 8 = 192 elements, got 191"),
                         Error);
    bad = mha;
    bad.w_v[5] = NAN;
    CHECK_THROWS_WITH_AS(validate_projections(bad), doctest::Contains("w_v: element 5 is not finite"), Error);
    bad = mha;
    bad.kv_heads = 4;
    CHECK_THROWS_WITH_AS(validate_projections(bad), doctest::Contains("kv_heads: must divide q_heads (6)"), Error);
    bad = mha;
    bad.head_dim = 0;
    CHECK_THROWS_WITH_AS(validate_projections(bad), doctest::Contains("head_dim: must be in [1, 65536]"), Error);
    CHECK_THROWS_WITH_AS(random_mha_projections(0, 6, 4, 4, 1), doctest::Contains("model_dim"), Error);
    CHECK_THROWS_WITH_AS(project_qkv(mha, Tensor4<double>({1, 2, 3, 8})), doctest::Contains("x: expected shape"), Error);
    CHECK_THROWS_WITH_AS(project_qkv(mha, Tensor4<double>({1, 1, 3, 7})), doctest::Contains("x: expected shape"), Error);
    Tensor4<double> x({1, 1, 2, 8});
    x.data[3] = INFINITY;
    CHECK_THROWS_WITH_AS(project_qkv(mha, x), doctest::Contains("x: element 3 is not finite"), Error);
}

TEST_CASE("gqa conversion effects: none at G = H or with identical heads, and it grows as heads differ and groups shrink") {
    const Tensor4<double> x = hidden(2, 19, 12, 41);  // odd sizes, two sequences
    // Independent heads: every pooling changes the output, and fewer groups change it more.
    const auto independent = gqa_conversion_effects(similar_head_projections(12, 6, 4, 5, 0.0, 3), x);
    REQUIRE(independent.size() == 4);  // G = 6, 3, 2, 1
    CHECK(independent[0].groups == 6);
    CHECK(independent[0].relative_change == 0.0);
    CHECK(independent[3].groups == 1);
    for (std::size_t i = 1; i < independent.size(); ++i) {
        CHECK(independent[i].relative_change > 0.05);
        CHECK(independent[i].relative_change >= independent[i - 1].relative_change);
    }
    // Identical K/V heads: pooling them is the identity.
    for (const auto& e : gqa_conversion_effects(similar_head_projections(12, 6, 4, 5, 1.0, 3), x)) {
        CHECK(e.relative_change < kTol);
    }
    // Similar heads lose less than independent ones at every G.
    const auto similar = gqa_conversion_effects(similar_head_projections(12, 6, 4, 5, 0.9, 3), x);
    for (std::size_t i = 1; i < similar.size(); ++i) CHECK(similar[i].relative_change < independent[i].relative_change);
    // The change is what the pooled layer computes: check G = 3 directly against sdpa.
    const AttentionProjections mha = similar_head_projections(12, 6, 4, 5, 0.0, 3);
    const ProjectedQkv a = project_qkv(mha, x), b = project_qkv(mean_pool_kv_heads(mha, 3), x);
    const Tensor4<double> o = sdpa(a.q, a.k, a.v).output, o3 = sdpa(b.q, b.k, b.v).output;
    double diff = 0, norm = 0;
    for (std::size_t n = 0; n < o.data.size(); ++n) diff += (o3.data[n] - o.data[n]) * (o3.data[n] - o.data[n]), norm += o.data[n] * o.data[n];
    CHECK(independent[1].relative_change == doctest::Approx(std::sqrt(diff / norm)).epsilon(1e-12));
    CHECK_THROWS_WITH_AS(similar_head_projections(12, 6, 4, 5, 1.5, 3), doctest::Contains("similarity: must be in [0, 1], got 1.5"), Error);
    CHECK_THROWS_WITH_AS(similar_head_projections(12, 6, 4, 5, NAN, 3), doctest::Contains("similarity: must be in [0, 1]"), Error);
}
