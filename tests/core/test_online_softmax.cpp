// online_softmax: update, merge and finalize against a two-pass softmax in double.
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "attn/attention/online_softmax.hpp"
#include "support.hpp"

using namespace attn;
namespace os = attn::online_softmax;

namespace {

constexpr double kTol = 1e-12;  // double throughout: only rounding differences are allowed

struct Row {
    std::vector<double> scores;  // n
    std::vector<double> values;  // n x dv
    std::size_t dv;
};

Row random_row(std::size_t n, std::size_t dv, std::uint64_t seed, double score_scale = 3.0) {
    const auto s = test::randn({1, 1, n, 1}, seed);
    const auto v = test::randn({1, 1, n, dv}, seed + 1);
    Row r{s.data, v.data, dv};
    for (double& x : r.scores) x *= score_scale;
    return r;
}

// Two-pass softmax(scores) @ values and the log-sum-exp.
std::vector<double> dense(const Row& r, double* lse) {
    const double m = *std::max_element(r.scores.begin(), r.scores.end());
    double l = 0;
    for (double s : r.scores) l += std::exp(s - m);
    std::vector<double> out(r.dv, 0.0);
    for (std::size_t j = 0; j < r.scores.size(); ++j) {
        for (std::size_t c = 0; c < r.dv; ++c) out[c] += std::exp(r.scores[j] - m) / l * r.values[j * r.dv + c];
    }
    *lse = m + std::log(l);
    return out;
}

struct Partial {
    os::State<double> state;
    std::vector<double> acc;
};

// The state of keys [begin, end) in one update.
Partial partial(const Row& r, std::size_t begin, std::size_t end) {
    Partial p{{}, std::vector<double>(r.dv, 0.0)};
    os::update(p.state, p.acc.data(), r.dv, &r.scores[begin], end - begin, &r.values[begin * r.dv], r.dv);
    return p;
}

// Random cut points splitting [0, n) into `parts` non-empty ranges.
std::vector<std::size_t> random_cuts(std::size_t n, std::size_t parts, std::mt19937_64& rng) {
    std::vector<std::size_t> inner(n - 1);
    std::iota(inner.begin(), inner.end(), 1);
    std::shuffle(inner.begin(), inner.end(), rng);
    std::vector<std::size_t> cuts(inner.begin(), inner.begin() + static_cast<std::ptrdiff_t>(parts - 1));
    cuts.push_back(0);
    cuts.push_back(n);
    std::sort(cuts.begin(), cuts.end());
    return cuts;
}

}  // namespace

TEST_CASE("update over consecutive tiles equals the dense softmax, for any tiling") {
    for (std::size_t n : {1u, 3u, 8u, 17u, 113u}) {
        for (std::size_t tile : {1u, 2u, 4u, 5u, 64u}) {
            const std::uint64_t seed = test::next_seed();
            INFO("seed=" << seed << " n=" << n << " tile=" << tile);
            const Row r = random_row(n, 3, seed);
            double lse_ref;
            const auto ref = dense(r, &lse_ref);

            os::State<double> st;
            std::vector<double> acc(r.dv, 0.0), out(r.dv);
            for (std::size_t j = 0; j < n; j += tile) {
                const std::size_t cnt = std::min(tile, n - j);
                os::update(st, acc.data(), r.dv, &r.scores[j], cnt, &r.values[j * r.dv], r.dv);
            }
            const double lse = os::finalize(st, acc.data(), r.dv, out.data());
            CHECK(test::max_abs_diff(out, ref) < kTol);
            CHECK(std::abs(lse - lse_ref) < kTol);
        }
    }
}

TEST_CASE("update reports the rescale factor exp(m_old - m_new) and the tile's weights") {
    const double scores1[2] = {1.0, 2.0}, scores2[2] = {5.0, 0.0}, scores3[2] = {-1.0, 4.0};
    const double values[2] = {10.0, 20.0};  // value_dim 1
    os::State<double> st;
    double acc = 0, w[2];
    CHECK(os::update(st, &acc, 1, scores1, 2, values, 1, w) == 0.0);  // nothing accumulated yet
    CHECK(st.m == 2.0);
    CHECK(w[0] == doctest::Approx(std::exp(-1.0)));
    CHECK(w[1] == 1.0);
    CHECK(os::update(st, &acc, 1, scores2, 2, values, 1, w) == doctest::Approx(std::exp(2.0 - 5.0)));
    CHECK(st.m == 5.0);
    CHECK(os::update(st, &acc, 1, scores3, 2, values, 1, w) == 1.0);  // max unchanged
    CHECK(st.l == doctest::Approx(std::exp(-4.0) + std::exp(-3.0) + 1.0 + std::exp(-5.0) + std::exp(-6.0) +
                                  std::exp(-1.0)));
}

