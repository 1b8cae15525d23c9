#include "attn/classic/softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/error.hpp"

namespace attn::classic {

std::vector<double> softmax(std::span<const double> scores) {
    if (scores.empty()) throw Error("scores: must hold at least one score");
    double max_score = -std::numeric_limits<double>::infinity();
    for (double s : scores) {
        if (std::isnan(s) || s == std::numeric_limits<double>::infinity()) {
            throw Error("scores: must be finite or -inf (masked), got " + std::to_string(s));
        }
        max_score = s > max_score ? s : max_score;
    }
    if (max_score == -std::numeric_limits<double>::infinity()) {
        throw Error("scores: every score is -inf (all keys masked), so the softmax is undefined");
    }
    std::vector<double> weights(scores.size());
    double sum = 0;
    for (std::size_t j = 0; j < scores.size(); ++j) {
        weights[j] = std::exp(scores[j] - max_score);  // exp(-inf) = 0 for masked keys
        sum += weights[j];
    }
    for (double& w : weights) w /= sum;
    return weights;
}

Matrix softmax_rows(const Matrix& scores) {
    if (scores.rows == 0 || scores.cols == 0 || scores.data.size() != scores.rows * scores.cols) {
        throw Error("scores: must be a non-empty [queries, keys] matrix");
    }
    Matrix weights(scores.rows, scores.cols);
    for (std::size_t i = 0; i < scores.rows; ++i) {
        const std::vector<double> w = softmax(std::span<const double>(scores.row(i), scores.cols));
        std::copy(w.begin(), w.end(), weights.row(i));
    }
    return weights;
}

namespace {

// Weights are a probability vector: non-empty, finite, >= 0, summing to 1 within 1e-9.
void check_weights(std::span<const double> weights) {
    if (weights.empty()) throw Error("weights: must hold at least one weight");
    double sum = 0;
    for (double p : weights) {
        if (!std::isfinite(p) || p < 0) throw Error("weights: must be finite and >= 0, got " + std::to_string(p));
        sum += p;
    }
    if (std::abs(sum - 1.0) > 1e-9) throw Error("weights: must sum to 1 (within 1e-9), got " + std::to_string(sum));
}

}  // namespace

double entropy_nats(std::span<const double> weights) {
    check_weights(weights);
    double entropy = 0;
    for (double p : weights) {
        if (p > 0) entropy -= p * std::log(p);
    }
    return entropy;
}

double softmax_jacobian_norm(std::span<const double> weights) {
    check_weights(weights);
    // |J|_F^2 = sum_i p_i^2 [(1 - p_i)^2 + sum_{j != i} p_j^2]. Near one-hot both brackets are tiny
    // differences of numbers near 1 (1 - p_i, sum p^2 - p_i^2), so they are formed as sums over the
    // other keys (prefix + suffix sums) instead: the norm keeps its relative accuracy however
    // saturated the softmax (tested at 8.5e-18), where the expanded formula returns rounding noise
    // of ~1e-8. With the weights summing to 1, the sum of the others is 1 - p_i.
    const std::size_t n = weights.size();
    std::vector<double> suffix_p(n + 1, 0.0), suffix_p2(n + 1, 0.0);
    for (std::size_t i = n; i-- > 0;) {
        suffix_p[i] = suffix_p[i + 1] + weights[i];
        suffix_p2[i] = suffix_p2[i + 1] + weights[i] * weights[i];
    }
    double prefix_p = 0, prefix_p2 = 0, norm_sq = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double p = weights[i];
        const double others_p = prefix_p + suffix_p[i + 1];     // 1 - p_i
        const double others_p2 = prefix_p2 + suffix_p2[i + 1];  // sum_{j != i} p_j^2
        norm_sq += p * p * (others_p * others_p + others_p2);
        prefix_p += p;
        prefix_p2 += p * p;
    }
    return std::sqrt(norm_sq);
}

Matrix weighted_sum(const Matrix& weights, const Matrix& values) {
    require_nonempty_finite(weights, "weights");
    require_nonempty_finite(values, "values");
    if (weights.cols != values.rows) {
        throw Error("values: must have one row per key (" + std::to_string(weights.cols) + "), got " +
                    std::to_string(values.rows));
    }
    Matrix context(weights.rows, values.cols);
    for (std::size_t i = 0; i < weights.rows; ++i) {
        double* c = context.row(i);
        for (std::size_t j = 0; j < weights.cols; ++j) {
            const double w = weights.at(i, j);
            const double* h = values.row(j);
            for (std::size_t x = 0; x < values.cols; ++x) c[x] += w * h[x];
        }
    }
    return context;
}

}  // namespace attn::classic
