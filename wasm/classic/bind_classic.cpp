// JavaScript API of the Part 1 score functions and figures: score matrices with their softmax
// weights and context vectors, FLOP counts, the sqrt(d_k) experiment, sinusoidal positional
// encodings and the constructed pattern heads. Thin: read and check the arguments, call
// attn::classic, return plain objects (matrices as row-major Float64Arrays with their shape).
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/classic/pattern_heads.hpp"
#include "attn/classic/positional_encoding.hpp"
#include "attn/classic/scaling_experiment.hpp"
#include "attn/classic/scoring.hpp"
#include "attn/classic/softmax.hpp"
#include "convert.hpp"
#include "limits.hpp"
#include "matrix_js.hpp"

namespace attn::wasm {
namespace {

using namespace attn::classic;

constexpr std::size_t kMaxMatrixSide = 4096;                   // rows or columns of one input matrix
constexpr std::size_t kMaxScoreWork = std::size_t{1} << 24;      // multiply-adds of one scoreAttention call
constexpr std::size_t kMaxScalingNormals = std::size_t{1} << 23;  // random numbers one scalingExperiment draws
constexpr std::size_t kMaxScalingAdditive = std::size_t{1} << 26;  // its additive-score multiply-adds

// obj[key] as an array (or typed array) of at most kMaxTensorElements numbers.
std::vector<double> numbers_arg(const val& obj, const char* key) {
    return number_array_arg<double>(obj[key], key, 0, kMaxTensorElements);
}

// obj[key] / obj[shape_key] = [rows, cols] as a Matrix; the core checks finiteness.
Matrix matrix_arg(const val& obj, const char* key, const char* shape_key) {
    if (obj.isUndefined() || obj.isNull()) throw Error(std::string(key) + ": missing (no arguments object given)");
    const val shape = obj[shape_key];
    if (!shape.isArray() || shape["length"].as<int>() != 2) {
        throw Error(std::string(shape_key) + ": must be an array [rows, cols] of 2 integers");
    }
    const std::string rows_key = std::string(shape_key) + "[0]", cols_key = std::string(shape_key) + "[1]";
    val dims = val::object();
    dims.set(rows_key, shape[0]);
    dims.set(cols_key, shape[1]);
    const std::size_t rows = integer_arg(dims, rows_key.c_str(), 1, kMaxMatrixSide, 0);
    const std::size_t cols = integer_arg(dims, cols_key.c_str(), 1, kMaxMatrixSide, 0);
    if (rows * cols > kMaxTensorElements) {
        throw Error(std::string(shape_key) + ": " + std::to_string(rows * cols) + " elements exceed the in-browser limit of " +
                    std::to_string(kMaxTensorElements));
    }
    return Matrix(rows, cols, numbers_arg(obj, key), key);
}

// obj[key] as a list of integers in [lo, hi], at most max_length of them.
std::vector<std::size_t> integers_arg(const val& obj, const char* key, std::size_t lo, std::size_t hi,
                                      std::size_t max_length) {
    const val list = obj[key];
    if (!list.isArray()) throw Error(std::string(key) + ": must be an array of integers");
    const std::size_t n = list["length"].as<std::size_t>();
    if (n > max_length) {
        throw Error(std::string(key) + ": may hold at most " + std::to_string(max_length) + " entries, got " +
                    std::to_string(n));
    }
    std::vector<std::size_t> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        val holder = val::object();
        holder.set(key, list[i]);
        out[i] = integer_arg(holder, key, lo, hi, 0);
    }
    return out;
}

ScoreKind score_kind_arg(const val& in) {
    const std::string k = string_arg(in, "kind", nullptr);
    if (k == "additive") return ScoreKind::additive;
    if (k == "dot") return ScoreKind::dot;
    if (k == "general") return ScoreKind::general;
    if (k == "scaled_dot") return ScoreKind::scaled_dot;
    throw Error("kind: must be 'additive', 'dot', 'general' or 'scaled_dot'");
}

val score_attention_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("kind: missing (no arguments object given)");
        const ScoreKind kind = score_kind_arg(in);
        const Matrix queries = matrix_arg(in, "queries", "queryShape");
        const Matrix keys = matrix_arg(in, "keys", "keyShape");
        Matrix scores;
        if (kind == ScoreKind::additive) {
            AdditiveParams p{matrix_arg(in, "w", "wShape"), matrix_arg(in, "u", "uShape"), numbers_arg(in, "v")};
            const double work = static_cast<double>(p.v.size()) *
                                (double(queries.rows) * double(keys.rows) + double(queries.data.size() + keys.data.size()));
            if (work > static_cast<double>(kMaxScoreWork)) {
                throw Error("keys: additive scoring of this size needs " + std::to_string(work) +
                            " multiply-adds, above the in-browser limit of " + std::to_string(kMaxScoreWork));
            }
            scores = additive_scores(queries, keys, p);
        } else {
            const double work = double(queries.rows) * double(keys.rows) * double(keys.cols);
            if (work > static_cast<double>(kMaxScoreWork)) {
                throw Error("keys: scoring " + std::to_string(queries.rows) + " queries against " +
                            std::to_string(keys.rows) + " keys exceeds the in-browser limit of " +
                            std::to_string(kMaxScoreWork) + " multiply-adds");
            }
            if (kind == ScoreKind::general) scores = general_scores(queries, keys, matrix_arg(in, "w", "wShape"));
            else if (kind == ScoreKind::dot) scores = dot_scores(queries, keys);
            else scores = scaled_dot_scores(queries, keys);
        }
        const Matrix weights = softmax_rows(scores);
        std::vector<double> entropies(weights.rows);
        for (std::size_t i = 0; i < weights.rows; ++i) {
            entropies[i] = entropy_nats(std::span<const double>(weights.row(i), weights.cols));
        }
        val out = val::object();
        out.set("scores", typed_array(scores.data));
        out.set("weights", typed_array(weights.data));
        out.set("shape", pair_to_js(scores.rows, scores.cols));
        out.set("entropies", typed_array(entropies));
        if (!in["values"].isUndefined()) {
            const Matrix context = weighted_sum(weights, matrix_arg(in, "values", "valueShape"));
            out.set("context", matrix_to_js(context));
        }
        return out;
    });
}

