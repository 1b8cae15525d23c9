// The GRU encoder-decoder's hand-written backward pass against central finite differences of its
// loss, in double, for every entry of every parameter tensor of a tiny model of each kind; greedy
// decoding's alignment rows; the argument checks and the out-of-vocabulary message.
#include <cmath>
#include <string>
#include <vector>

#include "attn/classic/encoder_decoder.hpp"
#include "attn/classic/translation_corpus.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::classic;

namespace {

EncoderDecoderConfig tiny_config(EncoderDecoderKind kind) {
    // Odd, distinct widths so that a transposed index cannot go unnoticed.
    return {kind, 7, 6, 3, 4, 5, 3};
}

std::vector<int> random_ids(std::size_t length, std::size_t vocab, std::uint64_t seed) {
    std::vector<int> ids;
    for (std::size_t k = 0; k + 1 < length; ++k) ids.push_back(3 + static_cast<int>(uniform_from_hash(seed, k) * double(vocab - 3)));
    ids.push_back(kEosId);
    return ids;
}

void check_gradient(EncoderDecoderKind kind) {
    const std::uint64_t seed = test::next_seed();
    INFO("seed = " << seed);
    EncoderDecoder<double> model = init_encoder_decoder<double>(tiny_config(kind), seed);
    // Non-zero biases, so that their gradients are exercised away from the initial point.
    for (std::size_t k = 0; k < model.values.size(); ++k) model.values[k] += 0.1 * (uniform_from_hash(seed + 1, k) - 0.5);
    const std::vector<int> source = random_ids(5, 7, seed + 2), target = random_ids(4, 6, seed + 3);
    std::vector<double> gradient(model.values.size(), 0.0);
    sentence_loss(model, source, target, &gradient);
    // Central differences: truncation O(h^2) ~ 1e-10 and rounding ~ 1e-16 / h ~ 1e-11 for a loss
    // of order 1, so 1e-7 absolute plus 1e-6 relative is tight yet safe.
    constexpr double h = 1e-5;
    for (const ParameterTensor& t : model.tensors) {
        CAPTURE(t.name);
        double worst = 0;
        for (std::size_t k = 0; k < t.size(); ++k) {
            double& w = model.values[t.offset + k];
            const double saved = w;
            w = saved + h;
            const double up = sentence_loss(model, source, target, nullptr);
            w = saved - h;
            const double down = sentence_loss(model, source, target, nullptr);
            w = saved;
            const double numeric = (up - down) / (2 * h);
            const double error = std::abs(gradient[t.offset + k] - numeric) / (1e-7 + 1e-6 * std::abs(numeric));
            worst = std::max(worst, error);
        }
        CHECK(worst <= 1.0);
    }
}

}  // namespace

TEST_CASE("encoder-decoder: rnn_search gradient matches central differences for every tensor") {
    check_gradient(EncoderDecoderKind::rnn_search);
}

TEST_CASE("encoder-decoder: rnn_enc gradient matches central differences for every tensor") {
    check_gradient(EncoderDecoderKind::rnn_enc);
}

TEST_CASE("encoder-decoder: layouts differ only by the backward encoder and the alignment model") {
    const auto search = parameter_layout(tiny_config(EncoderDecoderKind::rnn_search));
    const auto enc = parameter_layout(tiny_config(EncoderDecoderKind::rnn_enc));
    CHECK(search.size() == enc.size() + 6);
    const EncoderDecoder<double> model = init_encoder_decoder<double>(tiny_config(EncoderDecoderKind::rnn_search), 1);
    CHECK(model.tensor("attention.U").cols == 2 * 4);  // U_a reads both directions of h_j
    CHECK(model.tensor("decoder.W").cols == 3 + 2 * 4);
    CHECK_THROWS_AS(init_encoder_decoder<double>(tiny_config(EncoderDecoderKind::rnn_enc), 1).tensor("attention.v"), Error);
}

TEST_CASE("encoder-decoder: greedy decoding's alignment rows are distributions over the source") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed = " << seed);
    const auto model = init_encoder_decoder<float>(tiny_config(EncoderDecoderKind::rnn_search), seed);
    const std::vector<int> source = random_ids(6, 7, seed + 1);
    const Decoded d = greedy_decode(model, source, 9);
    REQUIRE(!d.target.empty());
    CHECK(d.target.size() <= 9);
    CHECK(d.alignment.rows == d.target.size());
    CHECK(d.alignment.cols == source.size());
    for (std::size_t i = 0; i < d.alignment.rows; ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < d.alignment.cols; ++j) sum += d.alignment.at(i, j);
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
    const auto enc = init_encoder_decoder<float>(tiny_config(EncoderDecoderKind::rnn_enc), seed);
    CHECK(greedy_decode(enc, source, 9).alignment.rows == 0);
}

