// sdpa: the dense reference, checked by hand and against its own definitions (masks, causal
// alignments, GQA, dropout). Double precision throughout.
#include <cmath>
#include <functional>

#include "attn/attention/sdpa.hpp"
#include "support.hpp"

using namespace attn;

namespace {

constexpr double kTol = 1e-12;

AttentionMask mask_from(Shape4 shape, const std::function<bool(std::size_t, std::size_t)>& allowed) {
    std::vector<std::uint8_t> m(shape.numel());
    for (std::size_t n = 0; n < m.size(); ++n) m[n] = allowed((n / shape.dim) % shape.seq, n % shape.dim);
    return AttentionMask::boolean(shape, std::move(m));
}

// K/V with each head repeated `group` times along the head axis (SDPA's repeat_interleave).
Tensor4<double> repeat_heads(const Tensor4<double>& t, std::size_t group) {
    Tensor4<double> r({t.shape.batch, t.shape.heads * group, t.shape.seq, t.shape.dim});
    for (std::size_t b = 0; b < t.shape.batch; ++b)
        for (std::size_t h = 0; h < r.shape.heads; ++h)
            for (std::size_t s = 0; s < t.shape.seq; ++s)
                for (std::size_t d = 0; d < t.shape.dim; ++d) r.at(b, h, s, d) = t.at(b, h / group, s, d);
    return r;
}

}  // namespace

TEST_CASE("a hand-computed example") {
    // scores = [0, ln 3] -> probabilities [1/4, 3/4]; output 1/4 * 4 + 3/4 * 8 = 7; lse = ln 4.
    const Tensor4<double> q({1, 1, 1, 1}, {1.0});
    const Tensor4<double> k({1, 1, 2, 1}, {0.0, std::log(3.0)});
    const Tensor4<double> v({1, 1, 2, 1}, {4.0, 8.0});
    SdpaOptions o;
    o.scale = 1.0;
    o.return_probs = true;
    const auto r = sdpa(q, k, v, o);
    CHECK(r.output.data[0] == doctest::Approx(7.0));
    CHECK(r.lse[0] == doctest::Approx(std::log(4.0)));
    CHECK(r.probs[0] == doctest::Approx(0.25));
    CHECK(r.probs[1] == doctest::Approx(0.75));
}

TEST_CASE("default scale is 1/sqrt(head_dim), identical keys give the mean of the values") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const auto [q, k, v] = test::random_qkv({2, 3, 5, 16}, 3, 9, 7, seed);
    SdpaOptions explicit_scale;
    explicit_scale.scale = 0.25;
    CHECK(test::max_abs_diff(sdpa(q, k, v).output.data, sdpa(q, k, v, explicit_scale).output.data) < kTol);

    Tensor4<double> same_keys(k.shape, 0.5);
    const auto r = sdpa(q, same_keys, v);
    for (std::size_t c = 0; c < 7; ++c) {
        double mean = 0;
        for (std::size_t j = 0; j < 9; ++j) mean += v.at(1, 2, j, c) / 9;
        CHECK(r.output.at(1, 2, 4, c) == doctest::Approx(mean).epsilon(1e-12));
    }
}

TEST_CASE("probabilities sum to one and lse is the log-sum-exp of the scaled scores") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const auto [q, k, v] = test::random_qkv({1, 2, 17, 8}, 2, 13, 8, seed);
    SdpaOptions o;
    o.return_probs = true;
    const auto r = sdpa(q, k, v, o);
    for (std::size_t h = 0; h < 2; ++h) {
        for (std::size_t i = 0; i < 17; ++i) {
            double sum = 0, sum_exp = 0;
            for (std::size_t j = 0; j < 13; ++j) {
                sum += r.probs[((h * 17) + i) * 13 + j];
                double dot = 0;
                for (std::size_t c = 0; c < 8; ++c) dot += q.at(0, h, i, c) * k.at(0, h, j, c);
                sum_exp += std::exp(dot / std::sqrt(8.0));
            }
            CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
            CHECK(r.lse[h * 17 + i] == doctest::Approx(std::log(sum_exp)).epsilon(1e-12));
        }
    }
}

TEST_CASE("boolean, additive and broadcast masks agree") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::size_t B = 2, H = 3, L = 11, S = 6;
    const auto [q, k, v] = test::random_qkv({B, H, L, 4}, H, S, 5, seed);
    auto allowed = [](std::size_t i, std::size_t j) { return (i * 7 + j * 3) % 4 != 0; };

    SdpaOptions boolean, additive, full;
    boolean.mask = mask_from({1, 1, L, S}, allowed);
    std::vector<float> bias(L * S);
    for (std::size_t n = 0; n < bias.size(); ++n) bias[n] = allowed(n / S, n % S) ? 0.0f : -INFINITY;
    additive.mask = AttentionMask::additive({1, 1, L, S}, bias);
    full.mask = mask_from({B, H, L, S}, allowed);
    const auto a = sdpa(q, k, v, boolean), b = sdpa(q, k, v, additive), c = sdpa(q, k, v, full);
    CHECK(test::max_abs_diff(a.output.data, b.output.data) < kTol);
    CHECK(test::max_abs_diff(a.output.data, c.output.data) < kTol);

    // A finite additive bias shifts scores: +ln 2 on one key doubles its weight before normalising.
    SdpaOptions shifted;
    shifted.return_probs = true;
    std::vector<float> one_key(S, 0.0f);
    one_key[2] = static_cast<float>(std::log(2.0));
    shifted.mask = AttentionMask::additive({1, 1, 1, S}, one_key);
    SdpaOptions plain;
    plain.return_probs = true;
    const auto with = sdpa(q, k, v, shifted), without = sdpa(q, k, v, plain);
    const double ratio_with = with.probs[2] / with.probs[0], ratio_without = without.probs[2] / without.probs[0];
    CHECK(ratio_with / ratio_without == doctest::Approx(2.0).epsilon(1e-6));  // ln 2 rounded to float
}

