#include "attn/classic/encoder_decoder_training.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn::classic {
namespace {

constexpr std::size_t kMaxTokens = 256;

// Adam's moment estimates (Kingma & Ba 2015, Algorithm 1).
struct Adam {
    std::vector<double> m, v;
    std::size_t step = 0;
    static constexpr double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;

    template <typename T>
    void update(std::vector<T>& values, const std::vector<T>& gradient, double scale, double learning_rate) {
        if (m.empty()) m.assign(values.size(), 0.0), v.assign(values.size(), 0.0);
        ++step;
        const double correction1 = 1 - std::pow(beta1, double(step));
        const double correction2 = 1 - std::pow(beta2, double(step));
        for (std::size_t k = 0; k < values.size(); ++k) {
            const double g = double(gradient[k]) * scale;
            m[k] = beta1 * m[k] + (1 - beta1) * g;
            v[k] = beta2 * v[k] + (1 - beta2) * g * g;
            values[k] -= static_cast<T>(learning_rate * (m[k] / correction1) / (std::sqrt(v[k] / correction2) + epsilon));
        }
    }
};

void check_options(const TrainingOptions& o) {
    const auto fail = [](const char* name, const std::string& range, double got) {
        throw Error(std::string("options.") + name + ": must be in " + range + ", got " + std::to_string(got));
    };
    if (o.epochs < 1 || o.epochs > 1000) fail("epochs", "[1, 1000]", double(o.epochs));
    if (o.batch_size < 1 || o.batch_size > 4096) fail("batch_size", "[1, 4096]", double(o.batch_size));
    if (!(o.learning_rate > 0 && o.learning_rate <= 1)) fail("learning_rate", "(0, 1]", o.learning_rate);
    if (!(o.final_learning_rate_fraction > 0 && o.final_learning_rate_fraction <= 1)) {
        fail("final_learning_rate_fraction", "(0, 1]", o.final_learning_rate_fraction);
    }
    if (!(o.clip_norm > 0 && std::isfinite(o.clip_norm))) fail("clip_norm", "(0, inf)", o.clip_norm);
}

std::vector<std::string> without_eos(const std::vector<std::string>& words) {
    std::vector<std::string> out = words;
    if (!out.empty() && out.back() == kEosToken) out.pop_back();
    return out;
}

}  // namespace

std::vector<EncodedPair> encode_pairs(const std::vector<SentencePair>& pairs) {
    std::vector<EncodedPair> out;
    out.reserve(pairs.size());
    for (const SentencePair& p : pairs) {
        out.push_back({source_vocabulary().encode(p.source, kMaxTokens - 1), target_vocabulary().encode(p.target, kMaxTokens - 1)});
    }
    return out;
}

template <typename T>
void train_encoder_decoder(EncoderDecoder<T>& model, const std::vector<EncodedPair>& data,
                           const TrainingOptions& options, const std::function<void(const EpochReport&)>& on_epoch) {
    check_options(options);
    if (data.empty()) throw Error("data: must hold at least one sentence pair");
    Adam adam;
    std::vector<T> gradient(model.values.size());
    std::vector<std::size_t> order(data.size());
    const std::size_t batches_per_epoch = (data.size() + options.batch_size - 1) / options.batch_size;
    const double total_steps = double(options.epochs * batches_per_epoch);
    for (std::size_t epoch = 1; epoch <= options.epochs; ++epoch) {
        // Fisher-Yates with hashed draws: the order depends only on (seed, epoch).
        std::iota(order.begin(), order.end(), std::size_t{0});
        for (std::size_t k = order.size(); k > 1; --k) {
            const auto pick = static_cast<std::size_t>(uniform_from_hash(options.seed + epoch, k) * double(k));
            std::swap(order[k - 1], order[pick]);
        }
        double loss_sum = 0;
        std::size_t token_count = 0, clipped = 0;
        for (std::size_t start = 0; start < order.size(); start += options.batch_size) {
            std::fill(gradient.begin(), gradient.end(), T(0));
            std::size_t batch_tokens = 0;
            for (std::size_t k = start; k < std::min(order.size(), start + options.batch_size); ++k) {
                const EncodedPair& pair = data[order[k]];
                loss_sum += double(sentence_loss(model, pair.source, pair.target, &gradient));
                batch_tokens += pair.target.size();
            }
            token_count += batch_tokens;
            double norm_sq = 0;
            for (T g : gradient) norm_sq += double(g) * double(g);
            const double norm = std::sqrt(norm_sq) / double(batch_tokens);
            double scale = 1.0 / double(batch_tokens);
            if (norm > options.clip_norm) {
                scale *= options.clip_norm / norm;
                ++clipped;
            }
            // Linear decay from learning_rate to learning_rate * final fraction over the run.
            const double progress = double(adam.step) / total_steps;
            const double rate = options.learning_rate * (1 - (1 - options.final_learning_rate_fraction) * progress);
            adam.update(model.values, gradient, scale, rate);
        }
        if (on_epoch) on_epoch({epoch, loss_sum / double(token_count), double(clipped) / double(batches_per_epoch)});
    }
}

TranslationExperimentData translation_experiment_data(std::uint64_t seed, std::size_t train_pairs,
                                                      std::size_t held_out_per_bin) {
    TranslationExperimentData d;
    d.train = generate_corpus(splitmix64(seed), train_pairs, TranslationExperimentData::max_source_tokens);
    d.held_out = generate_held_out_by_length(splitmix64(seed + 1), held_out_per_bin, TranslationExperimentData::bin_width,
                                             TranslationExperimentData::max_source_tokens, d.train);
    return d;
}

BleuScore evaluate_bleu(const EncoderDecoder<float>& model, const std::vector<SentencePair>& pairs) {
    if (pairs.empty()) throw Error("pairs: must hold at least one sentence pair");
    std::vector<std::vector<std::string>> hypotheses, references;
    for (const SentencePair& p : pairs) {
        hypotheses.push_back(without_eos(translate(model, join_tokens(p.source)).target));
        references.push_back(p.target);
    }
    return corpus_bleu(hypotheses, references);
}

template void train_encoder_decoder<float>(EncoderDecoder<float>&, const std::vector<EncodedPair>&, const TrainingOptions&,
                                           const std::function<void(const EpochReport&)>&);
template void train_encoder_decoder<double>(EncoderDecoder<double>&, const std::vector<EncodedPair>&,
                                            const TrainingOptions&, const std::function<void(const EpochReport&)>&);

}  // namespace attn::classic
