// RoPE: the rotation against RoFormer's complex-number form, the two layouts, and the relative
// position property that motivates it. Double precision throughout.
#include <cmath>
#include <complex>
#include <span>
#include <vector>

#include "attn/attention/rope.hpp"
#include "attn/error.hpp"
#include "support.hpp"

using namespace attn;

namespace {

// Each output coordinate is one complex multiplication (a few ulps) of O(1) values; angles up
// to ~2000 rad carry an absolute argument error of ~2000 x 2^-53 = 2e-13 into cos and sin.
constexpr double kTol = 1e-12;

const std::size_t kPairs[] = {1, 3, 17, 64, 113, 129};

std::vector<double> random_vector(std::size_t n, std::uint64_t seed) {
    return test::randn({1, 1, 1, n}, seed).data;
}

std::vector<double> unit(std::vector<double> x) {
    double norm = 0;
    for (double v : x) norm += v * v;
    for (double& v : x) v /= std::sqrt(norm);
    return x;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t n = 0; n < a.size(); ++n) s += a[n] * b[n];
    return s;
}

std::vector<double> rotated(const std::vector<double>& x, std::uint64_t position, RopeLayout layout) {
    return rope(std::span<const double>(x), position, {10000.0, layout});
}

}  // namespace

TEST_CASE("rope: theta_i = base^(-2i/d), half_split is the default layout") {
    CHECK(RopeOptions{}.layout == RopeLayout::half_split);
    CHECK(RopeOptions{}.base == 10000.0);
    CHECK(rope_theta(0, 128) == 1.0);
    CHECK(rope_theta(32, 128) == doctest::Approx(0.01).epsilon(1e-14));  // 10000^(-1/2)
    CHECK(rope_theta(63, 128) == doctest::Approx(std::pow(10000.0, -126.0 / 128.0)).epsilon(1e-15));
    CHECK(rope_theta(1, 4, 500000.0) == doctest::Approx(1.0 / std::sqrt(500000.0)).epsilon(1e-15));
    const auto angles = rope_angles(8, 3);
    REQUIRE(angles.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) CHECK(angles[i] == 3 * rope_theta(i, 8));
}

TEST_CASE("rope: interleaved layout equals eq. 34's complex multiplication (x_2i + i x_2i+1) e^{i m theta_i}") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (std::size_t pairs : kPairs) {
        const std::size_t d = 2 * pairs;
        const std::vector<double> x = random_vector(d, seed + pairs);
        for (std::uint64_t m : {0ull, 1ull, 17ull, 127ull, 1999ull}) {
            CAPTURE(d);
            CAPTURE(m);
            const std::vector<double> r = rotated(x, m, RopeLayout::interleaved);
            std::vector<double> want(d);
            for (std::size_t i = 0; i < pairs; ++i) {
                const double theta = std::pow(10000.0, -2.0 * static_cast<double>(i) / static_cast<double>(d));
                const std::complex<double> z =
                    std::complex<double>(x[2 * i], x[2 * i + 1]) * std::polar(1.0, static_cast<double>(m) * theta);
                want[2 * i] = z.real();
                want[2 * i + 1] = z.imag();
            }
            CHECK(test::max_abs_diff(r, want) < kTol);
        }
    }
}

TEST_CASE("rope: half_split is interleaved conjugated by the pair permutation") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (std::size_t pairs : kPairs) {
        const std::size_t d = 2 * pairs;
        const std::vector<double> x = random_vector(d, seed + pairs);
        // P moves (x_i, x_{i+d/2}) to (x_2i, x_2i+1).
        std::vector<double> px(d);
        for (std::size_t i = 0; i < pairs; ++i) {
            px[2 * i] = x[i];
            px[2 * i + 1] = x[i + pairs];
        }
        const std::vector<double> a = rotated(x, 113, RopeLayout::half_split);
        const std::vector<double> b = rotated(px, 113, RopeLayout::interleaved);
        for (std::size_t i = 0; i < pairs; ++i) {
            CHECK(a[i] == b[2 * i]);  // same operations on the same numbers: bitwise equal
            CHECK(a[i + pairs] == b[2 * i + 1]);
        }
    }
}