TEST_CASE("causal alignments equal their explicit masks, for L < S, L == S and L > S") {
    for (auto [L, S] : {std::pair<std::size_t, std::size_t>{5, 9}, {7, 7}, {9, 4}, {1, 17}, {17, 1}}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " L=" << L << " S=" << S);
        const auto [q, k, v] = test::random_qkv({1, 2, L, 8}, 2, S, 3, seed);
        SdpaOptions top_left, bottom_right, top_left_mask, bottom_right_mask;
        top_left.causal = Causal::top_left;
        bottom_right.causal = Causal::bottom_right;
        top_left_mask.mask = mask_from({1, 1, L, S}, [](std::size_t i, std::size_t j) { return j <= i; });
        bottom_right_mask.mask = mask_from({1, 1, L, S}, [&](std::size_t i, std::size_t j) { return j + L <= i + S; });
        CHECK(test::max_abs_diff(sdpa(q, k, v, top_left).output.data, sdpa(q, k, v, top_left_mask).output.data) < kTol);
        CHECK(test::max_abs_diff(sdpa(q, k, v, bottom_right).output.data,
                                 sdpa(q, k, v, bottom_right_mask).output.data) < kTol);
        if (L == S) {
            CHECK(test::max_abs_diff(sdpa(q, k, v, top_left).output.data, sdpa(q, k, v, bottom_right).output.data) ==
                  0.0);
        }
        // The last query row sees every key under bottom-right alignment.
        if (L <= S) {
            const auto dense = sdpa(q, k, v), br = sdpa(q, k, v, bottom_right);
            CHECK(br.output.at(0, 1, L - 1, 0) == doctest::Approx(dense.output.at(0, 1, L - 1, 0)).epsilon(1e-12));
        }
    }
}

TEST_CASE("grouped-query attention equals multi-head attention with K/V heads repeated") {
    for (auto [hq, hkv] : {std::pair<std::size_t, std::size_t>{8, 2}, {6, 3}, {4, 1}, {3, 3}}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " Hq=" << hq << " Hkv=" << hkv);
        const auto [q, k, v] = test::random_qkv({2, hq, 13, 8}, hkv, 10, 6, seed);
        SdpaOptions o;
        o.causal = Causal::bottom_right;
        const auto gqa = sdpa(q, k, v, o);
        const auto mha = sdpa(q, repeat_heads(k, hq / hkv), repeat_heads(v, hq / hkv), o);
        CHECK(test::max_abs_diff(gqa.output.data, mha.output.data) == 0.0);
        CHECK(test::max_abs_diff(gqa.lse, mha.lse) == 0.0);
    }
}

TEST_CASE("rows with no allowed key give zeros and lse = -inf, never NaN") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const auto [q, k, v] = test::random_qkv({1, 1, 6, 4}, 1, 3, 2, seed);
    SdpaOptions o;
    o.causal = Causal::bottom_right;  // L = 6 > S = 3: rows 0..2 see nothing
    o.return_probs = true;
    const auto r = sdpa(q, k, v, o);
    for (std::size_t i = 0; i < 6; ++i) {
        const bool empty = i < 3;
        CHECK(std::isinf(r.lse[i]) == empty);
        for (std::size_t c = 0; c < 2; ++c) {
            CHECK_FALSE(std::isnan(r.output.at(0, 0, i, c)));
            if (empty) CHECK(r.output.at(0, 0, i, c) == 0.0);
        }
        for (std::size_t j = 0; empty && j < 3; ++j) CHECK(r.probs[i * 3 + j] == 0.0);
    }

    SdpaOptions all_blocked;
    all_blocked.mask = AttentionMask::additive({1, 1, 1, 3}, {-INFINITY, -INFINITY, -INFINITY});
    const auto blocked = sdpa(q, k, v, all_blocked);
    for (double x : blocked.output.data) CHECK(x == 0.0);
    for (double l : blocked.lse) CHECK(l == -INFINITY);
}

TEST_CASE("dropout is seeded, drops about p of the weights and rescales the rest by 1/(1-p)") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::size_t L = 64, S = 128;
    const auto [q, k, v] = test::random_qkv({2, 4, L, 8}, 4, S, 8, seed);
    SdpaOptions none, drop, same, other;
    none.return_probs = drop.return_probs = true;
    drop.dropout_p = same.dropout_p = other.dropout_p = 0.3;
    drop.dropout_seed = same.dropout_seed = seed;
    other.dropout_seed = seed + 1;
    const auto base = sdpa(q, k, v, none), a = sdpa(q, k, v, drop), b = sdpa(q, k, v, same),
               c = sdpa(q, k, v, other);
    CHECK(a.output.data == b.output.data);
    CHECK(a.output.data != c.output.data);
    CHECK(a.lse == base.lse);  // lse is taken before dropout

    std::size_t dropped = 0;
    for (std::size_t n = 0; n < a.probs.size(); ++n) {
        if (a.probs[n] == 0.0) {
            ++dropped;
        } else {
            CHECK(a.probs[n] == doctest::Approx(base.probs[n] / 0.7).epsilon(1e-12));
        }
    }
    // 65,536 Bernoulli(0.3) draws: the standard deviation of the fraction is 0.0018; allow 5 of them.
    const double fraction = static_cast<double>(dropped) / static_cast<double>(a.probs.size());
    CHECK(std::abs(fraction - 0.3) < 0.009);

    SdpaOptions zero;
    zero.dropout_p = 0.0;
    zero.dropout_seed = 99;
    CHECK(sdpa(q, k, v, zero).output.data == base.output.data);
}