TEST_CASE("merge of any split, in any order and grouping, equals the dense softmax") {
    std::mt19937_64 rng(test::next_seed());
    for (int trial = 0; trial < 40; ++trial) {
        const std::uint64_t seed = test::next_seed();
        const std::size_t n = 2 + rng() % 150;
        const std::size_t parts = 1 + rng() % std::min<std::size_t>(n, 12);
        INFO("seed=" << seed << " n=" << n << " parts=" << parts);
        const Row r = random_row(n, 4, seed);
        double lse_ref;
        const auto ref = dense(r, &lse_ref);

        const auto cuts = random_cuts(n, parts, rng);
        std::vector<Partial> pieces;
        for (std::size_t i = 0; i + 1 < cuts.size(); ++i) pieces.push_back(partial(r, cuts[i], cuts[i + 1]));
        // Merge random pairs until one state is left: a random order and a random tree shape.
        while (pieces.size() > 1) {
            const std::size_t a = rng() % pieces.size();
            std::size_t b = rng() % (pieces.size() - 1);
            if (b >= a) ++b;
            os::merge(pieces[a].state, pieces[a].acc.data(), pieces[b].state, pieces[b].acc.data(), r.dv);
            pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(b));
        }
        std::vector<double> out(r.dv);
        const double lse = os::finalize(pieces[0].state, pieces[0].acc.data(), r.dv, out.data());
        CHECK(test::max_abs_diff(out, ref) < kTol);
        CHECK(std::abs(lse - lse_ref) < kTol);
    }
}

TEST_CASE("merge is commutative and associative") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const Row r = random_row(30, 2, seed);
    const Partial a = partial(r, 0, 7), b = partial(r, 7, 19), c = partial(r, 19, 30);
    auto merged = [&](Partial x, const Partial& y) {
        os::merge(x.state, x.acc.data(), y.state, y.acc.data(), r.dv);
        return x;
    };
    const Partial ab = merged(a, b), ba = merged(b, a);
    CHECK(std::abs(ab.state.m - ba.state.m) == 0.0);
    CHECK(std::abs(ab.state.l - ba.state.l) < kTol);
    CHECK(test::max_abs_diff(ab.acc, ba.acc) < kTol);
    const Partial left = merged(merged(a, b), c), right = merged(a, merged(b, c));
    CHECK(std::abs(left.state.l - right.state.l) < kTol);
    CHECK(test::max_abs_diff(left.acc, right.acc) < kTol);
}

TEST_CASE("masked keys (-inf) and empty states never produce NaN") {
    const double inf = std::numeric_limits<double>::infinity();
    const double masked[3] = {-inf, -inf, -inf};
    const double values[3] = {1.0, 2.0, 3.0};
    os::State<double> st;
    double acc = 0, out = 7, w[3];
    CHECK(os::update(st, &acc, 1, masked, 3, values, 1, w) == 0.0);
    CHECK(st.m == -inf);
    CHECK(st.l == 0.0);
    CHECK(w[0] == 0.0);
    CHECK(os::finalize(st, &acc, 1, &out) == -inf);
    CHECK(out == 0.0);

    // An empty state is the identity of merge, on either side.
    const double scores[3] = {0.5, -inf, 1.5};
    os::State<double> full;
    double full_acc = 0;
    os::update(full, &full_acc, 1, scores, 3, values, 1);
    os::State<double> left = st, right = full;
    double left_acc = 0, right_acc = full_acc;
    os::merge(left, &left_acc, full, &full_acc, 1);
    os::merge(right, &right_acc, st, &acc, 1);
    CHECK(left.m == full.m);
    CHECK(left.l == doctest::Approx(full.l).epsilon(1e-15));
    CHECK(right.l == doctest::Approx(full.l).epsilon(1e-15));
    CHECK(left_acc == doctest::Approx(full_acc).epsilon(1e-15));
}

TEST_CASE("huge scores do not overflow (the max is subtracted before exp)") {
    const double scores[2] = {1000.0, 1001.0};
    const double values[2] = {0.0, 1.0};
    os::State<double> st;
    double acc = 0, out = 0;
    os::update(st, &acc, 1, scores, 1, values, 1);
    os::update(st, &acc, 1, scores + 1, 1, values + 1, 1);
    const double lse = os::finalize(st, &acc, 1, &out);
    CHECK(out == doctest::Approx(1.0 / (1.0 + std::exp(-1.0))));
    CHECK(lse == doctest::Approx(1001.0 + std::log(1.0 + std::exp(-1.0))));
}
