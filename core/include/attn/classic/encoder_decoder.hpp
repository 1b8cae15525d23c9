#pragma once
// A small GRU encoder-decoder for translation, in the two variants Bahdanau, Cho & Bengio compare
// (arXiv:1409.0473, Sec. 4.2), with hand-written forward and backward passes:
//
//   rnn_enc     Cho et al. 2014 (arXiv:1406.1078): a forward GRU reads the source; its last state
//               h_Tx is the one fixed context c that the decoder sees at every step.
//   rnn_search  Bahdanau et al. 2015: a bidirectional GRU gives h_j = [h_fwd_j; h_bwd_j]; before
//               each output i the alignment model scores every h_j against the previous decoder
//               state, e_ij = v_a^T tanh(W_a s_{i-1} + U_a h_j) (eq. 6), alpha_i = softmax(e_i)
//               and c_i = sum_j alpha_ij h_j (eq. 5).
//
// Everything else is shared, so the only difference the comparison measures is the context:
//   GRU (Cho et al. 2014, eqs. 5-8)  z = sig(W_z x + U_z h + b_z), r = sig(W_r x + U_r h + b_r),
//                                    h~ = tanh(W x + U (r . h) + b), h' = (1 - z) . h + z . h~
//   decoder start                    s_0 = tanh(W_s h_init + b_s), h_init = h_bwd_1 (rnn_search,
//                                    as in the paper's App. A.2.2) or h_Tx (rnn_enc)
//   decoder step                     s_i = GRU([E y_{i-1}; c_i], s_{i-1})
//   output (deep output, App. A.2.2) t_i = tanh(T [s_i; c_i; E y_{i-1}] + b_t),
//                                    p(y_i) = softmax(W_o t_i + b_o)
// The paper's output layer is a maxout of width 500; ours is a tanh layer of width output_dim: a
// documented simplification that keeps the same inputs and the same deep-output shape.
// The loss is the negative log-likelihood of the reference target under teacher forcing.
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "attn/classic/matrix.hpp"

namespace attn::classic {

enum class EncoderDecoderKind { rnn_enc, rnn_search };

struct EncoderDecoderConfig {
    EncoderDecoderKind kind = EncoderDecoderKind::rnn_search;
    std::size_t source_vocab = 0;   // including the special tokens
    std::size_t target_vocab = 0;
    std::size_t embed_dim = 0;      // m
    std::size_t hidden_dim = 0;     // n, of every GRU (encoder states are 2n wide in rnn_search)
    std::size_t attention_dim = 0;  // n' of the alignment MLP; rnn_search only (ignored otherwise)
    std::size_t output_dim = 0;     // l, the deep-output layer's width
};

// One named parameter tensor of a model: [rows, cols] at values[offset ..). Biases are [rows, 1].
struct ParameterTensor {
    std::string name;
    std::size_t offset = 0;
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::size_t size() const { return rows * cols; }
};

// The model's tensors in storage order. Throws attn::Error unless both vocabularies are in
// [3, 10^5] and every width in [1, 1024] (attention_dim is only checked for rnn_search).
std::vector<ParameterTensor> parameter_layout(const EncoderDecoderConfig& config);

template <typename T>
struct EncoderDecoder {
    EncoderDecoderConfig config;
    std::vector<ParameterTensor> tensors;
    std::vector<T> values;  // every parameter, laid out as `tensors` says

    const ParameterTensor& tensor(const std::string& name) const;  // throws attn::Error if absent
};

// Parameters drawn from `seed`: embeddings N(0, 1), every weight matrix and v_a N(0, 1/cols)
// (recurrent and input matrices alike), biases zero.
template <typename T>
EncoderDecoder<T> init_encoder_decoder(const EncoderDecoderConfig& config, std::uint64_t seed);

// The same parameters in another precision (double for gradient checks, float to train).
template <typename To, typename From>
EncoderDecoder<To> convert_encoder_decoder(const EncoderDecoder<From>& model);

// -sum_i log p(y_i | y_<i, x) of `target` given `source` (both id sequences ending in <eos>, as
// Vocabulary::encode returns them). When `gradient` is not null it must hold values.size()
// entries, and the loss's gradient is added to it. Throws attn::Error naming the argument if a
// sequence is empty or longer than 256, or an id is outside its vocabulary.
template <typename T>
T sentence_loss(const EncoderDecoder<T>& model, const std::vector<int>& source, const std::vector<int>& target,
                std::type_identity_t<std::vector<T>>* gradient);

// What the decoder computed at each output step, for a figure to show (the alignment model's
// inputs and outputs, Bahdanau et al. eqs. 5-6). Row i is output step i.
struct DecoderTrace {
    Matrix queries;      // s_{i-1}, the state the alignment model scores against: [steps, hidden_dim]
    Matrix scores;       // e_ij before the softmax: [steps, source length]; rnn_enc: 0 x 0
    Matrix contexts;     // c_i the decoder read: [steps, state width] (rnn_enc: the fixed h_Tx every row)
    Matrix annotations;  // the encoder states h_j: [source length, state width] (2 x hidden_dim in rnn_search)
    std::vector<double> probabilities;  // p(y_i) of the word emitted at step i
};

struct Decoded {
    std::vector<int> target;  // ids, ending in <eos> unless max_target_tokens was reached
    // alpha_ij: [target.size(), source.size()], row i the weights output i put on each source
    // position (<eos> included). rnn_enc has no alignment: 0 x 0.
    Matrix alignment;
    DecoderTrace trace;
};

// Greedy decoding: the most probable word at each step, until <eos> or max_target_tokens words.
// Throws attn::Error as sentence_loss does, or if max_target_tokens is not in [1, 256].
template <typename T>
Decoded greedy_decode(const EncoderDecoder<T>& model, const std::vector<int>& source, std::size_t max_target_tokens);

// The inference entry point for the corpus's vocabularies: reads an English sentence as a reader
// types it (attn::classic::tokenize_reader_sentence: any case, punctuation attached, the final
// full stop optional), decodes it greedily (up to 2 x source + 10 words) and returns the French
// words and alpha with its row and column labels. Throws attn::Error if the sentence is empty or
// longer than kMaxTranslationWords tokens, and, naming every word that is not in the source
// vocabulary with the closest words that are, if there are such words.
inline constexpr std::size_t kMaxTranslationWords = 100;
struct Translation {
    std::vector<std::string> source;  // the tokens read, then "<eos>": alignment's columns
    std::vector<std::string> target;  // the words produced, then "<eos>" if produced: its rows
    Matrix alignment;                 // [target.size(), source.size()]; 0 x 0 for rnn_enc
    DecoderTrace trace;
};
Translation translate(const EncoderDecoder<float>& model, const std::string& english);

}  // namespace attn::classic
