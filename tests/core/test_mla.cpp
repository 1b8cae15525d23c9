// Multi-head latent attention: the explicit form against a direct transcription of DeepSeek-V2's
// eqs. 9-19, the absorbed form against the explicit one (prefill and token-by-token decoding),
// and what each form caches. Double precision throughout.
#include <cmath>
#include <vector>

#include "attn/attention/mla.hpp"
#include "attn/error.hpp"
#include "attn/kvcache/kv_schemes.hpp"
#include "support.hpp"

using namespace attn;

namespace {

// The brief's bound for absorbed == explicit: the two forms sum the same products in different
// orders (d_c-long dot products against folded matrices), a few hundred ulps at most.
constexpr double kTol = 1e-10;

const MlaShape kShapes[] = {
    {1, 1, 1, 1, 2, 1},      {3, 3, 5, 1, 2, 3},     {17, 3, 17, 5, 4, 7},
    {13, 5, 3, 7, 2, 11},    {16, 4, 32, 8, 8, 8},   {29, 2, 9, 17, 6, 3},
};

Tensor4<double> hidden(std::size_t batch, std::size_t seq, std::size_t model_dim, std::uint64_t seed) {
    return test::randn({batch, 1, seq, model_dim}, seed);
}

std::vector<double> matvec(const std::vector<double>& w, std::size_t row0, std::size_t rows, std::size_t cols,
                           const double* x) {
    std::vector<double> y(rows, 0.0);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) y[r] += w[(row0 + r) * cols + c] * x[c];
    return y;
}

// RoFormer's half-split rotation of a vector at position `pos`, written out (base 10000).
std::vector<double> rotate(std::vector<double> v, std::size_t pos) {
    const std::size_t half = v.size() / 2;
    for (std::size_t i = 0; i < half; ++i) {
        const double a = static_cast<double>(pos) * std::pow(10000.0, -2.0 * static_cast<double>(i) / v.size());
        const double x0 = v[i], x1 = v[i + half];
        v[i] = x0 * std::cos(a) - x1 * std::sin(a);
        v[i + half] = x0 * std::sin(a) + x1 * std::cos(a);
    }
    return v;
}

// DeepSeek-V2 eqs. 9-19 token by token: queries are the last L tokens, query l sees keys
// 0 .. S - L + l (bottom-right causal) or all keys.
Tensor4<double> naive_mla(const MlaWeights& w, const Tensor4<double>& x, std::size_t len, bool causal) {
    const MlaShape& s = w.shape;
    const std::size_t seq = x.shape.seq;
    Tensor4<double> u({x.shape.batch, 1, len, s.model_dim});
    for (std::size_t b = 0; b < x.shape.batch; ++b) {
        std::vector<std::vector<double>> c(seq), kr(seq);
        for (std::size_t t = 0; t < seq; ++t) {
            c[t] = matvec(w.w_dkv, 0, s.latent_dim, s.model_dim, x.row(b, 0, t));                // eq. 9
            kr[t] = rotate(matvec(w.w_kr, 0, s.rope_dim, s.model_dim, x.row(b, 0, t)), t);       // eq. 15
        }
        for (std::size_t l = 0; l < len; ++l) {
            const std::size_t pos = seq - len + l, end = causal ? pos + 1 : seq;
            std::vector<double> concat;  // [o_1; ...; o_H]
            for (std::size_t h = 0; h < s.heads; ++h) {
                const std::vector<double> qc = matvec(w.w_q, h * s.nope_dim, s.nope_dim, s.model_dim, x.row(b, 0, pos));
                const std::vector<double> qr =
                    rotate(matvec(w.w_qr, h * s.rope_dim, s.rope_dim, s.model_dim, x.row(b, 0, pos)), pos);  // eq. 14
                std::vector<double> score(end);
                double mx = -INFINITY;
                for (std::size_t t = 0; t < end; ++t) {
                    const std::vector<double> kc = matvec(w.w_uk, h * s.nope_dim, s.nope_dim, s.latent_dim, c[t].data());  // eq. 10
                    double dot = 0;
                    for (std::size_t d = 0; d < s.nope_dim; ++d) dot += qc[d] * kc[d];
                    for (std::size_t d = 0; d < s.rope_dim; ++d) dot += qr[d] * kr[t][d];
                    score[t] = dot / std::sqrt(static_cast<double>(s.nope_dim + s.rope_dim));  // eq. 18
                    mx = std::max(mx, score[t]);
                }
                double sum = 0;
                for (double& p : score) sum += (p = std::exp(p - mx));
                std::vector<double> o(s.value_dim, 0.0);
                for (std::size_t t = 0; t < end; ++t) {
                    const std::vector<double> v = matvec(w.w_uv, h * s.value_dim, s.value_dim, s.latent_dim, c[t].data());  // eq. 11
                    for (std::size_t d = 0; d < s.value_dim; ++d) o[d] += score[t] / sum * v[d];
                }
                concat.insert(concat.end(), o.begin(), o.end());
            }
            const std::vector<double> out = matvec(w.w_o, 0, s.model_dim, s.heads * s.value_dim, concat.data());  // eq. 19
            for (std::size_t d = 0; d < s.model_dim; ++d) u.at(b, 0, l, d) = out[d];
        }
    }
    return u;
}

}  // namespace

