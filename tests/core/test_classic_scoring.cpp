// The four alignment-score functions against naive double references computed a different way
// (every pair from scratch, or the other association of s^T W h), their FLOP formulas against
// operation counts enumerated by hand, and their argument checks.
#include <cmath>
#include <utility>
#include <vector>

#include "attn/classic/scoring.hpp"
#include "attn/classic/softmax.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::classic;

namespace {

// Sums of a few hundred O(1) products: rounding stays far below 1e-12 relative to the scores.
constexpr double kTol = 1e-12;

Matrix random_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed, double stddev = 1.0) {
    return Matrix(rows, cols, random_normal({1, 1, rows, cols}, seed, stddev).data, "m");
}

double naive_dot(const Matrix& a, std::size_t i, const Matrix& b, std::size_t j) {
    double s = 0;
    for (std::size_t x = 0; x < a.cols; ++x) s += a.at(i, x) * b.at(j, x);
    return s;
}

}  // namespace

TEST_CASE("classic scoring: dot and scaled dot equal the naive q.k and q.k / sqrt(d)") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (std::size_t d : {1, 3, 17, 64, 129}) {
        for (std::size_t nq : {1, 5}) {
            for (std::size_t nk : {1, 3, 113}) {
                CAPTURE(d);
                CAPTURE(nq);
                CAPTURE(nk);
                const Matrix q = random_matrix(nq, d, seed + d * 1000 + nq);
                const Matrix k = random_matrix(nk, d, seed + d * 1000 + nk + 500);
                const Matrix dot = dot_scores(q, k), scaled = scaled_dot_scores(q, k);
                REQUIRE(dot.rows == nq);
                REQUIRE(dot.cols == nk);
                for (std::size_t i = 0; i < nq; ++i) {
                    for (std::size_t j = 0; j < nk; ++j) {
                        const double want = naive_dot(q, i, k, j);
                        CHECK(std::abs(dot.at(i, j) - want) < kTol * std::sqrt(static_cast<double>(d)));
                        CHECK(std::abs(scaled.at(i, j) - want / std::sqrt(static_cast<double>(d))) < kTol);
                    }
                }
            }
        }
    }
}

TEST_CASE("classic scoring: general s^T W h equals (s^T W) h, and W = I gives dot") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (auto [ds, dh] : {std::pair<std::size_t, std::size_t>{1, 1}, {3, 17}, {17, 3}, {64, 64}}) {
        CAPTURE(ds);
        CAPTURE(dh);
        const Matrix s = random_matrix(4, ds, seed + 1), h = random_matrix(7, dh, seed + 2);
        const Matrix w = random_matrix(ds, dh, seed + 3);
        const Matrix got = general_scores(s, h, w);
        for (std::size_t i = 0; i < 4; ++i) {
            // The implementation hoists W h_j; the reference forms s_i^T W first.
            std::vector<double> sw(dh, 0.0);
            for (std::size_t a = 0; a < ds; ++a) {
                for (std::size_t b = 0; b < dh; ++b) sw[b] += s.at(i, a) * w.at(a, b);
            }
            for (std::size_t j = 0; j < 7; ++j) {
                double want = 0;
                for (std::size_t b = 0; b < dh; ++b) want += sw[b] * h.at(j, b);
                CHECK(std::abs(got.at(i, j) - want) < kTol * static_cast<double>(ds + dh));
            }
        }
    }
    const Matrix q = random_matrix(3, 5, seed + 4), k = random_matrix(6, 5, seed + 5);
    Matrix identity(5, 5);
    for (std::size_t a = 0; a < 5; ++a) identity.at(a, a) = 1;
    CHECK(test::max_abs_diff(general_scores(q, k, identity).data, dot_scores(q, k).data) < kTol);
}

