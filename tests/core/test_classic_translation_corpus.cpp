// The synthetic English -> French grammar: deterministic, within its length range, covered by its
// vocabularies, able to express Bahdanau et al.'s Fig. 3 sentence, and keeping that sentence (and
// any excluded one) out of the corpora it generates.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "attn/classic/translation_corpus.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::classic;

namespace {

constexpr std::uint32_t kYes = 0, kNo = kChanceResolution - 1;

// The derivation of the canonical pair, choice by choice (translation_corpus.cpp's order).
const std::vector<std::uint32_t> kCanonicalChoices{
    0,                   // one clause
    0, kNo, kNo,         // subject noun "agreement", no adjective before or after it
    kYes, 0,             // a prepositional phrase with "on"
    1, kNo, kYes, kYes,  // its noun "area", two adjectives after it:
    0, 1,                // "european", "economic"
    kNo,                 // no further phrase inside it
    kNo,                 // no relative clause on the subject
    0, 4, kNo,           // verb "sign", past passive, no agent
    kYes, 0, 12, 7,      // a time: "in <month> <year>", 1980 + 12, august
};

}  // namespace

TEST_CASE("corpus: the canonical pair is derived by the grammar, elision tokenised apart") {
    const SentencePair derived = derive_pair(kCanonicalChoices);
    const SentencePair canonical = canonical_pair();
    CHECK(join_tokens(derived.source) == "the agreement on the european economic area was signed in august 1992 .");
    CHECK(join_tokens(derived.target) == "l' accord sur la zone économique européenne a été signé en août 1992 .");
    CHECK(derived.source == canonical.source);
    CHECK(derived.target == canonical.target);
    CHECK(tokenize("l'accord n'approuve aujourd'hui") == std::vector<std::string>{"l'", "accord", "n'", "approuve", "aujourd'hui"});
    // One choice more or less, or out of range, is refused.
    std::vector<std::uint32_t> longer = kCanonicalChoices;
    longer.push_back(0);
    CHECK_THROWS_WITH_AS(derive_pair(longer), doctest::Contains("choices"), Error);
    CHECK_THROWS_WITH_AS(derive_pair({0, 0}), doctest::Contains("choices"), Error);
    CHECK_THROWS_WITH_AS(derive_pair({100}), doctest::Contains("choices"), Error);
}

TEST_CASE("corpus: reorderings of the grammar, derived") {
    // A feminine subject with one adjective, negated verb starting with a vowel, date with a day.
    const SentencePair p = derive_pair({0, 1, kNo, kYes, kNo, 3, kNo, kNo, 1, 3, 3, kNo, kNo, kNo, kNo, kYes, 2, 15, 4, 11});
    CHECK(join_tokens(p.source) == "the social area does not approve the council on 12 may 1995 .");
    CHECK(join_tokens(p.target) == "la zone sociale n' approuve pas le conseil le 12 mai 1995 .");
}

TEST_CASE("corpus: generation is deterministic, bounded and covered by the vocabularies") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed = " << seed);
    const auto a = generate_corpus(seed, 3000, 50);
    const auto b = generate_corpus(seed, 3000, 50);
    CHECK(a.size() == 3000);
    bool same = true;
    for (std::size_t k = 0; k < a.size(); ++k) same = same && a[k].source == b[k].source && a[k].target == b[k].target;
    CHECK(same);
    CHECK(generate_corpus(seed + 1, 10, 50)[0].source != a[0].source);
    std::size_t shortest = 1000, longest = 0;
    std::set<std::string> sources;
    for (const SentencePair& p : a) {
        shortest = std::min(shortest, p.source.size());
        longest = std::max(longest, p.source.size());
        sources.insert(join_tokens(p.source));
        CHECK_NOTHROW(source_vocabulary().encode(p.source, 100));
        CHECK_NOTHROW(target_vocabulary().encode(p.target, 100));
    }
    CHECK(sources.size() == a.size());  // distinct
    CHECK(shortest >= 5);
    CHECK(shortest <= 8);
    CHECK(longest <= 50);
    CHECK(longest >= 46);  // the range is used up to its end
    CHECK(source_vocabulary().size() >= 200);
    CHECK(target_vocabulary().size() >= 200);
    CHECK(source_vocabulary().size() <= 400);
    CHECK(target_vocabulary().size() <= 400);
}

TEST_CASE("corpus: the canonical pair and excluded sentences never enter a corpus") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed = " << seed);
    const std::string canonical = join_tokens(canonical_pair().source);
    const auto corpus = generate_corpus(seed, 20000, 50);
    CHECK(std::none_of(corpus.begin(), corpus.end(), [&](const SentencePair& p) { return join_tokens(p.source) == canonical; }));
    // The first pair of the stream is kept unless excluded.
    const auto excluded = generate_corpus(seed, 5, 50, {corpus[0]});
    CHECK(excluded[0].source == corpus[1].source);
    const auto bins = generate_held_out_by_length(seed, 20, 10, 50, corpus);
    REQUIRE(bins.size() == 5);
    std::set<std::string> train;
    for (const SentencePair& p : corpus) train.insert(join_tokens(p.source));
    for (std::size_t b = 0; b < bins.size(); ++b) {
        CHECK(bins[b].size() == 20);
        for (const SentencePair& p : bins[b]) {
            CHECK(p.source.size() >= 1 + 10 * b);
            CHECK(p.source.size() <= 10 + 10 * b);
            CHECK(train.count(join_tokens(p.source)) == 0);
            CHECK(join_tokens(p.source) != canonical);
        }
    }
}

TEST_CASE("corpus: vocabulary lookups and arguments are validated") {
    const Vocabulary& v = source_vocabulary();
    CHECK(v.word(kEosId) == "<eos>");
    CHECK(v.word(kBosId) == "<bos>");
    CHECK_THROWS_WITH_AS(v.id("zorblax"), doctest::Contains("'zorblax'"), Error);
    CHECK_THROWS_WITH_AS(v.word(-1), doctest::Contains("id"), Error);
    CHECK_THROWS_WITH_AS(v.encode({"the", "zorblax"}, 10), doctest::Contains("'zorblax'"), Error);
    CHECK_THROWS_WITH_AS(v.encode({}, 10), doctest::Contains("tokens"), Error);
    CHECK(v.encode({"the", "treaty"}, 10).back() == kEosId);
    CHECK_THROWS_WITH_AS(generate_corpus(1, 0, 50), doctest::Contains("count"), Error);
    CHECK_THROWS_WITH_AS(generate_corpus(1, 5, 4), doctest::Contains("max_source_tokens"), Error);
    CHECK_THROWS_WITH_AS(generate_held_out_by_length(1, 5, 0, 50, {}), doctest::Contains("bin_width"), Error);
    CHECK_THROWS_WITH_AS(generate_held_out_by_length(1, 5, 10, 61, {}), doctest::Contains("max_source_tokens"), Error);
}
