// Constructed pattern heads: every query row's largest weight is on its intended key and is at
// least the guaranteed min_weight, through a real softmax(Q K^T / sqrt(d)).
#include <algorithm>
#include <cmath>
#include <vector>

#include "attn/classic/pattern_heads.hpp"
#include "attn/classic/positional_encoding.hpp"
#include "attn/classic/scoring.hpp"
#include "attn/classic/softmax.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::classic;

namespace {

// "[CLS] the animal didn't cross the street because it was too tired [SEP]": 13 tokens.
constexpr std::size_t kTokens = 13;
constexpr std::size_t kSep = 12;
// A dependency parse (Universal Dependencies style): each token's head index. the -> animal,
// animal -> cross (nsubj), didn't -> cross (aux), the -> street, street -> cross (obj), because / it /
// was / too -> tired, tired -> cross (advcl); the root "cross" (4) and [CLS], [SEP] point to themselves.
const std::vector<std::size_t> kHeads = {0, 2, 4, 4, 4, 6, 4, 11, 11, 11, 11, 4, 12};
// Coreference: "it" (8) -> "animal" (2).
const std::vector<std::pair<std::size_t, std::size_t>> kLinks = {{8, 2}};

void check_head(const PatternHead& head, double min_weight) {
    const std::size_t n = head.targets.size();
    REQUIRE(head.weights.rows == n);
    REQUIRE(head.weights.cols == n);
    for (std::size_t i = 0; i < n; ++i) {
        CAPTURE(i);
        const double* row = head.weights.row(i);
        const std::size_t argmax = static_cast<std::size_t>(std::max_element(row, row + n) - row);
        CHECK(argmax == head.targets[i]);
        CHECK(row[head.targets[i]] >= min_weight * (1 - 1e-12));
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) sum += row[j];
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
    }
    // The weights are the softmax of the returned Q and K, nothing else.
    CHECK(test::max_abs_diff(head.weights.data, softmax_rows(scaled_dot_scores(head.q, head.k)).data) < 1e-15);
}

}  // namespace

TEST_CASE("classic pattern heads: the four patterns put at least min_weight on their intended keys") {
    const std::vector<std::vector<std::size_t>> patterns = {
        previous_token_targets(kTokens), head_word_targets(kHeads), coreference_targets(kTokens, kLinks, kSep),
        broadcast_targets(kTokens, kSep)};
    CHECK(patterns[0][0] == 0);
    CHECK(patterns[0][5] == 4);
    CHECK(patterns[2][8] == 2);
    CHECK(patterns[2][3] == kSep);
    CHECK(coreference_targets(kTokens, kLinks, std::nullopt)[3] == 3);
    for (PatternFeatures f : {PatternFeatures::one_hot, PatternFeatures::sinusoidal}) {
        for (double p : {0.6, 0.9, 0.99}) {
            for (const auto& targets : patterns) {
                CAPTURE(p);
                const PatternHead head = pattern_head(targets, {f, 64, p});
                CHECK(head.k.cols == (f == PatternFeatures::one_hot ? kTokens : 64));
                CHECK(head.margin > 0);
                check_head(head, p);
            }
        }
    }
    // One-hot features: the margin is exactly 1 and the gain has its closed form.
    const PatternHead oh = pattern_head(patterns[0], {PatternFeatures::one_hot, 0, 0.9});
    CHECK(oh.margin == 1.0);
    CHECK(oh.gain == doctest::Approx(std::sqrt(13.0) * std::log(12 * 0.9 / 0.1)).epsilon(1e-14));
}

TEST_CASE("classic pattern heads: the gain is the smallest that meets the guarantee on the tightest row") {
    // For one-hot features every non-target key scores 0, so each row's target weight equals the
    // bound 1 / (1 + (n - 1) e^{-g m / sqrt d}) exactly.
    for (std::size_t n : {2, 3, 17, 129}) {
        CAPTURE(n);
        const PatternHead head = pattern_head(broadcast_targets(n, n - 1), {PatternFeatures::one_hot, 0, 0.75});
        for (std::size_t i = 0; i < n; ++i) CHECK(head.weights.at(i, n - 1) == doctest::Approx(0.75).epsilon(1e-12));
    }
}

TEST_CASE("classic pattern heads: the previous-token head is a linear map of each token's own encoding") {
    for (std::size_t n : {3, 17, 113}) {
        CAPTURE(n);
        const std::size_t d = 32;
        const PatternHead head = pattern_head(previous_token_targets(n), {PatternFeatures::sinusoidal, d, 0.9});
        check_head(head, 0.9);
        const Matrix pe = sinusoidal_positional_encoding(n, d);
        CHECK(test::max_abs_diff(head.k.data, pe.data) == 0.0);  // W_K = I
        // Q row i = g M(-1) PE(i) for i >= 1: a position-wise projection W_Q = g M(-1)^T.
        const Matrix m = positional_offset_matrix(d, -1);
        for (std::size_t i = 1; i < n; ++i) {
            for (std::size_t r = 0; r < d; ++r) {
                double y = 0;
                for (std::size_t c = 0; c < d; ++c) y += m.at(r, c) * pe.at(i, c);
                CHECK(std::abs(head.q.at(i, r) - head.gain * y) < 1e-11 * head.gain);
            }
        }
    }
}

TEST_CASE("classic pattern heads: invalid arguments throw attn::Error naming them") {
    test::check_error([] { previous_token_targets(1); }, "num_tokens: must be in [2, 1024], got 1");
    test::check_error([] { head_word_targets({0, 5, 1}); }, "heads[1]: must be a token index in [0, 2], got 5");
    test::check_error([] { coreference_targets(4, {{2, 2}}, std::nullopt); }, "cannot be its own antecedent");
    test::check_error([] { coreference_targets(4, {{2, 1}, {2, 0}}, std::nullopt); }, "linked more than once");
    test::check_error([] { coreference_targets(4, {{2, 9}}, std::nullopt); }, "links.antecedent");
    test::check_error([] { coreference_targets(4, {}, 4); }, "fallback: must be a token index in [0, 3], got 4");
    test::check_error([] { broadcast_targets(4, 4); }, "separator");
    test::check_error([] { pattern_head({0, 0, 1}, {PatternFeatures::sinusoidal, 64, 0.5}); }, "min_weight: must be in (0.5, 1)");
    test::check_error([] { pattern_head({0, 0, 1}, {PatternFeatures::sinusoidal, 63, 0.9}); }, "feature_dim: must be even");
    test::check_error([] { pattern_head({0, 3, 1}); }, "targets[1]");
    test::check_error([] { pattern_head({0}); }, "targets.length: must be in [2, 1024], got 1");
}
