#include "method_args.hpp"

#include <cmath>
#include <limits>

#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn::approx::detail {

AttentionProblem check_qkv(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                           std::optional<double> scale) {
    AttentionOptions options;
    options.scale = scale;
    const AttentionProblem p = validate_attention(q, k, v, options);
    if (p.kv_heads != p.q_heads) {
        throw Error("key: approximate methods need one K/V head per query head (" + std::to_string(p.q_heads) +
                    "), got " + std::to_string(p.kv_heads));
    }
    return p;
}

void require_in_range(const char* name, std::uint64_t value, std::uint64_t lo, std::uint64_t hi) {
    if (value < lo || value > hi) {
        throw Error(std::string(name) + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                    std::to_string(value));
    }
}

std::vector<double> gaussian_matrix(std::size_t rows, std::size_t cols, double stddev, std::uint64_t seed) {
    return random_normal({1, 1, rows, cols}, seed, stddev).data;
}

void unit_rows(const Tensor4<double>& x, std::size_t b, std::size_t h, double* out) {
    const std::size_t d = x.shape.dim;
    for (std::size_t i = 0; i < x.shape.seq; ++i) {
        const double* row = x.row(b, h, i);
        const double norm = std::sqrt(dot(row, row, d));
        for (std::size_t c = 0; c < d; ++c) out[i * d + c] = norm > 0 ? row[c] / norm : 0.0;
    }
}

double dot(const double* a, const double* b, std::size_t n) {
    double s = 0;
    for (std::size_t c = 0; c < n; ++c) s += a[c] * b[c];
    return s;
}

double softmax_combine(double* scores, std::size_t count, const std::vector<const double*>& v_rows, std::size_t dv,
                       double* out) {
    for (std::size_t c = 0; c < dv; ++c) out[c] = 0;
    double max_score = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < count; ++j) max_score = scores[j] > max_score ? scores[j] : max_score;
    if (max_score == -std::numeric_limits<double>::infinity()) return max_score;
    double sum = 0;
    for (std::size_t j = 0; j < count; ++j) {
        scores[j] = std::exp(scores[j] - max_score);
        sum += scores[j];
    }
    for (std::size_t j = 0; j < count; ++j) {
        const double w = scores[j] / sum;
        for (std::size_t c = 0; c < dv; ++c) out[c] += w * v_rows[j][c];
    }
    return max_score + std::log(sum);
}

}  // namespace attn::approx::detail
