// Corpus BLEU-4 against values worked out by hand from Papineni et al.'s definitions (clipped
// n-gram precisions, their geometric mean, the brevity penalty on the corpus's total lengths),
// with the edge cases: identical, empty, shorter and longer hypotheses, no matching 4-gram.
#include <cmath>
#include <string>
#include <vector>

#include "attn/classic/bleu.hpp"
#include "attn/classic/translation_corpus.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::classic;

namespace {

using Corpus = std::vector<std::vector<std::string>>;
const auto reference = tokenize("the agreement was signed in august 1992 .");

}  // namespace

TEST_CASE("bleu: a hypothesis equal to its reference scores 1") {
    const BleuScore s = corpus_bleu({reference}, {reference});
    CHECK(s.bleu == doctest::Approx(1.0).epsilon(1e-15));
    CHECK(s.brevity_penalty == 1.0);
}

TEST_CASE("bleu: a shorter hypothesis, worked by hand") {
    // "the agreement was signed in 1992 ." (c = 7) against the 8-token reference:
    //   p1 = 7/7, p2 = 5/6 ("in 1992" misses), p3 = 3/5, p4 = 2/4; the product is 1/4, so the
    //   geometric mean is (1/4)^(1/4) = 1/sqrt 2, and BP = exp(1 - 8/7).
    const BleuScore s = corpus_bleu({tokenize("the agreement was signed in 1992 .")}, {reference});
    CHECK(s.precisions[0] == doctest::Approx(1.0));
    CHECK(s.precisions[1] == doctest::Approx(5.0 / 6));
    CHECK(s.precisions[2] == doctest::Approx(3.0 / 5));
    CHECK(s.precisions[3] == doctest::Approx(2.0 / 4));
    CHECK(s.brevity_penalty == doctest::Approx(std::exp(1.0 - 8.0 / 7)).epsilon(1e-14));
    CHECK(s.bleu == doctest::Approx(std::exp(-1.0 / 7) / std::sqrt(2.0)).epsilon(1e-14));  // 0.612975
    CHECK(s.bleu == doctest::Approx(0.612975).epsilon(1e-6));
}

TEST_CASE("bleu: a longer hypothesis has no brevity penalty and repeated words are clipped") {
    // A second "." (c = 9 > r = 8): p = 8/9, 7/8, 6/7, 5/6, the product 5/9, BP = 1.
    const BleuScore s = corpus_bleu({tokenize("the agreement was signed in august 1992 . .")}, {reference});
    CHECK(s.brevity_penalty == 1.0);
    CHECK(s.precisions[0] == doctest::Approx(8.0 / 9));
    CHECK(s.bleu == doctest::Approx(std::pow(5.0 / 9, 0.25)).epsilon(1e-14));
    // Papineni et al.'s Sec. 2.1 example: "the" seven times against a reference with two: p1 = 2/7.
    const BleuScore clipped = corpus_bleu({tokenize("the the the the the the the")}, {tokenize("the cat is on the mat")});
    CHECK(clipped.precisions[0] == doctest::Approx(2.0 / 7));
    CHECK(clipped.bleu == 0.0);  // no bigram matches: the geometric mean is 0
}

TEST_CASE("bleu: counts are summed over the corpus before dividing") {
    // The shorter hypothesis above plus an exact 6-token sentence: p = 13/13, 10/11, 7/9, 5/7,
    // c = 13, r = 14 -- not the mean of the two sentence scores.
    const Corpus hyps{tokenize("the agreement was signed in 1992 ."), tokenize("the cat sat on the mat")};
    const Corpus refs{reference, tokenize("the cat sat on the mat")};
    const BleuScore s = corpus_bleu(hyps, refs);
    CHECK(s.hypothesis_length == 13);
    CHECK(s.reference_length == 14);
    const double expected = std::exp(1.0 - 14.0 / 13) * std::pow(10.0 / 11 * 7.0 / 9 * 5.0 / 7, 0.25);
    CHECK(s.bleu == doctest::Approx(expected).epsilon(1e-14));
    CHECK(s.bleu == doctest::Approx(0.780600).epsilon(1e-5));
}

TEST_CASE("bleu: empty hypotheses score 0 and bad arguments are refused") {
    const BleuScore empty = corpus_bleu({{}}, {reference});
    CHECK(empty.bleu == 0.0);
    CHECK(empty.brevity_penalty == 0.0);
    CHECK(empty.hypothesis_length == 0);
    // An empty hypothesis in a corpus only lowers the totals' precision through the brevity penalty.
    const BleuScore mixed = corpus_bleu({reference, {}}, {reference, reference});
    CHECK(mixed.precisions[3] == doctest::Approx(1.0));
    CHECK(mixed.brevity_penalty == doctest::Approx(std::exp(1.0 - 16.0 / 8)));
    CHECK_THROWS_WITH_AS(corpus_bleu({}, {}), doctest::Contains("hypotheses"), Error);
    CHECK_THROWS_WITH_AS(corpus_bleu({reference}, {reference, reference}), doctest::Contains("hypotheses"), Error);
    CHECK_THROWS_WITH_AS(corpus_bleu({reference}, {{}}), doctest::Contains("references"), Error);
}