TEST_CASE("mla: the explicit form is DeepSeek-V2 eqs. 9-19, the absorbed form equals it") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    std::uint64_t n = 0;
    for (const MlaShape& s : kShapes) {
        for (std::size_t seq : {1, 3, 17}) {
            for (std::size_t len : {std::size_t{0}, std::size_t{1}, seq}) {
                for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right}) {
                    ++n;
                    CAPTURE(s.model_dim);
                    CAPTURE(s.heads);
                    CAPTURE(s.latent_dim);
                    CAPTURE(seq);
                    CAPTURE(len);
                    CAPTURE(static_cast<int>(causal));
                    const MlaWeights w = random_mla_weights(s, seed + n);
                    const Tensor4<double> x = hidden(2, seq, s.model_dim, seed + 1000 + n);
                    MlaOptions o;
                    o.query_len = len;
                    o.causal = causal;
                    const MlaExplicitResult e = mla_explicit(w, x, o);
                    const MlaAbsorbedResult a = mla_absorbed(w, x, o);
                    const std::size_t l = len == 0 ? seq : len;
                    REQUIRE(e.output.shape == Shape4{2, 1, l, s.model_dim});
                    REQUIRE(a.output.shape == e.output.shape);
                    CHECK(test::max_abs_diff(a.output.data, e.output.data) < kTol);
                    // Top-left and bottom-right coincide when L == S; with L < S the naive
                    // reference implements bottom-right (decoding) and no mask.
                    if (causal != Causal::top_left || l == seq) {
                        const Tensor4<double> want = naive_mla(w, x, l, causal != Causal::none);
                        CHECK(test::max_abs_diff(e.output.data, want.data) < kTol);
                    }
                }
            }
        }
    }
}

TEST_CASE("mla: token-by-token decoding against the latent cache equals causal prefill") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (const MlaShape& s : kShapes) {
        CAPTURE(s.model_dim);
        CAPTURE(s.latent_dim);
        const MlaWeights w = random_mla_weights(s, seed + s.model_dim);
        const AbsorbedMla absorbed = absorb_mla(w);
        const std::size_t seq = 29;
        const Tensor4<double> x = hidden(3, seq, s.model_dim, seed + 7);
        const Tensor4<double> prefill = mla_explicit(w, x, {0, Causal::bottom_right, {}}).output;

        MlaCache cache;
        for (std::size_t t = 0; t < seq; ++t) {
            Tensor4<double> xt({3, 1, 1, s.model_dim});
            for (std::size_t b = 0; b < 3; ++b)
                for (std::size_t d = 0; d < s.model_dim; ++d) xt.at(b, 0, 0, d) = x.at(b, 0, t, d);
            cache.append(mla_compress(w, xt, t));
            REQUIRE(cache.tokens() == t + 1);
            const Tensor4<double> out = mla_absorbed_attend(absorbed, cache, xt, t, Causal::bottom_right);
            for (std::size_t b = 0; b < 3; ++b)
                for (std::size_t d = 0; d < s.model_dim; ++d) CHECK(std::abs(out.at(b, 0, 0, d) - prefill.at(b, 0, t, d)) < kTol);
        }
    }
}

