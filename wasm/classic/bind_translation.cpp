// JavaScript API of the Part 1 translation models (attn::classic::translate and the int8 weight
// file) for the alignment figure: the page fetches a committed weight file, these functions read
// its bytes, and a translation comes back with everything the alignment model computed at each
// decoder step (the query s_{i-1}, the scores e_ij, the weights alpha_ij, the context c_i) so the
// figure draws the model's own numbers. Stateless: each call reads the bytes again (about 50 KB,
// well under a millisecond), so no model object has to be kept alive or deleted by the page.
#include <emscripten/bind.h>

#include <cstdint>
#include <string>
#include <vector>

#include "attn/classic/encoder_decoder.hpp"
#include "attn/classic/encoder_decoder_file.hpp"
#include "attn/classic/translation_corpus.hpp"
#include "convert.hpp"
#include "matrix_js.hpp"

namespace attn::wasm {
namespace {

using namespace attn::classic;

// A weight file of the largest model a page should load (the committed ones are about 50 KB).
constexpr std::size_t kMaxModelBytes = std::size_t{4} << 20;
// Characters of a sentence; the core refuses more than 4096 bytes too, this refuses before copying.
constexpr double kMaxSentenceChars = 4096;

LoadedEncoderDecoder model_arg(const val& in) {
    if (in.isUndefined() || in.isNull()) throw Error("model: missing (no arguments object given)");
    return load_encoder_decoder_int8(bytes_arg(in["model"], "model", kMaxModelBytes));
}

val words_to_js(const std::vector<std::string>& words, std::size_t first) {
    val out = val::array();
    for (std::size_t k = first; k < words.size(); ++k) out.call<void>("push", words[k]);
    return out;
}

const char* kind_name(EncoderDecoderKind kind) { return kind == EncoderDecoderKind::rnn_search ? "rnn_search" : "rnn_enc"; }

val translation_vocabulary_js() {
    return guarded([&] {
        constexpr std::size_t first_word = kEosId + 1;  // the special tokens are not words a reader types
        val out = val::object();
        out.set("source", words_to_js(source_vocabulary().words(), first_word));
        out.set("target", words_to_js(target_vocabulary().words(), first_word));
        out.set("maxWords", kMaxTranslationWords);
        return out;
    });
}

val translation_model_info_js(const val& in) {
    return guarded([&] {
        const LoadedEncoderDecoder loaded = model_arg(in);
        const EncoderDecoderConfig& c = loaded.model.config;
        val out = val::object();
        out.set("kind", std::string(kind_name(c.kind)));
        out.set("sourceVocab", c.source_vocab);
        out.set("targetVocab", c.target_vocab);
        out.set("embedDim", c.embed_dim);
        out.set("hiddenDim", c.hidden_dim);
        out.set("attentionDim", c.kind == EncoderDecoderKind::rnn_search ? c.attention_dim : 0);
        out.set("outputDim", c.output_dim);
        out.set("parameters", loaded.model.values.size());
        out.set("provenance", loaded.provenance);
        return out;
    });
}

val translate_sentence_js(const val& in) {
    return guarded([&] {
        const LoadedEncoderDecoder loaded = model_arg(in);
        const val sentence = in["sentence"];
        if (!sentence.isString()) throw Error("sentence: must be a string");
        if (sentence["length"].as<double>() > kMaxSentenceChars) {
            throw Error("sentence: must be at most 4096 characters, got " +
                        std::to_string(static_cast<std::size_t>(sentence["length"].as<double>())));
        }
        const Translation t = translate(loaded.model, sentence.as<std::string>());
        val out = val::object();
        out.set("kind", std::string(kind_name(loaded.model.config.kind)));
        out.set("source", words_to_js(t.source, 0));
        out.set("target", words_to_js(t.target, 0));
        out.set("alignment", matrix_to_js(t.alignment));
        out.set("scores", matrix_to_js(t.trace.scores));
        out.set("queries", matrix_to_js(t.trace.queries));
        out.set("contexts", matrix_to_js(t.trace.contexts));
        out.set("annotations", matrix_to_js(t.trace.annotations));
        out.set("probabilities", typed_array(t.trace.probabilities));
        return out;
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(classic_translation) {
    emscripten::function("translationVocabulary", &attn::wasm::translation_vocabulary_js);
    emscripten::function("translationModelInfo", &attn::wasm::translation_model_info_js);
    emscripten::function("translateSentence", &attn::wasm::translate_sentence_js);
}
