#pragma once
// Corpus-level BLEU (Papineni, Roukos, Ward & Zhu 2002, "BLEU: a Method for Automatic Evaluation
// of Machine Translation", ACL), with one reference per hypothesis, as Bahdanau et al. report it:
//
//   p_n  = sum over sentences of clipped n-gram matches / sum of hypothesis n-grams   (Sec. 2.1.1)
//          (an n-gram's count in a hypothesis is clipped to its count in the reference)
//   BP   = 1 if c > r, else exp(1 - r / c)          c, r: total hypothesis / reference length (2.2.2)
//   BLEU = BP * exp(sum_{n=1..N} (1/N) log p_n)     uniform weights, N = 4 (Sec. 2.3)
//
// Corpus level means the counts are summed over all sentences before dividing, not averaged per
// sentence. Without smoothing a corpus with no matching 4-gram scores 0, as in the paper.
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace attn::classic {

struct BleuScore {
    double bleu = 0;                 // in [0, 1]; papers print 100 x this
    double brevity_penalty = 0;      // BP, 0 for an empty hypothesis corpus
    std::array<double, 4> precisions{};  // p_1 .. p_4 (0 where no hypothesis n-gram exists)
    std::size_t hypothesis_length = 0;   // c
    std::size_t reference_length = 0;    // r
};

// BLEU-4 of hypotheses[k] against references[k]. Throws attn::Error unless both lists have the
// same, non-zero number of sentences and every reference has at least one token (an empty
// hypothesis is allowed: it scores 0).
BleuScore corpus_bleu(const std::vector<std::vector<std::string>>& hypotheses,
                      const std::vector<std::vector<std::string>>& references);

}  // namespace attn::classic