TEST_CASE("mla: the absorbed form caches exactly d_c + d_R per token, the explicit form H (d_h + d_R + d_v)") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (const MlaShape& s : kShapes) {
        const MlaWeights w = random_mla_weights(s, seed);
        const Tensor4<double> x = hidden(2, 17, s.model_dim, seed + 1);
        const MlaAbsorbedResult a = mla_absorbed(w, x);
        CHECK(a.cache.latent.shape == Shape4{2, 1, 17, s.latent_dim});
        CHECK(a.cache.rope_key.shape == Shape4{2, 1, 17, s.rope_dim});
        CHECK(a.cache.elements_per_token() == s.latent_dim + s.rope_dim);
        CHECK(a.cache.latent.data.size() + a.cache.rope_key.data.size() == 2 * 17 * (s.latent_dim + s.rope_dim));
        // The KV-cache size model counts the same elements.
        CHECK(kvcache::kv_cache_bytes(kvcache::mla_config(1, s.heads, s.latent_dim, s.rope_dim), kvcache::KvDtype::fp8, 1)
                  .elements_per_token_per_layer == a.cache.elements_per_token());

        const MlaExplicitResult e = mla_explicit(w, x);
        CHECK(e.k.shape == Shape4{2, s.heads, 17, s.nope_dim + s.rope_dim});
        CHECK(e.v.shape == Shape4{2, s.heads, 17, s.value_dim});
    }
}

TEST_CASE("mla: shifting every position leaves the output unchanged (RoPE is relative)") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const MlaShape s{13, 3, 9, 5, 6, 7};
    const MlaWeights w = random_mla_weights(s, seed);
    const AbsorbedMla a = absorb_mla(w);
    const Tensor4<double> x = hidden(1, 17, 13, seed + 1);
    const Tensor4<double> at0 = mla_absorbed_attend(a, mla_compress(w, x, 0), x, 0, Causal::bottom_right);
    const Tensor4<double> at500 = mla_absorbed_attend(a, mla_compress(w, x, 500), x, 500, Causal::bottom_right);
    CHECK(test::max_abs_diff(at0.data, at500.data) < kTol);
    // ... while moving only the queries changes it: positions do enter the scores.
    const Tensor4<double> moved = mla_absorbed_attend(a, mla_compress(w, x, 0), x, 500, Causal::bottom_right);
    CHECK(test::max_abs_diff(at0.data, moved.data) > 1e-6);
}

TEST_CASE("mla: argument validation") {
    const MlaShape s{8, 2, 4, 3, 2, 5};
    const MlaWeights w = random_mla_weights(s, 1);
    const Tensor4<double> x = hidden(1, 3, 8, 2);
    CHECK_THROWS_WITH_AS(random_mla_weights({8, 2, 4, 3, 3, 5}, 1), doctest::Contains("rope_dim: RoPE rotates pairs"), Error);
    CHECK_THROWS_WITH_AS(random_mla_weights({8, 0, 4, 3, 2, 5}, 1), doctest::Contains("heads: must be in [1, 4096], got 0"),
                         Error);
    MlaWeights bad = w;
    bad.w_uk.pop_back();
    CHECK_THROWS_WITH_AS(mla_explicit(bad, x), doctest::Contains("w_uk: expected 6 x 4 = 24 elements, got 23"), Error);
    bad = w;
    bad.w_o[0] = NAN;
    CHECK_THROWS_WITH_AS(absorb_mla(bad), doctest::Contains("w_o: element 0 is not finite"), Error);
    CHECK_THROWS_WITH_AS(mla_absorbed(w, x, {4, Causal::none, {}}), doctest::Contains("query_len: must be in [0, 3]"), Error);
    CHECK_THROWS_WITH_AS(mla_explicit(w, hidden(1, 3, 7, 2)), doctest::Contains("x: expected shape [B >= 1, 1, S >= 1, 8]"),
                         Error);
    CHECK_THROWS_WITH_AS(mla_compress(w, Tensor4<double>({1, 2, 3, 8}), 0), doctest::Contains("x: expected shape"), Error);

    const AbsorbedMla a = absorb_mla(w);
    CHECK_THROWS_WITH_AS(mla_absorbed_attend(a, MlaCache{}, x, 0, Causal::none), doctest::Contains("cache: expected latent"),
                         Error);
    CHECK_THROWS_WITH_AS(mla_absorbed_attend(a, mla_compress(w, hidden(2, 3, 8, 3), 0), x, 0, Causal::none),
                         doctest::Contains("cache: expected latent [1, 1, 3, 4]"), Error);
    Tensor4<double> xq = x;
    xq.data[1] = INFINITY;
    CHECK_THROWS_WITH_AS(mla_absorbed_attend(a, mla_compress(w, x, 0), xq, 0, Causal::none),
                         doctest::Contains("x_q: element 1 is not finite"), Error);
    MlaCache c = mla_compress(w, x, 0);
    CHECK_THROWS_WITH_AS(c.append(mla_compress(w, hidden(2, 1, 8, 4), 3)), doctest::Contains("does not extend the cache"),
                         Error);
    CHECK_THROWS_WITH_AS(c.append(MlaCache{}), doctest::Contains("tail: expected latent"), Error);
}
