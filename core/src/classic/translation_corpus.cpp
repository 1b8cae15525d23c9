#include "attn/classic/translation_corpus.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <unordered_set>

#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn::classic {
namespace {

struct Noun {
    const char* en;
    const char* fr;
    bool feminine;
    bool vowel;  // the French noun starts with a vowel: "le"/"la" elide to "l'"
};

struct Adjective {
    const char* en;
    const char* fr_masculine;
    const char* fr_feminine;
    bool before_noun;  // "le premier sommet": kept before the noun, in English order
};

struct Verb {
    const char* en_base;
    const char* en_third_person;
    const char* en_past;  // also the participle
    const char* fr_present;
    const char* fr_participle;  // masculine; the feminine adds "e"
    const char* fr_future;
    bool vowel;  // "ne" elides to "n'"
};

struct WordPair {
    const char* en;
    const char* fr;
};

constexpr std::array kNouns{
    Noun{"agreement", "accord", false, true},       Noun{"area", "zone", true, false},
    Noun{"commission", "commission", true, false},  Noun{"council", "conseil", false, false},
    Noun{"treaty", "traité", false, false},         Noun{"parliament", "parlement", false, false},
    Noun{"government", "gouvernement", false, false}, Noun{"report", "rapport", false, false},
    Noun{"committee", "comité", false, false},      Noun{"market", "marché", false, false},
    Noun{"policy", "politique", true, false},       Noun{"economy", "économie", true, true},
    Noun{"union", "union", true, true},             Noun{"bank", "banque", true, false},
    Noun{"court", "cour", true, false},             Noun{"minister", "ministre", false, false},
    Noun{"president", "président", false, false},   Noun{"proposal", "proposition", true, false},
    Noun{"decision", "décision", true, false},      Noun{"law", "loi", true, false},
    Noun{"company", "entreprise", true, true},      Noun{"country", "pays", false, false},
    Noun{"region", "région", true, false},          Noun{"city", "ville", true, false},
    Noun{"programme", "programme", false, false},   Noun{"budget", "budget", false, false},
    Noun{"crisis", "crise", true, false},           Noun{"conference", "conférence", true, false},
    Noun{"delegation", "délégation", true, false},  Noun{"negotiation", "négociation", true, false},
    Noun{"directive", "directive", true, false},    Noun{"regulation", "règlement", false, false},
    Noun{"investment", "investissement", false, true}, Noun{"industry", "industrie", true, true},
    Noun{"organisation", "organisation", true, true}, Noun{"assembly", "assemblée", true, true},
    Noun{"office", "office", false, true},          Noun{"summit", "sommet", false, false},
    Noun{"strategy", "stratégie", true, false},     Noun{"reform", "réforme", true, false},
    Noun{"election", "élection", true, true},       Noun{"fund", "fonds", false, false},
    Noun{"convention", "convention", true, false},  Noun{"charter", "charte", true, false},
    Noun{"protocol", "protocole", false, false},    Noun{"institute", "institut", false, true},
    Noun{"community", "communauté", true, false},   Noun{"state", "état", false, true},
};

constexpr std::array kAdjectives{
    Adjective{"european", "européen", "européenne", false},
    Adjective{"economic", "économique", "économique", false},
    Adjective{"political", "politique", "politique", false},
    Adjective{"social", "social", "sociale", false},
    Adjective{"financial", "financier", "financière", false},
    Adjective{"monetary", "monétaire", "monétaire", false},
    Adjective{"commercial", "commercial", "commerciale", false},
    Adjective{"national", "national", "nationale", false},
    Adjective{"international", "international", "internationale", false},
    Adjective{"public", "public", "publique", false},
    Adjective{"common", "commun", "commune", false},
    Adjective{"federal", "fédéral", "fédérale", false},
    Adjective{"regional", "régional", "régionale", false},
    Adjective{"french", "français", "française", false},
    Adjective{"german", "allemand", "allemande", false},
    Adjective{"spanish", "espagnol", "espagnole", false},
    Adjective{"italian", "italien", "italienne", false},
    Adjective{"british", "britannique", "britannique", false},
    Adjective{"official", "officiel", "officielle", false},
    Adjective{"annual", "annuel", "annuelle", false},
    Adjective{"special", "spécial", "spéciale", false},
    Adjective{"central", "central", "centrale", false},
    Adjective{"democratic", "démocratique", "démocratique", false},
    Adjective{"legal", "juridique", "juridique", false},
    Adjective{"industrial", "industriel", "industrielle", false},
    Adjective{"agricultural", "agricole", "agricole", false},
    Adjective{"environmental", "environnemental", "environnementale", false},
    Adjective{"final", "final", "finale", false},
    // Before the noun; all start with a consonant, so an article before them never elides.
    Adjective{"big", "grand", "grande", true},
    Adjective{"small", "petit", "petite", true},
    Adjective{"first", "premier", "première", true},
    Adjective{"last", "dernier", "dernière", true},
    Adjective{"good", "bon", "bonne", true},
    Adjective{"bad", "mauvais", "mauvaise", true},
};

constexpr std::array kVerbs{
    Verb{"sign", "signs", "signed", "signe", "signé", "signera", false},
    Verb{"approve", "approves", "approved", "approuve", "approuvé", "approuvera", true},
    Verb{"adopt", "adopts", "adopted", "adopte", "adopté", "adoptera", true},
    Verb{"reject", "rejects", "rejected", "rejette", "rejeté", "rejettera", false},
    Verb{"support", "supports", "supported", "soutient", "soutenu", "soutiendra", false},
    Verb{"examine", "examines", "examined", "examine", "examiné", "examinera", true},
    Verb{"publish", "publishes", "published", "publie", "publié", "publiera", false},
    Verb{"finance", "finances", "financed", "finance", "financé", "financera", false},
    Verb{"prepare", "prepares", "prepared", "prépare", "préparé", "préparera", false},
    Verb{"present", "presents", "presented", "présente", "présenté", "présentera", false},
    Verb{"discuss", "discusses", "discussed", "discute", "discuté", "discutera", false},
    Verb{"modify", "modifies", "modified", "modifie", "modifié", "modifiera", false},
    Verb{"create", "creates", "created", "crée", "créé", "créera", false},
    Verb{"launch", "launches", "launched", "lance", "lancé", "lancera", false},
    Verb{"negotiate", "negotiates", "negotiated", "négocie", "négocié", "négociera", false},
    Verb{"ratify", "ratifies", "ratified", "ratifie", "ratifié", "ratifiera", false},
    Verb{"announce", "announces", "announced", "annonce", "annoncé", "annoncera", true},
    Verb{"confirm", "confirms", "confirmed", "confirme", "confirmé", "confirmera", false},
    Verb{"accept", "accepts", "accepted", "accepte", "accepté", "acceptera", true},
    Verb{"study", "studies", "studied", "étudie", "étudié", "étudiera", true},
};

// Prepositions that attach a noun phrase to a noun phrase; "of" contracts with the article.
constexpr std::array kPrepositions{
    WordPair{"on", "sur"},  WordPair{"with", "avec"},     WordPair{"for", "pour"},
    WordPair{"in", "dans"}, WordPair{"against", "contre"}, WordPair{"of", "de"},
};

constexpr std::array kMonths{
    WordPair{"january", "janvier"}, WordPair{"february", "février"}, WordPair{"march", "mars"},
    WordPair{"april", "avril"},     WordPair{"may", "mai"},           WordPair{"june", "juin"},
    WordPair{"july", "juillet"},    WordPair{"august", "août"},       WordPair{"september", "septembre"},
    WordPair{"october", "octobre"}, WordPair{"november", "novembre"}, WordPair{"december", "décembre"},
};

constexpr int kFirstYear = 1980, kLastYear = 2009, kLastDay = 28;

// Conjunctions between clauses; French "tandis que", "parce que" are two tokens.
constexpr std::array kConjunctions{
    std::array<const char*, 3>{"and", "et", nullptr},
    std::array<const char*, 3>{"but", "mais", nullptr},
    std::array<const char*, 3>{"while", "tandis", "que"},
    std::array<const char*, 3>{"because", "parce", "que"},
};

// Relative expressions of time with their word order in each language.
struct TimeAdverb {
    std::array<const char*, 2> en;
    std::array<const char*, 3> fr;
};
constexpr std::array kTimeAdverbs{
    TimeAdverb{{"last", "year"}, {"l'", "année", "dernière"}},
    TimeAdverb{{"next", "year"}, {"l'", "année", "prochaine"}},
    TimeAdverb{{"last", "week"}, {"la", "semaine", "dernière"}},
    TimeAdverb{{"next", "month"}, {"le", "mois", "prochain"}},
    TimeAdverb{{"yesterday", nullptr}, {"hier", nullptr, nullptr}},
    TimeAdverb{{"today", nullptr}, {"aujourd'hui", nullptr, nullptr}},
};

// Function words each side emits outside the tables above.
constexpr std::array kEnglishFunctionWords{"the", "which", "was", "is", "will", "does", "not", "by", "in", ".", "on"};
constexpr std::array kFrenchFunctionWords{"le",  "la",  "l'", "du",  "de",  "qui", "a",   "été", "est",
                                          "ne",  "n'",  "pas", "par", "en",  ".",   "sur"};

// The grammar's choices: drawn from a SplitMix64 stream, or read from a script (derive_pair).
class Draw {
public:
    explicit Draw(std::uint64_t seed) : state_(seed) {}
    explicit Draw(const std::vector<std::uint32_t>& script) : script_(&script) {}
    std::size_t below(std::size_t n) {
        if (script_) {
            if (next_ == script_->size()) throw Error("choices: the derivation needs more than " + std::to_string(next_) + " choices");
            const std::size_t c = (*script_)[next_++];
            if (c >= n) {
                throw Error("choices: choice " + std::to_string(next_ - 1) + " must be in [0, " + std::to_string(n) +
                            "), got " + std::to_string(c));
            }
            return c;
        }
        state_ += 0x9E3779B97F4A7C15ull;
        return static_cast<std::size_t>(splitmix64(state_) % n);
    }
    bool chance(double p) { return static_cast<double>(below(kChanceResolution)) < p * double(kChanceResolution); }
    template <typename Array>
    const auto& pick(const Array& a) {
        return a[below(a.size())];
    }
    bool script_finished() const { return !script_ || next_ == script_->size(); }

private:
    std::uint64_t state_ = 0;
    const std::vector<std::uint32_t>* script_ = nullptr;
    std::size_t next_ = 0;
};

struct Phrase {
    std::vector<std::string> en, fr;
    bool feminine = false;  // of a noun phrase's head noun: participles agree with it

