#pragma once
// Constructed attention heads that reproduce, through a real softmax(Q K^T / sqrt(d)), the
// archetypal patterns Clark, Khandelwal, Levy & Manning (2019), "What Does BERT Look At? An
// Analysis of BERT's Attention" (arXiv:1906.04341) report in trained BERT heads:
//   * previous token   -- heads that put most weight on the token just before;
//   * head word        -- syntactic heads where a dependent attends to its head in a parse;
//   * coreference      -- a head where a mention attends to its antecedent;
//   * broadcast        -- heads that send most weight to [SEP] (which Clark et al. read as a
//                         "no-op" when the head's pattern does not apply).
// These are illustrations built by hand, not weights of a trained model: each query row i is
// given a target key t_i and Q, K are built so the softmax puts at least `min_weight` on it.
//
// Construction. Every key is a positional feature vector F(j) -- one-hot e_j, or the sinusoidal
// encoding PE(j) of positional_encoding.hpp -- and query row i is g * F(t_i). Both feature kinds
// have F(t) . F(t) > F(t) . F(j) for j != t (PE(t) . PE(j) = sum_k cos(w_k (t - j)) peaks at
// j = t), so the target has the largest score with a margin m = min_i [F(t_i).F(t_i) -
// max_{j != t_i} F(t_i).F(j)] > 0. Then weight(t_i) >= 1 / (1 + (n - 1) exp(-g m / sqrt(d))),
// and the gain g = sqrt(d) ln((n - 1) p / (1 - p)) / m is the smallest that guarantees p.
//
// For the previous-token head with sinusoidal features, every query row i >= 1 is a position-wise
// linear map of the token's own encoding: PE(i - 1) = M(-1) PE(i) (positional_offset_matrix), i.e.
// Q = PE W_Q with W_Q = g M(-1)^T and K = PE W_K with W_K = I -- a pattern a transformer can learn
// from positions alone (row 0, with no previous token, is given itself as target). The other
// heads' queries name their targets (the parse, the coreference links): in a trained model that
// knowledge comes from earlier layers' contextual representations, which this construction supplies.
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "attn/classic/matrix.hpp"

namespace attn::classic {

// Targets of the four patterns over num_tokens tokens (each in [2, 1024]).
// Row i -> i - 1; row 0 has no previous token and attends to itself.
std::vector<std::size_t> previous_token_targets(std::size_t num_tokens);
// Row i -> heads[i], a dependency parse given as each token's head index (the root and tokens
// outside the parse, such as [CLS] / [SEP], point wherever the caller chooses, e.g. themselves).
std::vector<std::size_t> head_word_targets(const std::vector<std::size_t>& heads);
// Row `mention` -> `antecedent` for every link (mention != antecedent, each mention linked once);
// rows without a link -> `fallback` (e.g. the [SEP] index), or themselves if fallback is empty.
std::vector<std::size_t> coreference_targets(std::size_t num_tokens,
                                             const std::vector<std::pair<std::size_t, std::size_t>>& links,
                                             std::optional<std::size_t> fallback);
// Every row -> separator.
std::vector<std::size_t> broadcast_targets(std::size_t num_tokens, std::size_t separator);

enum class PatternFeatures { one_hot, sinusoidal };

struct PatternHeadOptions {
    PatternFeatures features = PatternFeatures::sinusoidal;
    std::size_t feature_dim = 64;  // sinusoidal only: even, in [2, 1024] (one-hot uses num_tokens)
    double min_weight = 0.9;       // in (0.5, 1): the guaranteed weight on each row's target
};

struct PatternHead {
    std::vector<std::size_t> targets;  // [n] the key each query row was built to attend to
    Matrix q;                          // [n, d] g * F(t_i)
    Matrix k;                          // [n, d] F(j)
    Matrix weights;                    // [n, n] softmax(Q K^T / sqrt(d)), row-wise
    double gain = 0;                   // g
    double margin = 0;                 // m (at gain 1, before the 1/sqrt(d) scale)
};

// Builds the head for `targets` (2 to 1024 entries, each < targets.size()). Throws attn::Error on
// invalid options.
PatternHead pattern_head(const std::vector<std::size_t>& targets, const PatternHeadOptions& options = {});

}  // namespace attn::classic
