#include "attn/classic/bleu.hpp"

#include <cmath>
#include <map>
#include <string>

#include "attn/error.hpp"

namespace attn::classic {
namespace {

constexpr std::size_t kMaxOrder = 4;

using NgramCounts = std::map<std::vector<std::string>, std::size_t>;

NgramCounts count_ngrams(const std::vector<std::string>& tokens, std::size_t order) {
    NgramCounts counts;
    for (std::size_t start = 0; start + order <= tokens.size(); ++start) {
        ++counts[std::vector<std::string>(tokens.begin() + static_cast<std::ptrdiff_t>(start),
                                          tokens.begin() + static_cast<std::ptrdiff_t>(start + order))];
    }
    return counts;
}

}  // namespace

BleuScore corpus_bleu(const std::vector<std::vector<std::string>>& hypotheses,
                      const std::vector<std::vector<std::string>>& references) {
    if (hypotheses.empty() || hypotheses.size() != references.size()) {
        throw Error("hypotheses: must be as many as references (" + std::to_string(references.size()) +
                    ") and at least one, got " + std::to_string(hypotheses.size()));
    }
    std::array<std::size_t, kMaxOrder> matches{}, totals{};
    BleuScore score;
    for (std::size_t s = 0; s < hypotheses.size(); ++s) {
        if (references[s].empty()) throw Error("references: sentence " + std::to_string(s) + " is empty");
        score.hypothesis_length += hypotheses[s].size();
        score.reference_length += references[s].size();
        for (std::size_t order = 1; order <= kMaxOrder; ++order) {
            const NgramCounts reference = count_ngrams(references[s], order);
            for (const auto& [ngram, count] : count_ngrams(hypotheses[s], order)) {
                const auto it = reference.find(ngram);
                matches[order - 1] += it == reference.end() ? 0 : std::min(count, it->second);  // clipped
                totals[order - 1] += count;
            }
        }
    }
    double log_sum = 0;
    bool any_zero = false;
    for (std::size_t k = 0; k < kMaxOrder; ++k) {
        score.precisions[k] = totals[k] == 0 ? 0.0 : double(matches[k]) / double(totals[k]);
        if (score.precisions[k] == 0) any_zero = true;
        else log_sum += std::log(score.precisions[k]) / double(kMaxOrder);
    }
    const double c = double(score.hypothesis_length), r = double(score.reference_length);
    score.brevity_penalty = c == 0 ? 0.0 : (c > r ? 1.0 : std::exp(1.0 - r / c));
    score.bleu = any_zero ? 0.0 : score.brevity_penalty * std::exp(log_sum);
    return score;
}

}  // namespace attn::classic