    void append(const Phrase& p) {
        en.insert(en.end(), p.en.begin(), p.en.end());
        fr.insert(fr.end(), p.fr.begin(), p.fr.end());
    }
};

constexpr int kMaxNounPhraseDepth = 2;

Phrase verb_phrase(Draw& draw, bool subject_feminine, int depth);

Phrase noun_phrase(Draw& draw, int depth, bool allow_relative) {
    const Noun& noun = draw.pick(kNouns);
    std::vector<const Adjective*> before, after;
    if (draw.chance(0.15)) {
        const Adjective* a = &kAdjectives[kAdjectives.size() - 1 - draw.below(6)];
        before.push_back(a);
    }
    const std::size_t num_after = draw.chance(0.45) ? (draw.chance(0.35) ? 2 : 1) : 0;
    while (after.size() < num_after) {
        const Adjective* a = &kAdjectives[draw.below(kAdjectives.size() - 6)];
        if (std::find(after.begin(), after.end(), a) == after.end()) after.push_back(a);
    }
    Phrase p;
    p.feminine = noun.feminine;
    const auto agree = [&](const Adjective* a) { return std::string(noun.feminine ? a->fr_feminine : a->fr_masculine); };
    p.en.push_back("the");
    p.fr.push_back(before.empty() && noun.vowel ? "l'" : (noun.feminine ? "la" : "le"));
    for (const Adjective* a : before) {
        p.en.push_back(a->en);
        p.fr.push_back(agree(a));
    }
    for (const Adjective* a : after) p.en.push_back(a->en);
    p.en.push_back(noun.en);
    p.fr.push_back(noun.fr);
    // English stacks adjectives outwards from the noun to the left, French to the right, so the
    // French order is the mirror image: "european economic area" -> "zone économique européenne".
    for (auto it = after.rbegin(); it != after.rend(); ++it) p.fr.push_back(agree(*it));

    if (depth < kMaxNounPhraseDepth && draw.chance(depth == 0 ? 0.35 : 0.2)) {
        const WordPair& prep = draw.pick(kPrepositions);
        Phrase object = noun_phrase(draw, depth + 1, false);
        p.en.push_back(prep.en);
        p.en.insert(p.en.end(), object.en.begin(), object.en.end());
        std::vector<std::string> fr_object = object.fr;
        if (std::string_view(prep.fr) == "de" && fr_object.front() == "le") {
            fr_object.front() = "du";  // de + le -> du; "de la", "de l'" stay
        } else {
            p.fr.push_back(prep.fr);
        }
        p.fr.insert(p.fr.end(), fr_object.begin(), fr_object.end());
    }
    if (allow_relative && draw.chance(0.12)) {
        p.en.push_back("which");
        p.fr.push_back("qui");
        p.append(verb_phrase(draw, p.feminine, depth + 1));
    }
    return p;
}

Phrase time_phrase(Draw& draw) {
    Phrase p;
    const std::size_t kind = draw.below(4);
    const auto year = std::to_string(kFirstYear + static_cast<int>(draw.below(kLastYear - kFirstYear + 1)));
    if (kind == 0) {  // in august 1992 -> en août 1992
        const WordPair& m = draw.pick(kMonths);
        p.en = {"in", m.en, year};
        p.fr = {"en", m.fr, year};
    } else if (kind == 1) {  // in 1992 -> en 1992
        p.en = {"in", year};
        p.fr = {"en", year};
    } else if (kind == 2) {  // on 12 may 1995 -> le 12 mai 1995
        const WordPair& m = draw.pick(kMonths);
        const auto day = std::to_string(1 + draw.below(kLastDay));
        p.en = {"on", day, m.en, year};
        p.fr = {"le", day, m.fr, year};
    } else {  // last year -> l' année dernière
        const TimeAdverb& t = draw.pick(kTimeAdverbs);
        for (const char* w : t.en)
            if (w) p.en.push_back(w);
        for (const char* w : t.fr)
            if (w) p.fr.push_back(w);
    }
    return p;
}

// Everything of a clause after its subject: a verb group in one of six forms, its object or
// agent, and an optional time.
Phrase verb_phrase(Draw& draw, bool subject_feminine, int depth) {
    const Verb& v = draw.pick(kVerbs);
    const bool allow_relative = depth == 0;
    Phrase p;
    const std::size_t form = draw.below(6);
    const std::string participle = std::string(v.fr_participle) + (subject_feminine ? "e" : "");
    if (form <= 3) {  // active, with an object
        if (form == 0) {
            p.en = {v.en_third_person};
            p.fr = {v.fr_present};
        } else if (form == 1) {
            p.en = {v.en_past};
            p.fr = {"a", v.fr_participle};
        } else if (form == 2) {
            p.en = {"will", v.en_base};
            p.fr = {v.fr_future};
        } else {
            p.en = {"does", "not", v.en_base};
            p.fr = {v.vowel ? "n'" : "ne", v.fr_present, "pas"};
        }
        p.append(noun_phrase(draw, depth + 1, allow_relative));
    } else {  // passive, with an optional agent
        p.en = {form == 4 ? "was" : "is", v.en_past};
        p.fr = form == 4 ? std::vector<std::string>{"a", "été", participle} : std::vector<std::string>{"est", participle};
        if (draw.chance(0.3)) {
            p.en.push_back("by");
            p.fr.push_back("par");
            p.append(noun_phrase(draw, depth + 1, allow_relative));
        }
    }
    if (draw.chance(0.45)) p.append(time_phrase(draw));
    return p;
}

Phrase clause(Draw& draw) {
    Phrase subject = noun_phrase(draw, 0, true);
    subject.append(verb_phrase(draw, subject.feminine, 0));
    return subject;
}

// The k-th pair's seed: hashed together, so that streams of different seeds do not overlap.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t k) { return splitmix64(seed ^ splitmix64(k)); }

std::string source_key(const SentencePair& p) { return join_tokens(p.source); }

void check_range(std::size_t value, std::size_t lo, std::size_t hi, const char* name) {
    if (value < lo || value > hi) {
        throw Error(std::string(name) + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "], got " + std::to_string(value));
    }
}

std::unordered_set<std::string> excluded_sources(const std::vector<SentencePair>& exclude) {
    std::unordered_set<std::string> seen;
    for (const SentencePair& p : exclude) seen.insert(source_key(p));
    seen.insert(source_key(canonical_pair()));
    return seen;
}

std::vector<std::string> with_specials(const std::set<std::string>& words) {
    std::vector<std::string> all{std::string(kPadToken), std::string(kBosToken), std::string(kEosToken)};
    all.insert(all.end(), words.begin(), words.end());
    return all;
}

SentencePair derive(Draw& draw) {
    // One to four clauses: the number of clauses sets the sentence's length range.
    const std::size_t roll = draw.below(100);
    const std::size_t clauses = roll < 25 ? 1 : roll < 55 ? 2 : roll < 80 ? 3 : 4;
    Phrase sentence = clause(draw);
    for (std::size_t c = 1; c < clauses; ++c) {
        const auto& conj = draw.pick(kConjunctions);
        sentence.en.push_back(conj[0]);
        sentence.fr.push_back(conj[1]);
        if (conj[2]) sentence.fr.push_back(conj[2]);
        sentence.append(clause(draw));
    }
    sentence.en.push_back(".");
    sentence.fr.push_back(".");
    return {std::move(sentence.en), std::move(sentence.fr)};
}

}  // namespace

