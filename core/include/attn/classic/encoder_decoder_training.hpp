#pragma once
// Training and evaluation of the Part 1 encoder-decoders (attn/classic/encoder_decoder.hpp) on the
// synthetic corpus (attn/classic/translation_corpus.hpp). Both variants are trained by this one
// loop, with the same data order, batches and optimiser, so their comparison measures the model:
//   minibatches of whole sentence pairs in a seeded shuffled order, the loss per target token,
//   the gradient's global norm clipped (Pascanu, Mikolov & Bengio 2013; Bahdanau et al. clip to 1,
//   App. B.2), and Adam (Kingma & Ba 2015, Algorithm 1, with bias correction) in place of the
//   paper's Adadelta.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "attn/classic/bleu.hpp"
#include "attn/classic/encoder_decoder.hpp"
#include "attn/classic/translation_corpus.hpp"

namespace attn::classic {

struct EncodedPair {
    std::vector<int> source;  // ids ending in <eos>
    std::vector<int> target;
};

// The pairs as ids of the corpus's vocabularies; throws attn::Error naming an unknown word.
std::vector<EncodedPair> encode_pairs(const std::vector<SentencePair>& pairs);

struct TrainingOptions {
    std::size_t epochs = 10;
    std::size_t batch_size = 32;
    double learning_rate = 2e-3;  // Adam's alpha, decayed linearly to learning_rate * final_learning_rate_fraction
    double final_learning_rate_fraction = 0.1;
    double clip_norm = 1.0;        // of the whole gradient of one batch's mean token loss
    std::uint64_t seed = 1;        // of the shuffles
};

struct EpochReport {
    std::size_t epoch = 0;            // 1-based
    double mean_token_loss = 0;       // over the epoch, before each batch's update
    double clipped_batch_fraction = 0;  // of batches whose gradient norm exceeded clip_norm
};

// Trains `model` in place. Deterministic: the same model, data and options give the same weights.
// Throws attn::Error unless data is non-empty, epochs in [1, 1000], batch_size in [1, 4096],
// learning_rate in (0, 1], final_learning_rate_fraction in (0, 1] and clip_norm > 0.
template <typename T>
void train_encoder_decoder(EncoderDecoder<T>& model, const std::vector<EncodedPair>& data,
                           const TrainingOptions& options,
                           const std::function<void(const EpochReport&)>& on_epoch = {});

// The data of `make train`'s experiment (native/tools/train_translation.cpp), a pure function of
// its arguments, so a test can re-score the committed weights on exactly the sentences the tool
// scored: `train_pairs` distinct pairs of at most 50 source tokens from splitmix64(seed), and
// held-out pairs, `held_out_per_bin` in each 10-token bin 1-10 ... 41-50, from splitmix64(seed + 1),
// none of them in the training set (nor the canonical pair). Throws attn::Error as
// generate_corpus and generate_held_out_by_length do.
struct TranslationExperimentData {
    static constexpr std::size_t max_source_tokens = 50;  // as the paper's RNNsearch-50
    static constexpr std::size_t bin_width = 10;
    std::vector<SentencePair> train;
    std::vector<std::vector<SentencePair>> held_out;  // by source-length bin
};
TranslationExperimentData translation_experiment_data(std::uint64_t seed, std::size_t train_pairs,
                                                      std::size_t held_out_per_bin);

// Greedy translations of every pair's source (without the final <eos>), scored with BLEU-4
// against the pair's target; throws attn::Error if `pairs` is empty or holds an unknown word.
BleuScore evaluate_bleu(const EncoderDecoder<float>& model, const std::vector<SentencePair>& pairs);

}  // namespace attn::classic