TEST_CASE("rope: <RoPE(q, m), RoPE(k, n)> depends only on m - n, and norms are preserved") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (RopeLayout layout : {RopeLayout::half_split, RopeLayout::interleaved}) {
        for (std::size_t pairs : kPairs) {
            const std::size_t d = 2 * pairs;
            const std::vector<double> q = unit(random_vector(d, seed + 2 * pairs));
            const std::vector<double> k = unit(random_vector(d, seed + 2 * pairs + 1));
            for (std::uint64_t n = 0; n < 20; ++n) {
                const auto draw = [&](std::uint64_t c) {
                    return static_cast<std::uint64_t>(uniform_from_hash(seed + pairs, 3 * n + c) * 1000);
                };
                const std::uint64_t m = draw(0), p = draw(1), shift = draw(2);
                CAPTURE(d);
                CAPTURE(m);
                CAPTURE(p);
                CAPTURE(shift);
                const double base = dot(rotated(q, m, layout), rotated(k, p, layout));
                CHECK(std::abs(dot(rotated(q, m + shift, layout), rotated(k, p + shift, layout)) - base) < kTol);
                // With m <= p only the key moves: q^T R(p - m) k (RoFormer eq. 16).
                if (m <= p) CHECK(std::abs(dot(q, rotated(k, p - m, layout)) - base) < kTol);
                const std::vector<double> r = rotated(q, m + shift, layout);
                CHECK(std::abs(dot(r, r) - 1.0) < kTol);
            }
        }
    }
}

TEST_CASE("rope: position 0 is the identity, rotations compose, rows rotate by their index") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::vector<double> x = random_vector(34, seed);
    CHECK(rotated(x, 0, RopeLayout::half_split) == x);
    CHECK(test::max_abs_diff(rotated(rotated(x, 700, RopeLayout::half_split), 129, RopeLayout::half_split),
                             rotated(x, 829, RopeLayout::half_split)) < kTol);

    const Tensor4<double> t = test::randn({2, 3, 17, 10}, seed + 1);
    const Tensor4<double> r = rope_rows(t, 100);
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t h = 0; h < 3; ++h)
            for (std::size_t s = 0; s < 17; ++s) {
                const std::vector<double> row(t.row(b, h, s), t.row(b, h, s) + 10);
                const std::vector<double> want = rope(std::span<const double>(row), 100 + s);
                CHECK(std::vector<double>(r.row(b, h, s), r.row(b, h, s) + 10) == want);
            }

    // float storage, double arithmetic: within float rounding of the double result.
    const std::vector<float> xf(x.begin(), x.end());
    const std::vector<float> rf = rope(std::span<const float>(xf), 77);
    const std::vector<double> rd = rope(std::span<const double>(std::vector<double>(xf.begin(), xf.end())), 77);
    CHECK(test::max_abs_diff(rf, rd) < 1e-6 * 4);  // |x| < ~4 for normal draws, 2^-24 relative
}

TEST_CASE("rope: argument validation") {
    std::vector<double> odd(3, 1.0), empty;
    CHECK_THROWS_WITH_AS(apply_rope(std::span<double>(odd), 1), doctest::Contains("dim: RoPE rotates pairs"), Error);
    CHECK_THROWS_WITH_AS(apply_rope(std::span<double>(empty), 1), doctest::Contains("dim"), Error);
    std::vector<double> x(4, 1.0);
    CHECK_THROWS_WITH_AS(apply_rope(std::span<double>(x), 1, {1.0, RopeLayout::half_split}),
                         doctest::Contains("base: must be finite and > 1"), Error);
    CHECK_THROWS_WITH_AS(apply_rope(std::span<double>(x), 1, {NAN, RopeLayout::half_split}), doctest::Contains("base"),
                         Error);
    CHECK_THROWS_WITH_AS(apply_rope(std::span<double>(x), (std::uint64_t{1} << 32) + 1),
                         doctest::Contains("position: must be in [0, 4294967296]"), Error);
    CHECK_THROWS_WITH_AS(apply_rope(std::span<double>(x), 1, {10000.0, static_cast<RopeLayout>(7)}),
                         doctest::Contains("layout"), Error);
    x[2] = INFINITY;
    CHECK_THROWS_WITH_AS(apply_rope(std::span<double>(x), 1), doctest::Contains("x: element 2 is not finite"), Error);
    CHECK_THROWS_WITH_AS(rope_theta(2, 4), doctest::Contains("pair: must be in [0, 1]"), Error);
    CHECK_THROWS_WITH_AS(rope_angles(5, 1), doctest::Contains("dim"), Error);
    CHECK_THROWS_WITH_AS(rope_rows(Tensor4<double>({1, 1, 2, 3}), 0), doctest::Contains("dim"), Error);
    CHECK_THROWS_WITH_AS(rope_rows(Tensor4<double>({1, 1, 3, 4}), std::uint64_t{1} << 32),
                         doctest::Contains("position"), Error);
}
