// The split-K merge kernel (native/cuda/merge_partial_states.cu) under the CPU emulation: the keys
// of each row are divided into splits, each split's online-softmax state (m, l, acc) is computed
// with core's update in double and rounded to float, and the kernel must merge them into the
// softmax-weighted sum over all keys, computed directly in double.
//
// Tolerance: 1e-5 absolute. The partial states are float-rounded (relative error 2^-24 each) and
// merged in float over at most 17 splits, on outputs of magnitude < 5.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attention_kernels.hpp"
#include "attn/attention/online_softmax.hpp"
#include "support.hpp"

namespace {

using namespace attn;
using namespace attn::test;

constexpr double kTolerance = 1e-5;

// Row `empty_row` (if any) has every key masked; with several splits, split 0 of every row is
// empty too (m = -inf, l = 0), which the merge must ignore.
void check_merge(int rows, int splits, int keys_per_split, int value_dim, int empty_row) {
    const std::uint64_t seed = next_seed();
    INFO("seed " << seed << ", rows " << rows << ", splits " << splits << ", value_dim " << value_dim);
    const int keys = splits * keys_per_split;
    const auto scores = randn({1, 1, std::size_t(rows), std::size_t(keys)}, seed).data;
    const auto values = randn({1, 1, std::size_t(rows) * keys, std::size_t(value_dim)}, seed + 1).data;
    auto masked = [&](int row, int key) { return row == empty_row || (splits > 1 && key < keys_per_split); };

    std::vector<float> m, l, acc;
    std::vector<double> expected(std::size_t(rows) * value_dim, 0.0), expected_lse(rows);
    for (int row = 0; row < rows; ++row) {
        std::vector<double> row_scores(keys);
        for (int j = 0; j < keys; ++j) {
            row_scores[j] = masked(row, j) ? -std::numeric_limits<double>::infinity() : scores[row * keys + j];
        }
        const double* row_values = values.data() + std::size_t(row) * keys * value_dim;
        for (int s = 0; s < splits; ++s) {
            online_softmax::State<double> state;
            std::vector<double> part(value_dim, 0.0);
            online_softmax::update(state, part.data(), value_dim, row_scores.data() + s * keys_per_split,
                                   keys_per_split, row_values + std::size_t(s) * keys_per_split * value_dim,
                                   value_dim);
            m.push_back(static_cast<float>(state.m));
            l.push_back(static_cast<float>(state.l));
            for (double x : part) acc.push_back(static_cast<float>(x));
        }
        // Direct softmax over all keys, in double.
        double max = -std::numeric_limits<double>::infinity(), sum = 0;
        for (double s : row_scores) max = std::max(max, s);
        for (int j = 0; j < keys && max > -INFINITY; ++j) {
            const double p = std::exp(row_scores[j] - max);
            sum += p;
            for (int c = 0; c < value_dim; ++c) expected[row * value_dim + c] += p * row_values[j * value_dim + c];
        }
        for (int c = 0; c < value_dim && sum > 0; ++c) expected[row * value_dim + c] /= sum;
        expected_lse[row] = sum > 0 ? max + std::log(sum) : -INFINITY;
    }
    std::vector<float> out(std::size_t(rows) * value_dim, NAN), lse(rows, NAN);
    cuda::merge_partial_states(m.data(), l.data(), acc.data(), rows, splits, value_dim, out.data(), lse.data(),
                               nullptr);
    CHECK(max_abs_diff(out, expected) < kTolerance);
    CHECK(max_abs_diff(lse, expected_lse) < kTolerance);
}

TEST_CASE("merge_partial_states kernel equals the softmax over all splits") {
    check_merge(3, 1, 17, 64, -1);
    check_merge(3, 3, 17, 1, 1);
    check_merge(5, 17, 3, 129, 4);
}

TEST_CASE("merge_partial_states launcher rejects bad arguments") {
    std::vector<float> b(64, 0.0f);
    float* p = b.data();
    check_error([&] { cuda::merge_partial_states(p, p, p, 0, 1, 1, p, p, nullptr); },
                "rows: must be in [1, 2^31 - 1], got 0");
    check_error([&] { cuda::merge_partial_states(p, p, p, 1, 1025, 1, p, p, nullptr); },
                "splits: must be in [1, 1024], got 1025");
    check_error([&] { cuda::merge_partial_states(p, p, p, 1, 1, 0, p, p, nullptr); },
                "value_dim: must be in [1, 1024], got 0");
    check_error([&] { cuda::merge_partial_states(p, p, nullptr, 1, 1, 1, p, p, nullptr); },
                "pointers: must not be null");
}

}  // namespace
