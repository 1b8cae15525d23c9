#include "attn/classic/scaling_experiment.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <utility>

#include "attn/classic/scoring.hpp"
#include "attn/classic/softmax.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn::classic {
namespace {

constexpr std::size_t kMaxDims = 64;
constexpr std::size_t kMaxDim = 4096;
constexpr std::size_t kMaxKeys = 4096;
constexpr std::size_t kMaxTrials = 1000000;

void check_range(std::size_t value, std::size_t lo, std::size_t hi, const std::string& name) {
    if (value < lo || value > hi) {
        throw Error(name + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                    std::to_string(value));
    }
}

// Accumulates the scores of one function over the trials of one d.
class StatsAccumulator {
public:
    void add_trial(std::span<const double> scores) {
        for (double s : scores) {
            sum_ += s;
            sum_sq_ += s * s;
        }
        count_ += scores.size();
        std::vector<double> w = softmax(scores);
        entropy_ += entropy_nats(w);
        max_weight_ += *std::max_element(w.begin(), w.end());
        jacobian_norm_ += softmax_jacobian_norm(w);
        if (trials_ == 0) {
            first_scores_.assign(scores.begin(), scores.end());
            first_weights_ = std::move(w);
        }
        ++trials_;
    }

    ScoreStats finish(std::size_t num_keys) const {
        const double n = static_cast<double>(count_), t = static_cast<double>(trials_);
        ScoreStats s;
        // Unbiased: (sum x^2 - (sum x)^2 / N) / (N - 1); N >= 2 because num_keys >= 2.
        s.variance = (sum_sq_ - sum_ * sum_ / n) / (n - 1);
        s.entropy = entropy_ / t;
        s.entropy_normalized = s.entropy / std::log(static_cast<double>(num_keys));
        s.max_weight = max_weight_ / t;
        s.jacobian_norm = jacobian_norm_ / t;
        s.first_scores = first_scores_;
        s.first_weights = first_weights_;
        return s;
    }

private:
    double sum_ = 0, sum_sq_ = 0, entropy_ = 0, max_weight_ = 0, jacobian_norm_ = 0;
    std::vector<double> first_scores_, first_weights_;
    std::size_t count_ = 0, trials_ = 0;
};

// Independent seeds per trial and per d's additive parameters.
std::uint64_t trial_seed(std::uint64_t seed, std::size_t trial) {
    return splitmix64(seed ^ splitmix64(trial * 0x9E3779B97F4A7C15ull));
}
std::uint64_t params_seed(std::uint64_t seed, std::size_t dim) {
    return splitmix64(seed ^ splitmix64(dim ^ 0xA5A5A5A5A5A5A5A5ull) ^ 0xC2B2AE3D27D4EB4Full);
}

// Normal draws are finite by construction, so they skip Matrix's checking constructor.
Matrix random_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed, double stddev) {
    Matrix m;
    m.rows = rows;
    m.cols = cols;
    m.data = random_normal({1, 1, rows, cols}, seed, stddev).data;
    return m;
}

// The first `d` columns of rows [first, first + count) of x.
Matrix leading_columns(const Matrix& x, std::size_t first, std::size_t count, std::size_t d) {
    Matrix out(count, d);
    for (std::size_t r = 0; r < count; ++r) std::copy(x.row(first + r), x.row(first + r) + d, out.row(r));
    return out;
}

// Bahdanau's parameters at width d_a = d, variance 1/fan-in.
AdditiveParams additive_params(std::uint64_t seed, std::size_t d) {
    const double stddev = 1.0 / std::sqrt(static_cast<double>(d));
    const std::uint64_t ps = params_seed(seed, d);
    return {random_matrix(d, d, ps, stddev), random_matrix(d, d, ps + 1, stddev),
            random_normal({1, 1, 1, d}, ps + 2, stddev).data};
}

}  // namespace

std::vector<ScalingRow> scaling_experiment(const ScalingExperimentOptions& options) {
    check_range(options.dims.size(), 1, kMaxDims, "dims.length");
    for (std::size_t d : options.dims) check_range(d, 1, kMaxDim, "dims");
    check_range(options.num_keys, 2, kMaxKeys, "num_keys");
    check_range(options.trials, 1, kMaxTrials, "trials");
    const std::size_t n = options.num_keys, k = options.dims.size();
    const std::size_t max_dim = *std::max_element(options.dims.begin(), options.dims.end());
    std::vector<AdditiveParams> additive;
    if (options.include_additive) {
        for (std::size_t d : options.dims) additive.push_back(additive_params(options.seed, d));
    }
    std::vector<StatsAccumulator> raw(k), scaled(k), add(k);
    std::vector<double> raw_scores(n), scaled_scores(n);
    for (std::size_t t = 0; t < options.trials; ++t) {
        // Row 0 is the query, rows 1..n the keys, every entry i.i.d. N(0, 1). Each d uses the first d
        // coordinates: an exact N(0, I_d) sample for that d, and one draw serves every d.
        const Matrix x = random_matrix(n + 1, max_dim, trial_seed(options.seed, t), 1.0);
        for (std::size_t r = 0; r < k; ++r) {
            const std::size_t d = options.dims[r];
            // q . k_j and q . k_j / sqrt(d) (the values dot_scores and scaled_dot_scores return, up to
            // rounding), computed in place: the inputs are known finite and this loop is the hot path.
            const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(d));
            for (std::size_t j = 0; j < n; ++j) {
                double s = 0;
                for (std::size_t c = 0; c < d; ++c) s += x.at(0, c) * x.at(1 + j, c);
                raw_scores[j] = s;
                scaled_scores[j] = s * inv_sqrt_d;
            }
            raw[r].add_trial(raw_scores);
            scaled[r].add_trial(scaled_scores);
            if (options.include_additive) {
                add[r].add_trial(additive_scores(leading_columns(x, 0, 1, d), leading_columns(x, 1, n, d), additive[r]).data);
            }
        }
    }
    std::vector<ScalingRow> rows(k);
    for (std::size_t r = 0; r < k; ++r) {
        rows[r].dim = options.dims[r];
        rows[r].raw = raw[r].finish(n);
        rows[r].scaled = scaled[r].finish(n);
        if (options.include_additive) rows[r].additive = add[r].finish(n);
    }
    return rows;
}

}  // namespace attn::classic
