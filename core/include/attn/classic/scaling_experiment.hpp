#pragma once
// Why scaled dot-product attention divides by sqrt(d_k) (Vaswani et al. 2017, arXiv:1706.03762,
// Sec. 3.2.1 and footnote 4): if the components of q and k are independent with mean 0 and
// variance 1, then q . k = sum_i q_i k_i has mean 0 and variance d_k. Unscaled, the scores of n
// keys spread over a range that grows like sqrt(d_k), so the softmax puts nearly all its weight
// on the largest score (entropy -> 0, "regions where it has extremely small gradients");
// q . k / sqrt(d_k) has variance 1 at every d_k and the softmax stays spread out.
//
// The experiment measures this: for each d, `trials` times draw one query and `num_keys` keys with
// i.i.d. N(0, 1) entries (attn::random_normal, so every browser draws the same numbers for a seed),
// score the keys, and record the variance of the scores and the entropy of their softmax. One
// draw of max(dims)-wide vectors per trial serves every d: the d-dimensional q and k are its first
// d coordinates, an exact N(0, I_d) sample, so each row is unbiased on its own while neighbouring
// rows share their randomness (the curves across d are smooth, and the work is set by max(dims)).
#include <cstdint>
#include <vector>

namespace attn::classic {

struct ScalingExperimentOptions {
    std::vector<std::size_t> dims{4, 8, 16, 32, 64, 128, 256, 512};  // 1 to 64 entries, each in [1, 4096]
    std::size_t num_keys = 16;                                        // n, in [2, 4096]
    std::size_t trials = 100;                                         // queries per d, in [1, 10^6]
    std::uint64_t seed = 0;
    // Also score the same q and k with Bahdanau's additive function at attention width d_a = d, with
    // W_a, U_a entries ~ N(0, 1/d) and v_a entries ~ N(0, 1/d_a) (variance 1/fan-in, drawn once per d):
    // its tanh bounds every score by |v_a|_1, so it does not blow up with d. Costs (n + 1) d^2
    // multiply-adds per trial, against n d for the dot products.
    bool include_additive = false;
};

// Statistics of one score function's scores at one d.
struct ScoreStats {
    double variance = 0;            // unbiased sample variance over all trials * num_keys scores
    double entropy = 0;             // mean over trials of the softmax entropy over the n keys, in nats
    double entropy_normalized = 0;  // entropy / ln(n): 1 = uniform, 0 = one-hot
    double max_weight = 0;          // mean over trials of the largest softmax weight (1 = one-hot)
    double jacobian_norm = 0;       // mean over trials of softmax_jacobian_norm: how much gradient still
                                    // reaches the scores (0 when one-hot)
    std::vector<double> first_scores;   // the first trial's n scores, one draw a reader can look at
    std::vector<double> first_weights;  // and their softmax
};

struct ScalingRow {
    std::size_t dim = 0;
    ScoreStats raw;       // q . k
    ScoreStats scaled;    // q . k / sqrt(d)
    ScoreStats additive;  // v_a^T tanh(W_a q + U_a k); all zero unless include_additive
};

// One row per entry of options.dims, in the given order. Throws attn::Error on invalid options.
std::vector<ScalingRow> scaling_experiment(const ScalingExperimentOptions& options);

}  // namespace attn::classic
