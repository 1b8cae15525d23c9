#include "attn/classic/pattern_heads.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/classic/positional_encoding.hpp"
#include "attn/classic/scoring.hpp"
#include "attn/classic/softmax.hpp"
#include "attn/error.hpp"

namespace attn::classic {
namespace {

constexpr std::size_t kMaxTokens = 1024;
constexpr std::size_t kMaxFeatureDim = 1024;

void check_num_tokens(std::size_t n, const char* name) {
    if (n < 2 || n > kMaxTokens) {
        throw Error(std::string(name) + ": must be in [2, " + std::to_string(kMaxTokens) + "], got " + std::to_string(n));
    }
}

void check_index(std::size_t index, std::size_t n, const std::string& name) {
    if (index >= n) {
        throw Error(name + ": must be a token index in [0, " + std::to_string(n - 1) + "], got " + std::to_string(index));
    }
}

Matrix features(std::size_t n, const PatternHeadOptions& o) {
    if (o.features == PatternFeatures::one_hot) {
        Matrix f(n, n);
        for (std::size_t j = 0; j < n; ++j) f.at(j, j) = 1.0;
        return f;
    }
    if (o.features != PatternFeatures::sinusoidal) throw Error("features: must be one_hot or sinusoidal");
    if (o.feature_dim < 2 || o.feature_dim > kMaxFeatureDim || o.feature_dim % 2 != 0) {
        throw Error("feature_dim: must be even and in [2, " + std::to_string(kMaxFeatureDim) + "], got " +
                    std::to_string(o.feature_dim));
    }
    return sinusoidal_positional_encoding(n, o.feature_dim);
}

}  // namespace

std::vector<std::size_t> previous_token_targets(std::size_t num_tokens) {
    check_num_tokens(num_tokens, "num_tokens");
    std::vector<std::size_t> t(num_tokens);
    for (std::size_t i = 0; i < num_tokens; ++i) t[i] = i == 0 ? 0 : i - 1;
    return t;
}

std::vector<std::size_t> head_word_targets(const std::vector<std::size_t>& heads) {
    check_num_tokens(heads.size(), "heads.length");
    for (std::size_t i = 0; i < heads.size(); ++i) check_index(heads[i], heads.size(), "heads[" + std::to_string(i) + "]");
    return heads;
}

std::vector<std::size_t> coreference_targets(std::size_t num_tokens,
                                             const std::vector<std::pair<std::size_t, std::size_t>>& links,
                                             std::optional<std::size_t> fallback) {
    check_num_tokens(num_tokens, "num_tokens");
    if (fallback) check_index(*fallback, num_tokens, "fallback");
    std::vector<std::size_t> t(num_tokens);
    for (std::size_t i = 0; i < num_tokens; ++i) t[i] = fallback.value_or(i);
    std::vector<bool> linked(num_tokens, false);
    for (const auto& [mention, antecedent] : links) {
        check_index(mention, num_tokens, "links.mention");
        check_index(antecedent, num_tokens, "links.antecedent");
        if (mention == antecedent) throw Error("links: a mention cannot be its own antecedent, got " + std::to_string(mention));
        if (linked[mention]) throw Error("links: mention " + std::to_string(mention) + " is linked more than once");
        linked[mention] = true;
        t[mention] = antecedent;
    }
    return t;
}

std::vector<std::size_t> broadcast_targets(std::size_t num_tokens, std::size_t separator) {
    check_num_tokens(num_tokens, "num_tokens");
    check_index(separator, num_tokens, "separator");
    return std::vector<std::size_t>(num_tokens, separator);
}

PatternHead pattern_head(const std::vector<std::size_t>& targets, const PatternHeadOptions& options) {
    const std::size_t n = targets.size();
    check_num_tokens(n, "targets.length");
    for (std::size_t i = 0; i < n; ++i) check_index(targets[i], n, "targets[" + std::to_string(i) + "]");
    if (!(options.min_weight > 0.5 && options.min_weight < 1.0)) {
        throw Error("min_weight: must be in (0.5, 1), got " + std::to_string(options.min_weight));
    }
    PatternHead head;
    head.targets = targets;
    head.k = features(n, options);
    const std::size_t d = head.k.cols;

    // Query row i asks for the feature of its target.
    Matrix ask(n, d);
    for (std::size_t i = 0; i < n; ++i) std::copy(head.k.row(targets[i]), head.k.row(targets[i]) + d, ask.row(i));
    const Matrix raw = dot_scores(ask, head.k);
    head.margin = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
        double best_other = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < n; ++j) {
            if (j != targets[i]) best_other = std::max(best_other, raw.at(i, j));
        }
        head.margin = std::min(head.margin, raw.at(i, targets[i]) - best_other);
    }
    // Distinct positions have distinct features, so the margin is positive; guard against it
    // being too small to separate in double (only conceivable for a tiny feature_dim).
    if (!(head.margin > 1e-9)) {
        throw Error("feature_dim: " + std::to_string(d) + " sinusoidal features cannot separate " + std::to_string(n) +
                    " positions (margin " + std::to_string(head.margin) + "); use more features or one_hot");
    }
    const double p = options.min_weight;
    head.gain = std::sqrt(static_cast<double>(d)) * std::log(static_cast<double>(n - 1) * p / (1.0 - p)) / head.margin;
    head.q = ask;
    for (double& x : head.q.data) x *= head.gain;
    head.weights = softmax_rows(scaled_dot_scores(head.q, head.k));
    return head;
}

}  // namespace attn::classic
