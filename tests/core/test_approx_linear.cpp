// Linear Transformer attention (Katharopoulos et al. 2020): the recurrent form equals the
// parallel form, causal and not, both equal a direct term-by-term evaluation, and the counts.
#include <cmath>

#include "attn/approx/linear_attention.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::approx;

namespace {

// Sums of at most 129 positive terms in double: observed ~1e-15; a wrong prefix is ~1e-2.
constexpr double kTol = 1e-12;

// The linearized attention (causal: prefix sums) evaluated term by term for one output element.
double direct(const test::Qkv& in, std::size_t h, std::size_t i, std::size_t c, bool causal) {
    auto phi = [](double x) { return x > 0 ? x + 1 : std::exp(x); };
    double num = 0, den = 0;
    const std::size_t end = causal ? i + 1 : in.k.shape.seq;
    for (std::size_t j = 0; j < end; ++j) {
        double kernel = 0;
        for (std::size_t a = 0; a < in.q.shape.dim; ++a) kernel += phi(in.q.at(0, h, i, a)) * phi(in.k.at(0, h, j, a));
        num += kernel * in.v.at(0, h, j, c);
        den += kernel;
    }
    return num / den;
}

}  // namespace

TEST_CASE("linear attention: the causal recurrent form equals the causal parallel form") {
    for (std::size_t n : {1u, 3u, 17u, 113u, 129u}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " N=" << n);
        const auto in = test::random_qkv({2, 2, n, 9}, 2, n, 5, seed);
        const auto rec = linear_attention(in.q, in.k, in.v, {true, LinearForm::recurrent});
        const auto par = linear_attention(in.q, in.k, in.v, {true, LinearForm::parallel});
        CHECK(test::max_abs_diff(rec.output.data, par.output.data) < kTol);
        for (std::size_t i : {std::size_t{0}, n / 2, n - 1}) CHECK(std::abs(rec.output.at(0, 1, i, 3) - direct(in, 1, i, 3, true)) < kTol);
        // The first row sees only key 0: its output is v_0 whatever the kernel.
        for (std::size_t c = 0; c < 5; ++c) CHECK(std::abs(rec.output.at(1, 0, 0, c) - in.v.at(1, 0, 0, c)) < kTol);
    }
}

TEST_CASE("linear attention: non-causal recurrent and parallel forms agree for L != S") {
    for (auto [l, s] : {std::pair{3u, 129u}, std::pair{113u, 17u}, std::pair{1u, 1u}}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " L=" << l << " S=" << s);
        const auto in = test::random_qkv({1, 3, l, 4}, 3, s, 6, seed);
        const auto rec = linear_attention(in.q, in.k, in.v, {false, LinearForm::recurrent});
        const auto par = linear_attention(in.q, in.k, in.v, {false, LinearForm::parallel});
        CHECK(test::max_abs_diff(rec.output.data, par.output.data) < kTol);
        CHECK(std::abs(rec.output.at(0, 2, l - 1, 0) - direct(in, 2, l - 1, 0, false)) < kTol);
        CHECK(rec.error.relative_frobenius == doctest::Approx(par.error.relative_frobenius).epsilon(1e-9));
    }
}

TEST_CASE("linear attention cost: the recurrent form is linear in N with constant memory") {
    const std::size_t d = 8, dv = 4;
    for (std::size_t n : {17u, 64u}) {
        const auto in = test::random_qkv({1, 1, n, d}, 1, n, dv, test::next_seed());
        const auto rec = linear_attention(in.q, in.k, in.v, {true, LinearForm::recurrent});
        const auto par = linear_attention(in.q, in.k, in.v, {true, LinearForm::parallel});
        const std::uint64_t N = n;
        CHECK(rec.cost.score_entries == 0);
        CHECK(rec.cost.flops == 2 * d * 2 * N + N * (2 * d * dv + d) + N * (2 * d * dv + 2 * d + dv));
        CHECK(rec.cost.peak_bytes == 8 * (d * dv + 3 * d));
        CHECK(par.cost.score_entries == N * (N + 1) / 2);
        CHECK(par.cost.flops == 2 * d * 2 * N + N * (N + 1) / 2 * (2 * d + 2 * dv + 1) + N * dv);
        CHECK(par.cost.peak_bytes == 8 * (2 * N * d + N * N));
    }
    const auto a = linear_attention_cost(1, 100, 100, d, dv, {});
    CHECK(linear_attention_cost(1, 200, 200, d, dv, {}).flops == 2 * a.flops);
    CHECK(linear_attention_cost(1, 200, 200, d, dv, {}).peak_bytes == a.peak_bytes);
}

TEST_CASE("linear attention rejects causal with L != S") {
    const auto in = test::random_qkv({1, 1, 4, 4}, 1, 5, 4, test::next_seed());
    test::check_error([&] { linear_attention(in.q, in.k, in.v, {true, LinearForm::recurrent}); },
                      "causal linear attention needs L == S, got 4 and 5");
    test::check_error([&] { linear_attention_cost(1, 0, 5, 4, 4, {}); }, "sizes must be >= 1");
}