TEST_CASE("encoder-decoder: the decoder trace is the alignment model's own inputs and outputs") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed = " << seed);
    const auto config = tiny_config(EncoderDecoderKind::rnn_search);
    const auto model = init_encoder_decoder<double>(config, seed);
    const std::vector<int> source = random_ids(5, 7, seed + 1);
    const Decoded d = greedy_decode(model, source, 9);
    const DecoderTrace& t = d.trace;
    const std::size_t steps = d.target.size(), tx = source.size(), n = config.hidden_dim, dh = 2 * n,
                      a = config.attention_dim;
    REQUIRE(t.queries.rows == steps);
    REQUIRE(t.queries.cols == n);
    REQUIRE(t.scores.rows == steps);
    REQUIRE(t.scores.cols == tx);
    REQUIRE(t.contexts.rows == steps);
    REQUIRE(t.contexts.cols == dh);
    REQUIRE(t.annotations.rows == tx);
    REQUIRE(t.annotations.cols == dh);
    REQUIRE(t.probabilities.size() == steps);
    const auto at = [&](const char* name, std::size_t r, std::size_t c) {
        const ParameterTensor& p = model.tensor(name);
        return model.values[p.offset + r * p.cols + c];
    };
    // s_0 = tanh(W_s h_bwd_1 + b_s): the backward half of the first annotation.
    for (std::size_t k = 0; k < n; ++k) {
        double pre = at("decoder_init.b", k, 0);
        for (std::size_t x = 0; x < n; ++x) pre += at("decoder_init.W", k, x) * t.annotations.at(0, n + x);
        CHECK(t.queries.at(0, k) == doctest::Approx(std::tanh(pre)).epsilon(1e-12));
    }
    for (std::size_t i = 0; i < steps; ++i) {
        CAPTURE(i);
        // e_ij = v_a^T tanh(W_a s_{i-1} + U_a h_j), recomputed from the weights; alpha = softmax(e);
        // c_i = sum_j alpha_ij h_j.
        double max_e = -1e300, sum = 0;
        for (std::size_t j = 0; j < tx; ++j) {
            double e = 0;
            for (std::size_t k = 0; k < a; ++k) {
                double pre = 0;
                for (std::size_t x = 0; x < n; ++x) pre += at("attention.W", k, x) * t.queries.at(i, x);
                for (std::size_t x = 0; x < dh; ++x) pre += at("attention.U", k, x) * t.annotations.at(j, x);
                e += at("attention.v", k, 0) * std::tanh(pre);
            }
            CHECK(t.scores.at(i, j) == doctest::Approx(e).epsilon(1e-12));
            max_e = std::max(max_e, e);
        }
        for (std::size_t j = 0; j < tx; ++j) sum += std::exp(t.scores.at(i, j) - max_e);
        for (std::size_t j = 0; j < tx; ++j) {
            CHECK(d.alignment.at(i, j) == doctest::Approx(std::exp(t.scores.at(i, j) - max_e) / sum).epsilon(1e-12));
        }
        for (std::size_t k = 0; k < dh; ++k) {
            double c = 0;
            for (std::size_t j = 0; j < tx; ++j) c += d.alignment.at(i, j) * t.annotations.at(j, k);
            CHECK(t.contexts.at(i, k) == doctest::Approx(c).epsilon(1e-12));
        }
        CHECK(t.probabilities[i] > 0.0);
        CHECK(t.probabilities[i] <= 1.0);
    }
    // The emitted word is the most probable one, so its probability is at least 1 / vocabulary.
    for (double p : t.probabilities) CHECK(p >= 1.0 / double(config.target_vocab));
    // rnn_enc: no scores; every context is the forward encoder's last state.
    const auto enc = init_encoder_decoder<double>(tiny_config(EncoderDecoderKind::rnn_enc), seed);
    const Decoded e = greedy_decode(enc, source, 9);
    CHECK(e.trace.scores.rows == 0);
    REQUIRE(e.trace.contexts.rows == e.target.size());
    for (std::size_t i = 0; i < e.target.size(); ++i)
        for (std::size_t k = 0; k < n; ++k) CHECK(e.trace.contexts.at(i, k) == e.trace.annotations.at(tx - 1, k));
}

