// The int8 weight format (round trip within half a quantisation step, corrupt files refused) and
// the committed weights of `make train` (static/models/): they load, carry their provenance, fit
// the figure's budget, and RNNsearch translates the held-out canonical sentence of Bahdanau et
// al.'s Fig. 3 with a sharp alignment that follows the source except where French reorders it,
// and, loaded back, both score the BLEU the training report gives.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "attn/classic/encoder_decoder_file.hpp"
#include "attn/classic/encoder_decoder_training.hpp"
#include "attn/classic/translation_corpus.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::classic;

namespace {

std::vector<std::uint8_t> read_committed(const std::string& name) {
    std::ifstream f(std::string(ATTN_SOURCE_DIR) + "/static/models/" + name, std::ios::binary);
    REQUIRE(f.good());
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The source position output word i attends to most.
std::size_t strongest(const Translation& t, std::size_t i) {
    const double* row = t.alignment.row(i);
    return static_cast<std::size_t>(std::max_element(row, row + t.alignment.cols) - row);
}

std::size_t position(const std::vector<std::string>& words, const std::string& w) {
    const auto it = std::find(words.begin(), words.end(), w);
    REQUIRE(it != words.end());
    return static_cast<std::size_t>(it - words.begin());
}

}  // namespace

TEST_CASE("weights file: int8 round trip within half a step of each tensor's scale") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed = " << seed);
    for (EncoderDecoderKind kind : {EncoderDecoderKind::rnn_search, EncoderDecoderKind::rnn_enc}) {
        const auto model = init_encoder_decoder<float>({kind, 11, 13, 5, 7, 3, 9}, seed);
        const auto bytes = save_encoder_decoder_int8(model, "seed: 1");
        const LoadedEncoderDecoder loaded = load_encoder_decoder_int8(bytes);
        CHECK(loaded.provenance == "seed: 1");
        CHECK(loaded.model.config.kind == kind);
        REQUIRE(loaded.model.values.size() == model.values.size());
        for (const ParameterTensor& t : model.tensors) {
            CAPTURE(t.name);
            float max_abs = 0, worst = 0;
            for (std::size_t k = 0; k < t.size(); ++k) {
                max_abs = std::max(max_abs, std::abs(model.values[t.offset + k]));
                worst = std::max(worst, std::abs(model.values[t.offset + k] - loaded.model.values[t.offset + k]));
            }
            CHECK(worst <= 0.5f * max_abs / 127 * 1.0001f + 1e-30f);
        }
        // Saving the loaded weights again gives the same bytes: the file is a fixed point.
        CHECK(save_encoder_decoder_int8(loaded.model, "seed: 1") == bytes);
    }
}

TEST_CASE("weights file: corrupt files are refused with a reason") {
    const auto model = init_encoder_decoder<float>({EncoderDecoderKind::rnn_search, 11, 13, 5, 7, 3, 9}, 3);
    const auto bytes = save_encoder_decoder_int8(model, "p");
    // A file cut short or with bytes after its last tensor: the header's sizes say how long it is.
    CHECK_THROWS_WITH_AS(load_encoder_decoder_int8(std::vector<std::uint8_t>(bytes.begin(), bytes.end() - 1)),
                         doctest::Contains("need"), Error);
    auto trailing = bytes;
    trailing.push_back(0);
    CHECK_THROWS_WITH_AS(load_encoder_decoder_int8(trailing), doctest::Contains("need"), Error);
    CHECK_THROWS_WITH_AS(load_encoder_decoder_int8(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 20)),
                         doctest::Contains("ends inside its header"), Error);
    CHECK_THROWS_WITH_AS(load_encoder_decoder_int8(std::vector<std::uint8_t>{}), doctest::Contains("magic"), Error);
    auto bad_magic = bytes;
    bad_magic[0] = 'X';
    CHECK_THROWS_WITH_AS(load_encoder_decoder_int8(bad_magic), doctest::Contains("ATTNED01"), Error);
    auto other_version = bytes;
    other_version[7] = '2';
    CHECK_THROWS_WITH_AS(load_encoder_decoder_int8(other_version), doctest::Contains("version \"02\" is not supported"), Error);
    // The largest widths the header allows would need gigabytes: refused from the file's size alone.
    auto huge = bytes;
    for (std::size_t field : {1, 2, 3, 4, 5, 6}) {
        const std::uint32_t v = field <= 2 ? 100000 : 1024;
        for (std::size_t b = 0; b < 4; ++b) huge[8 + 4 * field + b] = static_cast<std::uint8_t>(v >> (8 * b));
    }
    CHECK_THROWS_WITH_AS(load_encoder_decoder_int8(huge), doctest::Contains("need"), Error);
    auto bad_width = bytes;
    bad_width[8 + 4 * 4] = 0;  // hidden_dim = 0
    CHECK_THROWS_WITH_AS(load_encoder_decoder_int8(bad_width), doctest::Contains("hidden_dim"), Error);
    CHECK_THROWS_WITH_AS(save_encoder_decoder_int8(model, std::string(70000, 'x')), doctest::Contains("provenance"), Error);
}