TEST_CASE("classic scoring: additive equals v^T tanh(W s + U h) per pair, and Luong's concat form") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    struct Dims {
        std::size_t ds, dh, da;
    };
    for (const auto [ds, dh, da] : {Dims{1, 1, 1}, Dims{3, 17, 5}, Dims{16, 32, 113}}) {
        CAPTURE(ds);
        CAPTURE(dh);
        CAPTURE(da);
        const Matrix s = random_matrix(3, ds, seed + 10), h = random_matrix(9, dh, seed + 11);
        const AdditiveParams p{random_matrix(da, ds, seed + 12, 1.0 / std::sqrt(double(ds))),
                               random_matrix(da, dh, seed + 13, 1.0 / std::sqrt(double(dh))),
                               random_normal({1, 1, 1, da}, seed + 14).data};
        const Matrix got = additive_scores(s, h, p);
        for (std::size_t i = 0; i < 3; ++i) {
            for (std::size_t j = 0; j < 9; ++j) {
                // Luong et al.'s concat: v^T tanh(W_cat [s; h]) with W_cat = [W | U], from scratch per pair.
                double want = 0;
                for (std::size_t a = 0; a < da; ++a) {
                    double pre = 0;
                    for (std::size_t x = 0; x < ds; ++x) pre += p.w.at(a, x) * s.at(i, x);
                    for (std::size_t x = 0; x < dh; ++x) pre += p.u.at(a, x) * h.at(j, x);
                    want += p.v[a] * std::tanh(pre);
                }
                CHECK(std::abs(got.at(i, j) - want) < kTol * static_cast<double>(da));
            }
        }
    }
}

TEST_CASE("classic scoring: additive scores are bounded by |v|_1 however large the inputs") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::size_t d = 64;
    const Matrix s = random_matrix(5, d, seed, 100.0), h = random_matrix(11, d, seed + 1, 100.0);
    const AdditiveParams p{random_matrix(d, d, seed + 2), random_matrix(d, d, seed + 3),
                           random_normal({1, 1, 1, d}, seed + 4).data};
    double v1 = 0;
    for (double x : p.v) v1 += std::abs(x);
    for (double e : additive_scores(s, h, p).data) CHECK(std::abs(e) <= v1);
}

TEST_CASE("classic scoring: FLOP formulas match operation counts enumerated by hand") {
    // dot, d = 3: s0 h0 + s1 h1 + s2 h2 = 3 multiplies + 2 adds.
    CHECK(score_flops(ScoreKind::dot, {3, 3, 0}, false).per_pair == 5);
    CHECK(score_flops(ScoreKind::dot, {3, 3, 0}, true).per_pair == 5);
    // scaled dot, d = 3: 5, then one multiply by 1/sqrt 3; or 3 multiplies per query folding it in.
    CHECK(score_flops(ScoreKind::scaled_dot, {3, 3, 0}, false).per_pair == 6);
    const ScoreFlops sd = score_flops(ScoreKind::scaled_dot, {3, 3, 0}, true);
    CHECK(sd.per_pair == 5);
    CHECK(sd.per_query == 3);
    CHECK(sd.per_key == 0);
    // general, d_s = 2, d_h = 3: W h is 2 rows x (3 mul + 2 add) = 10, then s . (W h) = 2 + 1 = 3.
    CHECK(score_flops(ScoreKind::general, {2, 3, 0}, false).per_pair == 13);
    const ScoreFlops g = score_flops(ScoreKind::general, {2, 3, 0}, true);
    CHECK(g.per_pair == 3);
    CHECK(g.per_key == 10);
    CHECK(g.per_query == 0);
    // additive, d_s = 2, d_h = 3, d_a = 4: W s = 4 x (2 + 1) = 12, U h = 4 x (3 + 2) = 20,
    // add 4, tanh 4, v . t = 4 + 3 = 7: per pair 47 naive; 4 + 4 + 7 = 15 with W s, U h hoisted.
    CHECK(score_flops(ScoreKind::additive, {2, 3, 4}, false).per_pair == 47);
    const ScoreFlops a = score_flops(ScoreKind::additive, {2, 3, 4}, true);
    CHECK(a.per_pair == 15);
    CHECK(a.per_query == 12);
    CHECK(a.per_key == 20);
    // Totals: Q*K*per_pair + Q*per_query + K*per_key. Hoisting W h or U h never costs more; folding
    // 1/sqrt(d) into the query (d multiplies) beats scaling each of its K scores only when K > d.
    CHECK(a.total(5, 7) == 35 * 15 + 5 * 12 + 7 * 20);
    for (std::size_t d : {1, 3, 17, 512}) {
        CAPTURE(d);
        for (std::size_t keys : {std::size_t{1}, d, d + 1, 4 * d}) {
            CAPTURE(keys);
            for (ScoreKind kind : {ScoreKind::additive, ScoreKind::dot, ScoreKind::general}) {
                const ScoreDims dims{d, d, d};
                CHECK(score_flops(kind, dims, true).total(10, keys) <= score_flops(kind, dims, false).total(10, keys));
            }
            const std::uint64_t folded = score_flops(ScoreKind::scaled_dot, {d, d, 0}, true).total(10, keys);
            const std::uint64_t per_score = score_flops(ScoreKind::scaled_dot, {d, d, 0}, false).total(10, keys);
            CHECK((folded < per_score) == (keys > d));
        }
    }
    // Bahdanau's sizes (App. A.1.2): n = 1000 decoder units, 2n = 2000-wide encoder states, n' = 1000.
    CHECK(score_flops(ScoreKind::additive, {1000, 2000, 1000}, false).per_pair == 6001999);
    CHECK(score_flops(ScoreKind::additive, {1000, 2000, 1000}, true).per_pair == 3999);
}

