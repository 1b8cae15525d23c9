// Linformer (Wang et al. 2020): exact with k = N identity projections, equal to dense attention
// over the projected keys and values otherwise, and its counted cost.
#include <tuple>

#include "attn/approx/linformer.hpp"
#include "attn/attention/sdpa.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::approx;

namespace {

constexpr double kTol = 1e-12;  // double sums of at most 129 terms: observed ~1e-15

// E X for one (b, h) of X, as a [1, 1, k, cols] tensor.
Tensor4<double> project(const std::vector<double>& e, std::size_t k, const Tensor4<double>& x, std::size_t b, std::size_t h) {
    const std::size_t n = x.shape.seq, cols = x.shape.dim;
    Tensor4<double> out({1, 1, k, cols});
    for (std::size_t t = 0; t < k; ++t) {
        for (std::size_t j = 0; j < n; ++j) {
            for (std::size_t c = 0; c < cols; ++c) out.at(0, 0, t, c) += e[t * n + j] * x.at(b, h, j, c);
        }
    }
    return out;
}

}  // namespace

TEST_CASE("Linformer with k = N and identity projections is exact") {
    for (std::size_t n : {1u, 3u, 17u, 113u, 129u}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " N=" << n);
        const auto in = test::random_qkv({2, 3, 11, 8}, 3, n, 6, seed);
        const auto r = linformer(in.q, in.k, in.v, linformer_identity_projections(n));
        CHECK(test::max_abs_diff(r.output.data, sdpa(in.q, in.k, in.v).output.data) < kTol);
        CHECK(r.error.relative_frobenius < kTol);
        CHECK(r.error.max_abs < kTol);
    }
}

TEST_CASE("Linformer with random projections is dense attention over E K and F V") {
    for (auto [l, n, k] : {std::tuple{17u, 129u, 16u}, std::tuple{3u, 17u, 40u}, std::tuple{113u, 127u, 1u}}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " L=" << l << " N=" << n << " k=" << k);
        const auto in = test::random_qkv({2, 2, l, 8}, 2, n, 5, seed);
        const auto proj = linformer_random_projections(k, n, seed);
        SdpaOptions so;
        so.scale = 0.3;
        const auto r = linformer(in.q, in.k, in.v, proj, 0.3);
        for (std::size_t b = 0; b < 2; ++b) {
            for (std::size_t h = 0; h < 2; ++h) {
                Tensor4<double> qh(Shape4{1, 1, l, 8});
                std::copy_n(in.q.row(b, h, 0), l * 8, qh.data.begin());
                const auto ref = sdpa(qh, project(proj.e, k, in.k, b, h), project(proj.f, k, in.v, b, h), so);
                for (std::size_t i = 0; i < l; ++i) {
                    for (std::size_t c = 0; c < 5; ++c) CHECK(std::abs(r.output.at(b, h, i, c) - ref.output.at(0, 0, i, c)) < kTol);
                }
            }
        }
        CHECK(r.error.relative_frobenius > 0);
    }
}

TEST_CASE("Linformer random projections have entries of variance 1/N, seeded") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::size_t k = 50, n = 400;
    const auto p = linformer_random_projections(k, n, seed);
    double sum_sq = 0, mean = 0;
    for (double e : p.e) sum_sq += e * e, mean += e;
    // 20000 N(0, 1/N) entries: the sample variance is within 5% (about 5 standard errors).
    CHECK(sum_sq / (k * n) == doctest::Approx(1.0 / n).epsilon(0.05));
    CHECK(std::abs(mean / (k * n)) < 5 * std::sqrt(1.0 / n / (k * n)));
    CHECK(p.e != p.f);
    CHECK(linformer_random_projections(k, n, seed).e == p.e);
}

TEST_CASE("Linformer cost is linear in N for fixed k") {
    const std::size_t l = 37, n = 37, d = 8, dv = 5, k = 6;
    const auto in = test::random_qkv({1, 2, l, d}, 2, n, dv, test::next_seed());
    const auto r = linformer(in.q, in.k, in.v, linformer_random_projections(k, n, 1));
    CHECK(r.cost.score_entries == 2 * l * k);
    CHECK(r.cost.flops == 2 * (2 * k * n * d + 2 * k * n * dv + l * k * (2 * d + 2 * dv + 2)));
    CHECK(r.cost.peak_bytes == 8 * (k * d + k * dv + l * k));
    CHECK(linformer_cost(1, 2 * l, 2 * n, d, dv, k).flops == 2 * linformer_cost(1, l, n, d, dv, k).flops);
}

TEST_CASE("Linformer rejects bad projections and shapes") {
    const auto in = test::random_qkv({1, 1, 5, 4}, 1, 9, 4, test::next_seed());
    test::check_error([&] { linformer(in.q, in.k, in.v, linformer_random_projections(3, 8, 1)); },
                      "the projections are for 8 keys, got 9");
    test::check_error([&] { linformer_random_projections(0, 8, 1); }, "projected_length: must be in [1, 1048576], got 0");
    test::check_error([&] { linformer_random_projections(1 << 14, 1 << 14, 1); }, "projected_length * seq_len must be at most 2^26");
    auto p = linformer_random_projections(3, 9, 1);
    p.f.pop_back();
    test::check_error([&] { linformer(in.q, in.k, in.v, p); }, "E and F must have projected_length * seq_len = 27 entries");
    p = linformer_random_projections(3, 9, 1);
    p.e[4] = NAN;
    test::check_error([&] { linformer(in.q, in.k, in.v, p); }, "entries must be finite");
}
