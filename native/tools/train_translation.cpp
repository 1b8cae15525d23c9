// Trains the two translation models of Part 1 on the synthetic English -> French corpus, RNNenc
// and RNNsearch (attn/classic/encoder_decoder.hpp), one thread each, with the same data, batches,
// optimiser and seed, and writes:
//   static/models/bahdanau-rnnsearch.bin, static/models/bahdanau-rnnenc.bin
//       int8 weights with their provenance (attn/classic/encoder_decoder_file.hpp)
//   site/data/generated/bahdanau_training.json
//       BLEU-4 by source length on held-out sentences (the recreation of Bahdanau et al.'s Fig. 2),
//       the training curves and times, and the canonical sentence's translation and alignment
// Every number is measured on the weights as loaded back from the int8 file.
//
//   train_translation --commit C [--seed S] [--train-sentences N] [--epochs E] [--out DIR]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "attn/classic/encoder_decoder_file.hpp"
#include "attn/classic/encoder_decoder_training.hpp"
#include "attn/classic/translation_corpus.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"

namespace {

using namespace attn::classic;

struct Options {
    std::uint64_t seed = 2015;
    std::size_t train_sentences = 20000;
    std::size_t epochs = 6;
    std::string commit;
    std::string out = ".";
};

constexpr std::size_t kMaxTrainLength = TranslationExperimentData::max_source_tokens;
constexpr std::size_t kBinWidth = TranslationExperimentData::bin_width;
constexpr std::size_t kHeldOutPerBin = 200;

// Widths chosen so that the int8 RNNsearch file stays under the figure's 60 KB gzipped.
EncoderDecoderConfig config(EncoderDecoderKind kind) {
    return {kind, source_vocabulary().size(), target_vocabulary().size(), 24, 32, 32, 32};
}

TrainingOptions training_options(const Options& o) {
    TrainingOptions t;
    t.epochs = o.epochs;
    t.batch_size = 32;
    t.learning_rate = 3e-3;
    t.final_learning_rate_fraction = 0.1;
    t.clip_norm = 1.0;
    t.seed = attn::splitmix64(o.seed + 3);
    return t;
}

struct Trained {
    const char* name;
    EncoderDecoderKind kind;
    EncoderDecoder<float> model;  // as loaded back from its int8 file
    std::vector<std::uint8_t> file;
    std::vector<EpochReport> epochs;
    double seconds = 0;
};

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\') out += '\\';
        out += ch;
    }
    return out + "\"";
}

std::string json_words(const std::vector<std::string>& words) {
    std::string out = "[";
    for (std::size_t k = 0; k < words.size(); ++k) out += (k ? ", " : "") + json_string(words[k]);
    return out + "]";
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f << bytes;
    if (!f) throw std::runtime_error("cannot write " + path);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int k = 1; k + 1 < argc; k += 2) {
        const std::string flag = argv[k], value = argv[k + 1];
        if (flag == "--seed") o.seed = std::stoull(value);
        else if (flag == "--train-sentences") o.train_sentences = std::stoul(value);
        else if (flag == "--epochs") o.epochs = std::stoul(value);
        else if (flag == "--commit") o.commit = value;
        else if (flag == "--out") o.out = value;
        else throw attn::Error("unknown flag " + flag);
    }
    if (argc % 2 == 0) throw attn::Error("every flag needs a value");
    if (o.commit.empty()) throw attn::Error("--commit: the commit the weights are trained from is required");
    return o;
}

}  // namespace