TEST_CASE("classic scoring: invalid arguments throw attn::Error naming them") {
    const Matrix q(2, 3, 1.0), k(4, 3, 1.0), k5(4, 5, 1.0);
    test::check_error([&] { dot_scores(q, k5); }, "same width");
    test::check_error([&] { scaled_dot_scores(Matrix(0, 3), k); }, "queries");
    Matrix bad = k;
    bad.at(1, 1) = NAN;
    test::check_error([&] { dot_scores(q, bad); }, "keys: every value must be finite");
    test::check_error([&] { general_scores(q, k5, Matrix(5, 3, 1.0)); }, "w: must be [query_dim, key_dim] = [3, 5]");
    const AdditiveParams p{Matrix(2, 3, 0.1), Matrix(2, 3, 0.1), {1.0, 1.0}};
    CHECK_NOTHROW(additive_scores(q, k, p));
    test::check_error([&] { additive_scores(q, k, {Matrix(2, 3, 0.1), Matrix(2, 3, 0.1), {}}); }, "v: must hold");
    test::check_error([&] { additive_scores(q, k, {Matrix(3, 3, 0.1), Matrix(2, 3, 0.1), {1.0, 1.0}}); },
                      "w: must be [attention_dim, query_dim]");
    test::check_error([&] { additive_scores(q, k5, p); }, "u: must be [attention_dim, key_dim]");
    test::check_error([&] { score_flops(ScoreKind::dot, {3, 4, 0}, false); }, "query_dim == key_dim");
    test::check_error([&] { score_flops(ScoreKind::general, {0, 4, 0}, false); }, "query_dim: must be in [1, ");
    test::check_error([&] { score_flops(ScoreKind::additive, {3, 4, 0}, true); }, "attention_dim");
    test::check_error([&] { Matrix(2, 2, std::vector<double>{1, 2, 3}, "queries"); }, "queries: expected 4 values");
}