TEST_CASE("committed weights: both models load with their provenance, RNNsearch within the figure's budget") {
    const auto search_bytes = read_committed("bahdanau-rnnsearch.bin");
    const auto enc_bytes = read_committed("bahdanau-rnnenc.bin");
    // Raw size bounds the gzipped size: under 60 KB before compression already.
    CHECK(search_bytes.size() <= 60 * 1000);
    const LoadedEncoderDecoder search = load_encoder_decoder_int8(search_bytes);
    const LoadedEncoderDecoder enc = load_encoder_decoder_int8(enc_bytes);
    CHECK(search.model.config.kind == EncoderDecoderKind::rnn_search);
    CHECK(enc.model.config.kind == EncoderDecoderKind::rnn_enc);
    for (const auto* loaded : {&search, &enc}) {
        CHECK(loaded->provenance.find("command: train_translation") != std::string::npos);
        CHECK(loaded->provenance.find("seed: ") != std::string::npos);
        CHECK(loaded->provenance.find("commit: ") != std::string::npos);
    }
}

TEST_CASE("committed weights: RNNsearch translates the held-out canonical sentence with a sharp, reordering alignment") {
    const EncoderDecoder<float> model = load_encoder_decoder_int8(read_committed("bahdanau-rnnsearch.bin")).model;
    const SentencePair canonical = canonical_pair();
    const Translation t = translate(model, join_tokens(canonical.source));
    std::vector<std::string> expected = canonical.target;
    expected.emplace_back(kEosToken);
    REQUIRE(t.target == expected);
    REQUIRE(t.alignment.rows == t.target.size());
    REQUIRE(t.alignment.cols == t.source.size());
    // Sharp: every output word puts at least 0.8 of its weight on one source word (measured:
    // 0.87 to 0.99).
    for (std::size_t i = 0; i < t.alignment.rows; ++i) {
        CAPTURE(t.target[i]);
        CHECK(t.alignment.at(i, strongest(t, i)) >= 0.8);
    }
    const auto aligned = [&](const std::string& fr, const std::string& en) {
        CAPTURE(fr);
        CHECK(t.source[strongest(t, position(t.target, fr))] == en);
    };
    // Word for word where the languages agree ...
    aligned("accord", "agreement");
    aligned("signé", "signed");
    aligned("août", "august");
    aligned("1992", "1992");
    // ... and the adjective-noun inversion: zone <- area, économique <- economic, européenne <- european.
    aligned("zone", "area");
    aligned("économique", "economic");
    aligned("européenne", "european");
    const std::size_t area = position(t.source, "area");
    CHECK(strongest(t, position(t.target, "zone")) == area);
    CHECK(strongest(t, position(t.target, "européenne")) == area - 2);
    // Roughly monotone: apart from the inverted noun phrase, the strongest source position never
    // moves backwards.
    std::size_t previous = 0;
    for (std::size_t i = 0; i < t.alignment.rows; ++i) {
        const std::string& w = t.target[i];
        if (w == "zone" || w == "économique" || w == "européenne") continue;
        CAPTURE(w);
        CHECK(strongest(t, i) >= previous);
        previous = strongest(t, i);
    }
}

namespace {

// The number after `key` in the committed training report, searched from `from`.
double json_number(const std::string& json, const std::string& key, std::size_t from = 0) {
    const std::size_t at = json.find("\"" + key + "\": ", from);
    REQUIRE(at != std::string::npos);
    return std::stod(json.substr(at + key.size() + 4));
}

}  // namespace

TEST_CASE("committed weights: loaded back, they score the BLEU the training report gives on the longest bin") {
    std::ifstream f(std::string(ATTN_SOURCE_DIR) + "/site/data/generated/bahdanau_training.json");
    REQUIRE(f.good());
    const std::string json{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    const auto data = translation_experiment_data(static_cast<std::uint64_t>(json_number(json, "seed")),
                                                  static_cast<std::size_t>(json_number(json, "train_pairs")),
                                                  static_cast<std::size_t>(json_number(json, "held_out_per_bin")));
    const std::size_t longest_bin = json.find("\"min_tokens\": 41");
    REQUIRE(longest_bin != std::string::npos);
    for (const char* name : {"RNNsearch", "RNNenc"}) {
        CAPTURE(name);
        const std::string file = std::string("bahdanau-") + (name == std::string("RNNsearch") ? "rnnsearch" : "rnnenc") + ".bin";
        const auto model = load_encoder_decoder_int8(read_committed(file)).model;
        // The report prints two decimals; a host whose compiler contracts differently into FMAs may
        // flip a rare near-tie, hence 0.5 BLEU rather than 0.005.
        const double reported = json_number(json, name, longest_bin);
        const double measured = 100 * evaluate_bleu(model, data.held_out.back()).bleu;
        CAPTURE(reported);
        CHECK(std::abs(measured - reported) <= 0.5);
    }
}