int main(int argc, char** argv) try {
    const Options o = parse(argc, argv);
    std::string command = "train_translation";
    for (int k = 1; k < argc; ++k) command += std::string(" ") + argv[k];

    const TranslationExperimentData experiment = translation_experiment_data(o.seed, o.train_sentences, kHeldOutPerBin);
    const std::vector<SentencePair>& train = experiment.train;
    const auto& held_out = experiment.held_out;
    const std::vector<EncodedPair> data = encode_pairs(train);
    std::size_t train_tokens = 0;
    for (const SentencePair& p : train) train_tokens += p.source.size();
    std::printf("corpus: %zu training pairs (%zu source tokens, at most %zu per sentence), %zu held out per %zu-token bin; "
                "vocabularies %zu English, %zu French\n",
                train.size(), train_tokens, kMaxTrainLength, kHeldOutPerBin, kBinWidth, source_vocabulary().size(),
                target_vocabulary().size());

    const std::string provenance = "command: " + command + "\nseed: " + std::to_string(o.seed) + "\ncommit: " + o.commit;
    std::vector<Trained> runs{{"RNNsearch", EncoderDecoderKind::rnn_search, {}, {}, {}, 0},
                              {"RNNenc", EncoderDecoderKind::rnn_enc, {}, {}, {}, 0}};
    std::vector<std::thread> threads;
    for (Trained& run : runs) {
        threads.emplace_back([&run, &data, &o, &provenance] {
            const auto start = std::chrono::steady_clock::now();
            EncoderDecoder<float> model = init_encoder_decoder<float>(config(run.kind), attn::splitmix64(o.seed + 2));
            train_encoder_decoder(model, data, training_options(o), [&](const EpochReport& r) {
                run.epochs.push_back(r);
                std::printf("%-9s epoch %zu/%zu  loss per token %.4f  clipped batches %.0f%%  %.0f s\n", run.name,
                            r.epoch, o.epochs, r.mean_token_loss, 100 * r.clipped_batch_fraction,
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
                std::fflush(stdout);
            });
            run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            run.file = save_encoder_decoder_int8(model, provenance);
            run.model = load_encoder_decoder_int8(run.file).model;
        });
    }
    for (std::thread& t : threads) t.join();

    std::ostringstream json;
    json << "{\n  \"provenance\": {\"command\": " << json_string(command) << ", \"seed\": " << o.seed
         << ", \"commit\": " << json_string(o.commit) << "},\n";
    json << "  \"corpus\": {\"train_pairs\": " << train.size() << ", \"max_source_tokens\": " << kMaxTrainLength
         << ", \"held_out_per_bin\": " << kHeldOutPerBin << ", \"source_vocab\": " << source_vocabulary().size()
         << ", \"target_vocab\": " << target_vocabulary().size() << "},\n";
    json << "  \"models\": [\n";
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const Trained& run = runs[r];
        const EncoderDecoderConfig& c = run.model.config;
        json << "    {\"name\": " << json_string(run.name) << ", \"parameters\": " << run.model.values.size()
             << ", \"embed_dim\": " << c.embed_dim << ", \"hidden_dim\": " << c.hidden_dim
             << ", \"attention_dim\": " << (run.kind == EncoderDecoderKind::rnn_search ? c.attention_dim : 0)
             << ", \"output_dim\": " << c.output_dim << ", \"file_bytes\": " << run.file.size()
             << ", \"training_seconds\": " << fixed(run.seconds, 1) << ", \"loss_per_epoch\": [";
        for (std::size_t e = 0; e < run.epochs.size(); ++e) json << (e ? ", " : "") << fixed(run.epochs[e].mean_token_loss, 4);
        json << "]}" << (r + 1 < runs.size() ? "," : "") << "\n";
    }
    json << "  ],\n  \"bleu_by_source_length\": [\n";
    std::printf("\nBLEU-4 (x100) on held-out sentences by source length (tokens, '.' included), %zu per bin\n", kHeldOutPerBin);
    std::printf("| source tokens | RNNenc | RNNsearch |\n|---|---|---|\n");
    std::vector<SentencePair> all;
    for (std::size_t b = 0; b < held_out.size(); ++b) {
        const std::size_t lo = 1 + b * kBinWidth, hi = std::min(kMaxTrainLength, lo + kBinWidth - 1);
        const BleuScore enc = evaluate_bleu(runs[1].model, held_out[b]);
        const BleuScore search = evaluate_bleu(runs[0].model, held_out[b]);
        all.insert(all.end(), held_out[b].begin(), held_out[b].end());
        std::printf("| %zu-%zu | %.2f | %.2f |\n", lo, hi, 100 * enc.bleu, 100 * search.bleu);
        json << "    {\"min_tokens\": " << lo << ", \"max_tokens\": " << hi << ", \"sentences\": " << held_out[b].size()
             << ", \"RNNenc\": " << fixed(100 * enc.bleu, 2) << ", \"RNNsearch\": " << fixed(100 * search.bleu, 2) << "}"
             << (b + 1 < held_out.size() ? "," : "") << "\n";
    }
    const BleuScore enc_all = evaluate_bleu(runs[1].model, all), search_all = evaluate_bleu(runs[0].model, all);
    std::printf("| all | %.2f | %.2f |\n", 100 * enc_all.bleu, 100 * search_all.bleu);
    json << "  ],\n  \"bleu_all\": {\"RNNenc\": " << fixed(100 * enc_all.bleu, 2) << ", \"RNNsearch\": "
         << fixed(100 * search_all.bleu, 2) << "},\n";

    const SentencePair canonical = canonical_pair();
    const Translation search_t = translate(runs[0].model, join_tokens(canonical.source));
    const Translation enc_t = translate(runs[1].model, join_tokens(canonical.source));
    std::printf("\ncanonical: %s\n  reference  %s\n  RNNsearch  %s\n  RNNenc     %s\n", join_tokens(canonical.source).c_str(),
                join_tokens(canonical.target).c_str(), join_tokens(search_t.target).c_str(),
                join_tokens(enc_t.target).c_str());
    std::printf("  RNNsearch's strongest source word per output word:\n");
    json << "  \"canonical\": {\"source\": " << json_words(search_t.source) << ", \"reference\": "
         << json_words(canonical.target) << ", \"RNNsearch\": " << json_words(search_t.target)
         << ", \"RNNenc\": " << json_words(enc_t.target) << ", \"alignment\": [";
    for (std::size_t i = 0; i < search_t.alignment.rows; ++i) {
        std::size_t best = 0;
        json << (i ? ", " : "") << "[";
        for (std::size_t j = 0; j < search_t.alignment.cols; ++j) {
            if (search_t.alignment.at(i, j) > search_t.alignment.at(i, best)) best = j;
            json << (j ? ", " : "") << fixed(search_t.alignment.at(i, j), 4);
        }
        json << "]";
        std::printf("    %-12s <- %-10s %.2f\n", search_t.target[i].c_str(), search_t.source[best].c_str(),
                    search_t.alignment.at(i, best));
    }
    json << "]}\n}\n";

    write_file(o.out + "/static/models/bahdanau-rnnsearch.bin", std::string(runs[0].file.begin(), runs[0].file.end()));
    write_file(o.out + "/static/models/bahdanau-rnnenc.bin", std::string(runs[1].file.begin(), runs[1].file.end()));
    write_file(o.out + "/site/data/generated/bahdanau_training.json", json.str());
    std::printf("\ntraining time: RNNsearch %.0f s, RNNenc %.0f s (in parallel); files %zu and %zu bytes\n", runs[0].seconds,
                runs[1].seconds, runs[0].file.size(), runs[1].file.size());
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "train_translation: %s\n", e.what());
    return 1;
}