TEST_CASE("encoder-decoder: arguments are validated") {
    auto config = tiny_config(EncoderDecoderKind::rnn_search);
    config.hidden_dim = 0;
    CHECK_THROWS_WITH_AS(parameter_layout(config), doctest::Contains("hidden_dim"), Error);
    config = tiny_config(EncoderDecoderKind::rnn_search);
    config.attention_dim = 0;
    CHECK_THROWS_WITH_AS(parameter_layout(config), doctest::Contains("attention_dim"), Error);
    config.kind = EncoderDecoderKind::rnn_enc;  // no alignment model: its width is not read
    CHECK_NOTHROW(parameter_layout(config));
    const auto model = init_encoder_decoder<double>(tiny_config(EncoderDecoderKind::rnn_search), 3);
    CHECK_THROWS_WITH_AS(sentence_loss(model, {}, {2}, nullptr), doctest::Contains("source"), Error);
    CHECK_THROWS_WITH_AS(sentence_loss(model, {3, 7}, {2}, nullptr), doctest::Contains("source"), Error);
    CHECK_THROWS_WITH_AS(sentence_loss(model, {3, 2}, {6}, nullptr), doctest::Contains("target"), Error);
    std::vector<double> short_gradient(3);
    CHECK_THROWS_WITH_AS(sentence_loss(model, {3, 2}, {2}, &short_gradient), doctest::Contains("gradient"), Error);
    CHECK_THROWS_WITH_AS(greedy_decode(model, {3, 2}, 0), doctest::Contains("max_target_tokens"), Error);
}

TEST_CASE("encoder-decoder: translate names every out-of-vocabulary word with the closest known words") {
    const EncoderDecoderConfig config{EncoderDecoderKind::rnn_search, source_vocabulary().size(),
                                      target_vocabulary().size(), 4, 5, 3, 4};
    const auto model = init_encoder_decoder<float>(config, 5);
    const std::string words = std::to_string(source_vocabulary().size() - 3) + " English words";
    CHECK_THROWS_WITH_AS(translate(model, "the agrement on the european area was signed ."),
                         ("sentence: 'agrement' is not in this model's vocabulary of " + words +
                          "; try 'agreement'").c_str(),
                         Error);
    const std::string several = "'agrement', 'zorblax' and 'signd' are not in this model's vocabulary of " + words +
                                "; try 'agreement' for 'agrement'";
    CHECK_THROWS_WITH_AS(translate(model, "the agrement on the zorblax area was signd"), doctest::Contains(several.c_str()),
                         Error);
    CHECK_THROWS_WITH_AS(translate(model, "the treaty, was signed"), doctest::Contains("',' is not in"), Error);
    CHECK_THROWS_WITH_AS(translate(model, "   "), doctest::Contains("sentence: must hold 1 to 100 words"), Error);
    std::string long_sentence;
    for (int k = 0; k < 100; ++k) long_sentence += "the ";
    CHECK_THROWS_WITH_AS(translate(model, long_sentence), doctest::Contains("got 101"), Error);
    CHECK_THROWS_WITH_AS(translate(model, std::string(5000, 'a')), doctest::Contains("at most 4096 characters"), Error);
    const Translation t = translate(model, "the treaty was signed .");
    CHECK(t.source.back() == "<eos>");
    CHECK(t.alignment.rows == t.target.size());
    CHECK(t.alignment.cols == 6);
    // As a reader types it: capitals, the full stop attached or left out.
    CHECK(translate(model, "The Treaty was signed.").source == t.source);
    CHECK(translate(model, "the treaty  was\tsigned").source == t.source);
    const auto wrong = init_encoder_decoder<float>(tiny_config(EncoderDecoderKind::rnn_search), 5);
    CHECK_THROWS_WITH_AS(translate(wrong, "the treaty ."), doctest::Contains("vocabularies"), Error);
}

TEST_CASE("vocabulary: the closest words by edit distance, all at the smallest distance, special tokens never offered") {
    const Vocabulary v({"<pad>", "<bos>", "<eos>", "area", "are", "sign", "signed", "treaty"});
    CHECK(v.closest("signd", 3) == std::vector<std::string>{"sign", "signed"});  // both one edit away
    CHECK(v.closest("signd", 1) == std::vector<std::string>{"sign"});             // at most count, vocabulary order
    CHECK(v.closest("ara", 3) == std::vector<std::string>{"area", "are"});         // an insertion and a substitution
    CHECK(v.closest("treaties", 3) == std::vector<std::string>{"treaty"});
    for (const std::string& w : v.closest("<eos>", 10)) CHECK(w.front() != '<');  // never a special token
    CHECK(v.closest("sign", 0).empty());
}