SentencePair canonical_pair() {
    return {tokenize("the agreement on the european economic area was signed in august 1992 ."),
            tokenize("l'accord sur la zone économique européenne a été signé en août 1992 .")};
}

std::vector<std::string> tokenize(std::string_view text) {
    std::vector<std::string> tokens;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && text[i] == ' ') ++i;
        std::size_t end = i;
        while (end < text.size() && text[end] != ' ') ++end;
        std::string_view word = text.substr(i, end - i);
        // French elision: l', d', n', j', s', c', qu' are words of their own.
        const std::size_t apostrophe = word.find('\'');
        if (apostrophe != std::string_view::npos && apostrophe + 1 < word.size() &&
            (apostrophe == 1 || word.substr(0, apostrophe) == "qu")) {
            tokens.emplace_back(word.substr(0, apostrophe + 1));
            word.remove_prefix(apostrophe + 1);
        }
        if (!word.empty()) tokens.emplace_back(word);
        i = end;
    }
    return tokens;
}

std::vector<std::string> tokenize_reader_sentence(std::string_view text) {
    constexpr std::string_view punctuation = ".,;:!?";
    std::string spaced;
    spaced.reserve(text.size() + 8);
    for (const char ch : text) {
        if (punctuation.find(ch) != std::string_view::npos) {
            spaced += ' ';
            spaced += ch;
            spaced += ' ';
        } else if (ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v') {
            spaced += ' ';
        } else {
            spaced += (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
        }
    }
    std::vector<std::string> tokens = tokenize(spaced);
    if (!tokens.empty() && tokens.back() != ".") tokens.emplace_back(".");
    return tokens;
}

std::string join_tokens(const std::vector<std::string>& tokens) {
    std::string s;
    for (const std::string& t : tokens) {
        if (!s.empty()) s += ' ';
        s += t;
    }
    return s;
}

SentencePair generate_pair(std::uint64_t seed) {
    Draw draw(seed);
    return derive(draw);
}

SentencePair derive_pair(const std::vector<std::uint32_t>& choices) {
    Draw draw(choices);
    SentencePair p = derive(draw);
    if (!draw.script_finished()) throw Error("choices: the derivation ended before the last choice");
    return p;
}

std::vector<SentencePair> generate_corpus(std::uint64_t seed, std::size_t count, std::size_t max_source_tokens,
                                          const std::vector<SentencePair>& exclude) {
    check_range(count, 1, 1'000'000, "count");
    check_range(max_source_tokens, 5, 200, "max_source_tokens");
    std::unordered_set<std::string> seen = excluded_sources(exclude);
    std::vector<SentencePair> corpus;
    corpus.reserve(count);
    for (std::uint64_t k = 0; corpus.size() < count; ++k) {
        SentencePair p = generate_pair(stream_seed(seed, k));
        if (p.source.size() > max_source_tokens || !seen.insert(source_key(p)).second) continue;
        corpus.push_back(std::move(p));
    }
    return corpus;
}

std::vector<std::vector<SentencePair>> generate_held_out_by_length(std::uint64_t seed, std::size_t per_bin,
                                                                   std::size_t bin_width,
                                                                   std::size_t max_source_tokens,
                                                                   const std::vector<SentencePair>& exclude) {
    check_range(per_bin, 1, 100'000, "per_bin");
    check_range(bin_width, 1, 100, "bin_width");
    check_range(max_source_tokens, 5, 60, "max_source_tokens");
    std::unordered_set<std::string> seen = excluded_sources(exclude);
    const std::size_t num_bins = (max_source_tokens + bin_width - 1) / bin_width;
    std::vector<std::vector<SentencePair>> bins(num_bins);
    std::size_t filled = 0;
    for (std::uint64_t k = 0; filled < num_bins * per_bin; ++k) {
        SentencePair p = generate_pair(stream_seed(seed, k));
        const std::size_t length = p.source.size();
        if (length > max_source_tokens) continue;
        std::vector<SentencePair>& bin = bins[(length - 1) / bin_width];
        if (bin.size() == per_bin || !seen.insert(source_key(p)).second) continue;
        bin.push_back(std::move(p));
        ++filled;
    }
    return bins;
}

Vocabulary::Vocabulary(std::vector<std::string> words) : words_(std::move(words)) {
    for (std::size_t i = 0; i < words_.size(); ++i) {
        if (!index_.emplace(words_[i], static_cast<int>(i)).second) throw Error("words: duplicate word '" + words_[i] + "'");
    }
}

const std::string& Vocabulary::word(int id) const {
    if (id < 0 || static_cast<std::size_t>(id) >= words_.size()) {
        throw Error("id: must be in [0, " + std::to_string(words_.size()) + "), got " + std::to_string(id));
    }
    return words_[static_cast<std::size_t>(id)];
}

int Vocabulary::id(const std::string& word) const {
    const auto it = index_.find(word);
    if (it == index_.end()) throw Error("word '" + word + "' is not in the vocabulary (out of vocabulary)");
    return it->second;
}

namespace {

// Levenshtein distance by byte, two rows.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> previous(b.size() + 1), current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        }
        previous.swap(current);
    }
    return previous[b.size()];
}

}  // namespace