TEST_CASE("classic softmax: weights, entropy and context vectors") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    // Shift invariance and no overflow for huge scores.
    const std::vector<double> w = softmax(std::vector<double>{1000.0, 1001.0, 999.0});
    const std::vector<double> w0 = softmax(std::vector<double>{0.0, 1.0, -1.0});
    CHECK(test::max_abs_diff(w, w0) < 1e-15);
    const double z = std::exp(0.0) + std::exp(1.0) + std::exp(-1.0);
    CHECK(w0[1] == doctest::Approx(std::exp(1.0) / z).epsilon(1e-14));
    // Masked entries get exactly zero weight.
    const std::vector<double> masked = softmax(std::vector<double>{0.5, -INFINITY, 0.5});
    CHECK(masked[1] == 0.0);
    CHECK(masked[0] == doctest::Approx(0.5).epsilon(1e-15));
    // Entropy: ln n for uniform, 0 for one-hot, the formula otherwise.
    CHECK(entropy_nats(std::vector<double>(17, 1.0 / 17)) == doctest::Approx(std::log(17.0)).epsilon(1e-14));
    CHECK(entropy_nats(std::vector<double>{0.0, 1.0, 0.0}) == 0.0);
    CHECK(entropy_nats(w0) == doctest::Approx(-(w0[0] * std::log(w0[0]) + w0[1] * std::log(w0[1]) +
                                               w0[2] * std::log(w0[2])))
                                  .epsilon(1e-14));
    // Context vectors against a naive weighted sum.
    const Matrix scores(3, 17, random_normal({1, 1, 3, 17}, seed).data, "scores");
    const Matrix values(17, 5, random_normal({1, 1, 17, 5}, seed + 1).data, "values");
    const Matrix a = softmax_rows(scores), c = weighted_sum(a, values);
    for (std::size_t i = 0; i < 3; ++i) {
        double row_sum = 0;
        for (std::size_t j = 0; j < 17; ++j) row_sum += a.at(i, j);
        CHECK(row_sum == doctest::Approx(1.0).epsilon(1e-14));
        for (std::size_t x = 0; x < 5; ++x) {
            double want = 0;
            for (std::size_t j = 0; j < 17; ++j) want += a.at(i, j) * values.at(j, x);
            CHECK(std::abs(c.at(i, x) - want) < kTol);
        }
    }
    test::check_error([] { softmax(std::vector<double>{-INFINITY, -INFINITY}); }, "all keys masked");
    test::check_error([] { softmax(std::vector<double>{}); }, "at least one");
    test::check_error([] { softmax(std::vector<double>{NAN}); }, "finite or -inf");
    test::check_error([] { entropy_nats(std::vector<double>{0.5, 0.4}); }, "sum to 1");
    test::check_error([] { entropy_nats(std::vector<double>{1.5, -0.5}); }, ">= 0");
    test::check_error([&] { weighted_sum(a, Matrix(16, 5, 1.0)); }, "values: must have one row per key (17)");
}

TEST_CASE("classic softmax: the Jacobian's norm against the dense Jacobian and finite differences") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (std::size_t n : {1, 3, 17, 113}) {
        CAPTURE(n);
        const std::vector<double> scores = random_normal({1, 1, 1, n}, seed + n, 2.0).data;
        const std::vector<double> p = softmax(scores);
        // The dense Jacobian d p_i / d e_j = p_i (delta_ij - p_j), entry by entry.
        double dense_sq = 0, fd_sq = 0;
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                const double jij = p[i] * ((i == j ? 1.0 : 0.0) - p[j]);
                dense_sq += jij * jij;
            }
        }
        // Central differences of the softmax itself, column by column (error O(h^2) ~ 1e-10).
        const double h = 1e-5;
        for (std::size_t j = 0; j < n; ++j) {
            std::vector<double> up = scores, down = scores;
            up[j] += h;
            down[j] -= h;
            const std::vector<double> pu = softmax(up), pd = softmax(down);
            for (std::size_t i = 0; i < n; ++i) fd_sq += std::pow((pu[i] - pd[i]) / (2 * h), 2);
        }
        const double norm = softmax_jacobian_norm(p);
        CHECK(norm == doctest::Approx(std::sqrt(dense_sq)).epsilon(1e-13));
        CHECK(norm == doctest::Approx(std::sqrt(fd_sq)).epsilon(1e-8));
    }
    // Uniform over n: sqrt(1/n - 1/n^2); one-hot: exactly 0 (n = 1 is one-hot).
    CHECK(softmax_jacobian_norm(std::vector<double>(16, 1.0 / 16)) == doctest::Approx(std::sqrt(15.0 / 256)).epsilon(1e-14));
    CHECK(softmax_jacobian_norm(std::vector<double>{0.0, 1.0, 0.0}) == 0.0);
    // Saturated: scores 0 and -40 give p_2 = e^-40 / (1 + e^-40) and |J| = 2 p_1 p_2 ~ 8.5e-18, which
    // the expanded formula sum p^2 - 2 sum p^3 + (sum p^2)^2 would lose entirely to rounding.
    const std::vector<double> saturated = softmax(std::vector<double>{0.0, -40.0});
    CHECK(softmax_jacobian_norm(saturated) == doctest::Approx(2 * saturated[0] * saturated[1]).epsilon(1e-12));
    test::check_error([] { softmax_jacobian_norm(std::vector<double>{}); }, "weights: must hold at least one");
    test::check_error([] { softmax_jacobian_norm(std::vector<double>{0.5, 0.4}); }, "weights: must sum to 1");
    test::check_error([] { softmax_jacobian_norm(std::vector<double>{NAN, 1.0}); }, "weights: must be finite");
}
