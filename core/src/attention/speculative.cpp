#include "attn/attention/speculative.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn {
namespace {

constexpr std::size_t kMaxGamma = 1024;
constexpr std::uint64_t kMaxRuns = 100000000;

void check(double alpha, std::size_t gamma) {
    if (!(alpha >= 0.0 && alpha <= 1.0)) throw Error("alpha: must be in [0, 1], got " + std::to_string(alpha));
    if (gamma > kMaxGamma) throw Error("gamma: must be in [0, 1024], got " + std::to_string(gamma));
}

}  // namespace

double speculative_expected_tokens(double alpha, std::size_t gamma) {
    check(alpha, gamma);
    // At alpha = 1 the closed form is 0/0; its limit is gamma + 1 (every draft token accepted).
    if (alpha == 1.0) return static_cast<double>(gamma + 1);
    // 1 - alpha^(g+1) via expm1/log1p keeps digits when alpha is close to 1.
    const double one_minus_pow = alpha == 0.0 ? 1.0 : -std::expm1(static_cast<double>(gamma + 1) * std::log(alpha));
    return one_minus_pow / (1.0 - alpha);
}

double speculative_walltime_improvement(double alpha, std::size_t gamma, double cost_ratio) {
    if (!(std::isfinite(cost_ratio) && cost_ratio >= 0.0 && cost_ratio <= 1e6)) {
        throw Error("cost_ratio: must be a finite number in [0, 1e6], got " + std::to_string(cost_ratio));
    }
    return speculative_expected_tokens(alpha, gamma) / (static_cast<double>(gamma) * cost_ratio + 1.0);
}

std::size_t speculative_best_gamma(double alpha, double cost_ratio, std::size_t max_gamma) {
    check(alpha, max_gamma);
    std::size_t best = 0;
    double best_value = speculative_walltime_improvement(alpha, 0, cost_ratio);
    for (std::size_t g = 1; g <= max_gamma; ++g) {
        const double value = speculative_walltime_improvement(alpha, g, cost_ratio);
        if (value > best_value) {
            best = g;
            best_value = value;
        }
    }
    return best;
}

SpeculativeSimulation simulate_speculative(double alpha, std::size_t gamma, std::uint64_t runs, std::uint64_t seed) {
    check(alpha, gamma);
    if (runs < 1 || runs > kMaxRuns) throw Error("runs: must be in [1, 100000000], got " + std::to_string(runs));
    SpeculativeSimulation s{0, 0, std::vector<std::uint64_t>(gamma + 1, 0)};
    double sum = 0, sum_sq = 0;
    std::uint64_t counter = 0;
    for (std::uint64_t r = 0; r < runs; ++r) {
        std::size_t accepted = 0;
        // Draft tokens are checked in order; the first rejection discards the rest of the draft.
        while (accepted < gamma && uniform_from_hash(seed, counter++) < alpha) ++accepted;
        const double tokens = static_cast<double>(accepted + 1);  // + the target's own token
        ++s.histogram[accepted];
        sum += tokens;
        sum_sq += tokens * tokens;
    }
    const double n = static_cast<double>(runs);
    s.mean_tokens = sum / n;
    const double var = runs > 1 ? std::max(0.0, (sum_sq - n * s.mean_tokens * s.mean_tokens) / (n - 1)) : 0.0;
    s.stderr_tokens = std::sqrt(var / n);
    return s;
}

}  // namespace attn
