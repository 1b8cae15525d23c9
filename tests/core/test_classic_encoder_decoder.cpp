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

TEST_CASE("encoder-decoder: translate names an out-of-vocabulary word") {
    const EncoderDecoderConfig config{EncoderDecoderKind::rnn_search, source_vocabulary().size(),
                                      target_vocabulary().size(), 4, 5, 3, 4};
    const auto model = init_encoder_decoder<float>(config, 5);
    CHECK_THROWS_WITH_AS(translate(model, "the agreement on the zorblax area was signed ."),
                         doctest::Contains("'zorblax'"), Error);
    CHECK_THROWS_WITH_AS(translate(model, "   "), doctest::Contains("tokens"), Error);
    const Translation t = translate(model, "the treaty was signed .");
    CHECK(t.source.back() == "<eos>");
    CHECK(t.alignment.rows == t.target.size());
    CHECK(t.alignment.cols == 6);
    const auto wrong = init_encoder_decoder<float>(tiny_config(EncoderDecoderKind::rnn_search), 5);
    CHECK_THROWS_WITH_AS(translate(wrong, "the treaty ."), doctest::Contains("vocabularies"), Error);
}
