// Speculative decoding's acceptance model (Leviathan et al. 2023): Eq. 1, its limits, the
// walltime improvement of Theorem 3.8, and a Monte-Carlo run of the acceptance process.
#include <cmath>

#include "attn/attention/speculative.hpp"
#include "attn/error.hpp"
#include "support.hpp"

using namespace attn;

TEST_CASE("speculative: expected tokens equal the capped geometric sum, limits alpha = 0, 1 and gamma = 0") {
    for (double alpha : {0.0, 0.1, 0.5, 0.8, 0.95, 0.999}) {
        for (std::size_t gamma : {0u, 1u, 3u, 7u, 64u}) {
            double sum = 0, pow = 1;  // sum_{k=0}^{gamma} alpha^k
            for (std::size_t k = 0; k <= gamma; ++k, pow *= alpha) sum += pow;
            CHECK(speculative_expected_tokens(alpha, gamma) == doctest::Approx(sum).epsilon(1e-13));
        }
    }
    CHECK(speculative_expected_tokens(0.0, 9) == 1.0);  // every draft rejected: the target's token only
    CHECK(speculative_expected_tokens(1.0, 9) == 10.0);  // the alpha = 1 limit, gamma + 1
    CHECK(speculative_expected_tokens(0.7, 0) == 1.0);
    // Continuity at alpha -> 1.
    CHECK(speculative_expected_tokens(1.0 - 1e-12, 9) == doctest::Approx(10.0).epsilon(1e-9));
    // c = 0 (a free draft model): the improvement is the token count.
    CHECK(speculative_walltime_improvement(0.8, 4, 0.0) == speculative_expected_tokens(0.8, 4));
    CHECK(speculative_walltime_improvement(0.8, 4, 0.1) == doctest::Approx((1 - std::pow(0.8, 5)) / (0.2 * 1.4)));
    // gamma = 0 is plain decoding: improvement 1.
    CHECK(speculative_walltime_improvement(0.6, 0, 0.5) == 1.0);
    // A useless draft (alpha = 0) with any cost only slows decoding.
    CHECK(speculative_walltime_improvement(0.0, 3, 0.05) < 1.0);
    // Best gamma: 0 when drafting is too expensive, grows with alpha.
    CHECK(speculative_best_gamma(0.5, 1.0, 20) == 0);
    CHECK(speculative_best_gamma(0.9, 0.05, 50) > speculative_best_gamma(0.6, 0.05, 50));
}

TEST_CASE("speculative: Monte-Carlo of the acceptance process agrees with the closed form") {
    for (double alpha : {0.3, 0.8, 0.95}) {
        for (std::size_t gamma : {1u, 4u, 10u}) {
            const std::uint64_t seed = test::next_seed();
            INFO("seed=" << seed << " alpha=" << alpha << " gamma=" << gamma);
            const auto sim = simulate_speculative(alpha, gamma, 200000, seed);
            const double expected = speculative_expected_tokens(alpha, gamma);
            // 5 standard errors: a correct simulation fails with probability < 1e-6.
            CHECK(std::abs(sim.mean_tokens - expected) < 5 * sim.stderr_tokens);
            // The histogram: P(tokens = k + 1) = alpha^k (1 - alpha) for k < gamma, alpha^gamma at the cap.
            REQUIRE(sim.histogram.size() == gamma + 1);
            const double cap = std::pow(alpha, double(gamma));
            const double sd = std::sqrt(cap * (1 - cap) / 200000);
            CHECK(std::abs(double(sim.histogram[gamma]) / 200000 - cap) < 5 * sd + 1e-12);
        }
    }
    const auto all = simulate_speculative(1.0, 5, 1000, test::next_seed());
    CHECK(all.mean_tokens == 6.0);
    const auto none = simulate_speculative(0.0, 5, 1000, test::next_seed());
    CHECK(none.mean_tokens == 1.0);
}

TEST_CASE("speculative: argument errors name the argument") {
    test::check_error([] { speculative_expected_tokens(-0.1, 3); }, "alpha");
    test::check_error([] { speculative_expected_tokens(NAN, 3); }, "alpha");
    test::check_error([] { speculative_expected_tokens(0.5, 1025); }, "gamma");
    test::check_error([] { speculative_walltime_improvement(0.5, 3, -1); }, "cost_ratio");
    test::check_error([] { speculative_walltime_improvement(0.5, 3, INFINITY); }, "cost_ratio");
    test::check_error([] { simulate_speculative(0.5, 3, 0, 1); }, "runs");
    test::check_error([] { speculative_best_gamma(1.5, 0.1, 3); }, "alpha");
}