val score_flops_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("kind: missing (no arguments object given)");
        const ScoreKind kind = score_kind_arg(in);
        ScoreDims dims;
        dims.query_dim = integer_arg(in, "queryDim", 1, std::size_t{1} << 20, 0);
        dims.key_dim = integer_arg(in, "keyDim", 1, std::size_t{1} << 20, dims.query_dim);
        dims.attention_dim = integer_arg(in, "attentionDim", 1, std::size_t{1} << 20, dims.query_dim);
        const ScoreFlops f = score_flops(kind, dims, bool_arg(in, "reuse", true));
        const std::size_t nq = integer_arg(in, "numQueries", 1, std::size_t{1} << 20, 1);
        const std::size_t nk = integer_arg(in, "numKeys", 1, std::size_t{1} << 20, 1);
        val out = val::object();
        out.set("perPair", static_cast<double>(f.per_pair));
        out.set("perQuery", static_cast<double>(f.per_query));
        out.set("perKey", static_cast<double>(f.per_key));
        out.set("total", static_cast<double>(f.total(nq, nk)));
        return out;
    });
}

val stats_to_js(const ScoreStats& s) {
    val out = val::object();
    out.set("variance", s.variance);
    out.set("entropy", s.entropy);
    out.set("entropyNormalized", s.entropy_normalized);
    out.set("maxWeight", s.max_weight);
    out.set("jacobianNorm", s.jacobian_norm);
    out.set("firstScores", typed_array(s.first_scores));
    out.set("firstWeights", typed_array(s.first_weights));
    return out;
}

val scaling_experiment_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("dims: missing (no arguments object given)");
        ScalingExperimentOptions o;
        if (!in["dims"].isUndefined()) o.dims = integers_arg(in, "dims", 1, 4096, 64);
        o.num_keys = integer_arg(in, "numKeys", 2, 4096, o.num_keys);
        o.trials = integer_arg(in, "trials", 1, 1000000, o.trials);
        o.seed = integer_arg(in, "seed", 0, kMaxSeed, 0);
        o.include_additive = bool_arg(in, "includeAdditive", false);
        // One draw of (numKeys + 1) x max(dims) normals per trial serves every d.
        double max_dim = 0, additive = 0;
        for (std::size_t d : o.dims) {
            max_dim = std::max(max_dim, double(d));
            if (o.include_additive) additive += double(o.trials) * double(o.num_keys + 1) * double(d) * double(d);
        }
        const double normals = double(o.trials) * double(o.num_keys + 1) * max_dim;
        if (normals > static_cast<double>(kMaxScalingNormals)) {
            throw Error("trials: trials x (numKeys + 1) x max(dims) = " + std::to_string(normals) +
                        " random draws exceed the in-browser limit of " + std::to_string(kMaxScalingNormals));
        }
        if (additive > static_cast<double>(kMaxScalingAdditive)) {
            throw Error("trials: the additive scores need trials x (numKeys + 1) x sum(d^2) = " + std::to_string(additive) +
                        " multiply-adds, above the in-browser limit of " + std::to_string(kMaxScalingAdditive));
        }
        val rows = val::array();
        for (const ScalingRow& r : scaling_experiment(o)) {
            val row = val::object();
            row.set("dim", r.dim);
            row.set("raw", stats_to_js(r.raw));
            row.set("scaled", stats_to_js(r.scaled));
            if (o.include_additive) row.set("additive", stats_to_js(r.additive));
            rows.call<void>("push", row);
        }
        return rows;
    });
}

