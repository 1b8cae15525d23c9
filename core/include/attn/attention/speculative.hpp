#pragma once
// The acceptance model of speculative decoding (Leviathan, Kalman & Matias 2023, "Fast Inference
// from Transformers via Speculative Decoding", ICML, arXiv:2211.17192, Sec. 3.3-3.4).
//
// A draft model proposes gamma tokens; the target model scores all of them in one run and accepts
// a prefix. With acceptance rate alpha (the expected probability that a draft token is accepted,
// treated as i.i.d.), the number of tokens one target run produces is the accepted prefix plus
// the one token the target always contributes (a correction or a bonus token), a capped geometric
// variable with expectation (the paper's Eq. 1)
//     E[tokens] = (1 - alpha^(gamma + 1)) / (1 - alpha)          (gamma + 1 when alpha = 1).
// With c the ratio of a draft-model run's time to a target-model run's, the expected walltime
// improvement over plain decoding is (Theorem 3.8)
//     (1 - alpha^(gamma + 1)) / ((1 - alpha)(gamma c + 1)).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attn {

// alpha in [0, 1], gamma in [0, 1024]. Throws attn::Error naming the argument otherwise.
double speculative_expected_tokens(double alpha, std::size_t gamma);

// alpha in [0, 1], gamma in [0, 1024], cost_ratio c in [0, 1e6], finite.
double speculative_walltime_improvement(double alpha, std::size_t gamma, double cost_ratio);

// The gamma in [0, max_gamma] with the largest walltime improvement (smallest on ties).
std::size_t speculative_best_gamma(double alpha, double cost_ratio, std::size_t max_gamma);

struct SpeculativeSimulation {
    double mean_tokens;              // per target run
    double stderr_tokens;            // standard error of mean_tokens
    std::vector<std::uint64_t> histogram;  // runs that produced 1 .. gamma + 1 tokens (index 0 = 1 token)
};

// Monte-Carlo of the acceptance process: each of `runs` target runs accepts draft tokens one by
// one, each independently with probability alpha, stopping at the first rejection or after gamma,
// and adds the target's own token. runs in [1, 10^8]; seeded (splitmix64), reproducible.
SpeculativeSimulation simulate_speculative(double alpha, std::size_t gamma, std::uint64_t runs, std::uint64_t seed);

}  // namespace attn