std::vector<std::string> Vocabulary::closest(const std::string& word, std::size_t count) const {
    std::vector<std::size_t> distance(words_.size());
    std::size_t best = std::string::npos;
    for (std::size_t id = kEosId + 1; id < words_.size(); ++id) best = std::min(best, distance[id] = edit_distance(word, words_[id]));
    std::vector<std::string> out;
    for (std::size_t id = kEosId + 1; id < words_.size() && out.size() < count; ++id)
        if (distance[id] == best) out.push_back(words_[id]);
    return out;
}

std::vector<int> Vocabulary::encode(const std::vector<std::string>& tokens, std::size_t max_tokens) const {
    if (tokens.empty() || tokens.size() > max_tokens) {
        throw Error("tokens: must hold 1 to " + std::to_string(max_tokens) + " words, got " + std::to_string(tokens.size()));
    }
    std::vector<int> ids;
    ids.reserve(tokens.size() + 1);
    for (const std::string& t : tokens) ids.push_back(id(t));
    ids.push_back(kEosId);
    return ids;
}

const Vocabulary& source_vocabulary() {
    static const Vocabulary vocabulary = [] {
        std::set<std::string> w(kEnglishFunctionWords.begin(), kEnglishFunctionWords.end());
        for (const Noun& n : kNouns) w.insert(n.en);
        for (const Adjective& a : kAdjectives) w.insert(a.en);
        for (const Verb& v : kVerbs) w.insert({v.en_base, v.en_third_person, v.en_past});
        for (const WordPair& p : kPrepositions) w.insert(p.en);
        for (const WordPair& m : kMonths) w.insert(m.en);
        for (const auto& c : kConjunctions) w.insert(c[0]);
        for (const TimeAdverb& t : kTimeAdverbs)
            for (const char* x : t.en)
                if (x) w.insert(x);
        for (int y = kFirstYear; y <= kLastYear; ++y) w.insert(std::to_string(y));
        for (int d = 1; d <= kLastDay; ++d) w.insert(std::to_string(d));
        return Vocabulary(with_specials(w));
    }();
    return vocabulary;
}

const Vocabulary& target_vocabulary() {
    static const Vocabulary vocabulary = [] {
        std::set<std::string> w(kFrenchFunctionWords.begin(), kFrenchFunctionWords.end());
        for (const Noun& n : kNouns) w.insert(n.fr);
        for (const Adjective& a : kAdjectives) w.insert({a.fr_masculine, a.fr_feminine});
        for (const Verb& v : kVerbs) {
            w.insert({v.fr_present, v.fr_participle, std::string(v.fr_participle) + "e", v.fr_future});
        }
        for (const WordPair& p : kPrepositions) w.insert(p.fr);
        for (const WordPair& m : kMonths) w.insert(m.fr);
        for (const auto& c : kConjunctions)
            for (std::size_t i = 1; i < c.size(); ++i)
                if (c[i]) w.insert(c[i]);
        for (const TimeAdverb& t : kTimeAdverbs)
            for (const char* x : t.fr)
                if (x) w.insert(x);
        for (int y = kFirstYear; y <= kLastYear; ++y) w.insert(std::to_string(y));
        for (int d = 1; d <= kLastDay; ++d) w.insert(std::to_string(d));
        return Vocabulary(with_specials(w));
    }();
    return vocabulary;
}

}  // namespace attn::classic