val positional_encoding_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("numPositions: missing (no arguments object given)");
        const std::size_t positions = integer_arg(in, "numPositions", 1, 65536, 0);
        const std::size_t d_model = integer_arg(in, "dModel", 2, 4096, 0);
        if (positions * d_model > kMaxTensorElements) {
            throw Error("numPositions: numPositions x dModel = " + std::to_string(positions * d_model) +
                        " exceeds the in-browser limit of " + std::to_string(kMaxTensorElements));
        }
        return matrix_to_js(sinusoidal_positional_encoding(positions, d_model, number_arg(in, "base", 1, 1e12, 10000.0)));
    });
}

std::vector<std::size_t> pattern_targets_arg(const val& in) {
    const std::string pattern = string_arg(in, "pattern", nullptr);
    const std::size_t max_index = 1023;
    if (pattern == "head_word") return head_word_targets(integers_arg(in, "heads", 0, max_index, 1024));
    const std::size_t n = integer_arg(in, "numTokens", 2, 1024, 0);
    if (pattern == "previous_token") return previous_token_targets(n);
    if (pattern == "broadcast") return broadcast_targets(n, integer_arg(in, "separator", 0, max_index, n - 1));
    if (pattern == "coreference") {
        const val links = in["links"];
        if (!links.isArray()) throw Error("links: must be an array of [mention, antecedent] pairs");
        std::vector<std::pair<std::size_t, std::size_t>> pairs;
        const std::size_t count = links["length"].as<std::size_t>();
        if (count > 1024) throw Error("links: may hold at most 1024 pairs, got " + std::to_string(count));
        for (std::size_t i = 0; i < count; ++i) {
            val holder = val::object();
            holder.set("links", links[i]);
            const std::vector<std::size_t> pair = integers_arg(holder, "links", 0, max_index, 2);
            if (pair.size() != 2) throw Error("links: every entry must be a pair [mention, antecedent]");
            pairs.emplace_back(pair[0], pair[1]);
        }
        std::optional<std::size_t> fallback;
        if (!in["fallback"].isUndefined()) fallback = integer_arg(in, "fallback", 0, max_index, 0);
        return coreference_targets(n, pairs, fallback);
    }
    throw Error("pattern: must be 'previous_token', 'head_word', 'coreference' or 'broadcast'");
}

val pattern_head_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("pattern: missing (no arguments object given)");
        const std::vector<std::size_t> targets = pattern_targets_arg(in);
        PatternHeadOptions o;
        if (!in["features"].isUndefined()) {
            const std::string f = string_arg(in, "features", nullptr);
            if (f == "one_hot") o.features = PatternFeatures::one_hot;
            else if (f == "sinusoidal") o.features = PatternFeatures::sinusoidal;
            else throw Error("features: must be 'one_hot' or 'sinusoidal'");
        }
        o.feature_dim = integer_arg(in, "featureDim", 2, 1024, o.feature_dim);
        o.min_weight = number_arg(in, "minWeight", 0, 1, o.min_weight);
        const PatternHead head = pattern_head(targets, o);
        val out = val::object();
        out.set("targets", typed_array(std::vector<double>(head.targets.begin(), head.targets.end())));
        out.set("q", matrix_to_js(head.q));
        out.set("k", matrix_to_js(head.k));
        out.set("weights", matrix_to_js(head.weights));
        out.set("gain", head.gain);
        out.set("margin", head.margin);
        return out;
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(classic) {
    using namespace attn::wasm;
    emscripten::function("scoreAttention", &score_attention_js);
    emscripten::function("scoreFlops", &score_flops_js);
    emscripten::function("scalingExperiment", &scaling_experiment_js);
    emscripten::function("positionalEncoding", &positional_encoding_js);
    emscripten::function("patternHead", &pattern_head_js);
}
