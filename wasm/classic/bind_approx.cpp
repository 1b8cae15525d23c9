// JavaScript API of the approximate-attention methods of Part 2 (Reformer LSH, Linformer,
// Performer, Linear Transformer, Synthesizer, Routing Transformer) and the retrieval-style inputs
// of the top-1 check. Each method runs for real on the page's small inputs and returns its output
// with its error against dense attention and its counted cost; LSH also returns the bucket ids and
// 2-D points of the bucketing figure (with the hash's sectors for d = 2 and, on request, the
// rounds in which each pair was scored), routing the cluster of every query and key. Thin: read and
// check the arguments, call attn::approx, return plain objects.
#include <emscripten/bind.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "attention_args.hpp"
#include "attn/approx/linear_attention.hpp"
#include "attn/approx/linformer.hpp"
#include "attn/approx/lsh_attention.hpp"
#include "attn/approx/performer.hpp"
#include "attn/approx/retrieval_inputs.hpp"
#include "attn/approx/routing_attention.hpp"
#include "attn/approx/synthesizer.hpp"
#include "approx_result_js.hpp"
#include "convert.hpp"
#include "limits.hpp"

namespace attn::wasm {
namespace {

using namespace attn::approx;

// Work caps beyond the Q/K/V score budget: features and projections a page may ask for, and the
// multiply-adds they add (each method also computes the dense reference it is measured against).
constexpr std::size_t kMaxApproxWidth = 4096;
constexpr std::size_t kMaxApproxWork = std::size_t{1} << 27;

struct DoubleQkv {
    Tensor4<double> q, k, v;
};

DoubleQkv approx_qkv_arg(const val& in) {
    if (in.isUndefined() || in.isNull()) throw Error("q: missing (no arguments object given)");
    const Qkv t = qkv_arg(in, kMaxHeavyAttentionWork);
    require_score_budget(t);
    return {tensor_cast<double>(t.q), tensor_cast<double>(t.k), tensor_cast<double>(t.v)};
}

// `work` (a method's own multiply-adds, in double so that it cannot wrap) at most kMaxApproxWork.
void require_approx_work(double work, const char* args, const char* formula) {
    if (work > static_cast<double>(kMaxApproxWork)) {
        throw Error(std::string(args) + ": " + formula + " = " + std::to_string(static_cast<long long>(work)) +
                    " exceeds the in-browser limit of " + std::to_string(kMaxApproxWork) + " (about a second of work)");
    }
}

// B * H of the problem, and L, S, D + Dv, as doubles for the work formulas.
struct ApproxSizes {
    double heads, L, S, D, widths;
    explicit ApproxSizes(const DoubleQkv& t)
        : heads(double(t.q.shape.batch) * double(t.q.shape.heads)), L(double(t.q.shape.seq)), S(double(t.k.shape.seq)),
          D(double(t.q.shape.dim)), widths(double(t.q.shape.dim) + double(t.v.shape.dim)) {}
};

std::optional<double> scale_arg(const val& in) {
    if (in["scale"].isUndefined()) return std::nullopt;
    return number_arg(in, "scale", -1e6, 1e6, 0.0);
}

std::uint64_t seed_arg(const val& in) { return integer_arg(in, "seed", 0, kMaxSeed, 0); }

val lsh_attention_js(const val& in) {
    return guarded([&] {
        const DoubleQkv t = approx_qkv_arg(in);
        LshOptions o;
        o.num_buckets = integer_arg(in, "numBuckets", 1, 4096, o.num_buckets);
        o.num_rounds = integer_arg(in, "numRounds", 1, 64, o.num_rounds);
        o.chunk_length = integer_arg(in, "chunkLength", 1, kMaxTensorElements, o.chunk_length);
        o.seed = seed_arg(in);
        o.scale = scale_arg(in);
        o.record_attended = bool_arg(in, "recordAttended", false);
        const ApproxSizes n(t);
        require_approx_work(double(o.num_rounds) * n.heads * (n.L * n.S * n.widths + (n.L + n.S) * n.D * double(o.num_buckets)),
                            "numRounds/numBuckets", "numRounds * B * H * (L * S * (D + Dv) + (L + S) * D * numBuckets)");
        const LshAttentionResult r = lsh_attention(t.q, t.k, t.v, o);
        val out = approx_result_js(r.approx);
        out.set("chunkLength", r.chunk_length);
        out.set("buckets", typed_array(r.buckets));
        out.set("points2d", to_float32_array(r.points_2d.data));
        out.set("rotations", to_float32_array(r.rotations));
        if (o.record_attended) out.set("attendedRounds", typed_array(r.attended_rounds));
        return out;
    });
}

val lsh_sectors_2d_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("numBuckets: missing (no arguments object given)");
        LshOptions o;
        o.num_buckets = integer_arg(in, "numBuckets", 1, 4096, o.num_buckets);
        o.num_rounds = integer_arg(in, "numRounds", 1, 64, o.num_rounds);
        o.seed = seed_arg(in);
        const std::vector<LshSector> sectors = lsh_sectors_2d(o);
        std::vector<std::uint32_t> round, bucket;
        std::vector<double> begin, end;
        for (const LshSector& s : sectors) {
            round.push_back(s.round), bucket.push_back(s.bucket), begin.push_back(s.begin), end.push_back(s.end);
        }
        val out = val::object();
        out.set("round", typed_array(round));
        out.set("bucket", typed_array(bucket));
        out.set("begin", typed_array(begin));
        out.set("end", typed_array(end));
        return out;
    });
}

val linformer_js(const val& in) {
    return guarded([&] {
        const DoubleQkv t = approx_qkv_arg(in);
        const val projection = in["projection"];
        const std::string kind = projection.isUndefined() ? "random" : projection.isString() ? projection.as<std::string>() : "";
        if (kind != "random" && kind != "identity") throw Error("projection: must be 'random' or 'identity'");
        const std::size_t n = t.k.shape.seq;
        const std::size_t k = kind == "identity" ? n : integer_arg(in, "projectedLength", 1, kMaxApproxWidth, 64);
        const ApproxSizes s(t);
        require_approx_work(s.heads * double(k) * (s.S + s.L) * s.widths, "projectedLength",
                            "B * H * projectedLength * (S + L) * (D + Dv)");
        const LinformerProjections p =
            kind == "identity" ? linformer_identity_projections(n) : linformer_random_projections(k, n, seed_arg(in));
        return approx_result_js(linformer(t.q, t.k, t.v, p, scale_arg(in)));
    });
}

val performer_js(const val& in) {
    return guarded([&] {
        const DoubleQkv t = approx_qkv_arg(in);
        PerformerOptions o;
        o.num_features = integer_arg(in, "numFeatures", 1, kMaxApproxWidth, o.num_features);
        o.orthogonal = bool_arg(in, "orthogonal", true);
        o.seed = seed_arg(in);
        o.scale = scale_arg(in);
        const ApproxSizes s(t);
        require_approx_work(s.heads * double(o.num_features) * (s.L + s.S) * s.widths, "numFeatures",
                            "B * H * numFeatures * (L + S) * (D + Dv)");
        return approx_result_js(performer(t.q, t.k, t.v, o));
    });
}

val linear_attention_js(const val& in) {
    return guarded([&] {
        const DoubleQkv t = approx_qkv_arg(in);
        LinearAttentionOptions o;
        o.causal = causal_arg(in) != Causal::none;  // self-attention: L = S, both alignments alike
        const val form = in["form"];
        const std::string f = form.isUndefined() ? "recurrent" : form.isString() ? form.as<std::string>() : "";
        if (f != "recurrent" && f != "parallel") throw Error("form: must be 'recurrent' or 'parallel'");
        o.form = f == "parallel" ? LinearForm::parallel : LinearForm::recurrent;
        return approx_result_js(linear_attention(t.q, t.k, t.v, o));
    });
}

val synthesizer_js(const val& in) {
    return guarded([&] {
        const DoubleQkv t = approx_qkv_arg(in);
        SynthesizerOptions o;
        const val kind = in["kind"];
        const std::string k = kind.isUndefined() ? "dense" : kind.isString() ? kind.as<std::string>() : "";
        if (k != "dense" && k != "random") throw Error("kind: must be 'dense' or 'random'");
        o.kind = k == "random" ? SynthesizerKind::random : SynthesizerKind::dense;
        o.hidden = integer_arg(in, "hidden", 0, kMaxApproxWidth, 0);
        o.seed = seed_arg(in);
        return approx_result_js(synthesizer(t.q, t.k, t.v, o));
    });
}

val routing_attention_js(const val& in) {
    return guarded([&] {
        const DoubleQkv t = approx_qkv_arg(in);
        RoutingOptions o;
        o.num_clusters = integer_arg(in, "numClusters", 1, 4096, o.num_clusters);
        o.iterations = integer_arg(in, "iterations", 0, 100, o.iterations);
        o.seed = seed_arg(in);
        o.scale = scale_arg(in);
        const RoutingResult r = routing_attention(t.q, t.k, t.v, o);
        val out = approx_result_js(r.approx);
        out.set("queryCluster", typed_array(r.query_cluster));
        out.set("keyCluster", typed_array(r.key_cluster));
        out.set("queriesWithoutKeys", counter(r.queries_without_keys));
        return out;
    });
}

val retrieval_inputs_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("qShape: missing (no arguments object given)");
        const Shape4 s = shape_arg(in, "qShape", kMaxTensorElements);
        const std::size_t kv_len = integer_arg(in, "kvLen", 1, kMaxTensorElements, s.seq);
        const std::size_t value_dim = integer_arg(in, "valueDim", 1, kMaxTensorElements, s.dim);
        if (static_cast<double>(s.batch * s.heads) * static_cast<double>(kv_len) * static_cast<double>(std::max(s.dim, value_dim)) >
            static_cast<double>(kMaxTensorElements)) {
            throw Error("kvLen/valueDim: K and V may hold at most " + std::to_string(kMaxTensorElements) + " elements");
        }
        const RetrievalInputs r = retrieval_inputs(s, kv_len, value_dim, number_arg(in, "noise", 0, 100, 0.1),
                                                   number_arg(in, "sharpness", 1e-9, 100, 2.0), seed_arg(in));
        val out = val::object();
        out.set("q", to_float32_array(r.q.data));
        out.set("qShape", shape_to_js(r.q.shape));
        out.set("k", to_float32_array(r.k.data));
        out.set("kShape", shape_to_js(r.k.shape));
        out.set("v", to_float32_array(r.v.data));
        out.set("vShape", shape_to_js(r.v.shape));
        out.set("targets", typed_array(r.targets));
        return out;
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(approx) {
    using namespace attn::wasm;
    emscripten::function("lshAttention", &lsh_attention_js);
    emscripten::function("lshSectors2d", &lsh_sectors_2d_js);
    emscripten::function("linformer", &linformer_js);
    emscripten::function("performer", &performer_js);
    emscripten::function("linearAttention", &linear_attention_js);
    emscripten::function("synthesizer", &synthesizer_js);
    emscripten::function("routingAttention", &routing_attention_js);
    emscripten::function("retrievalInputs", &retrieval_inputs_js);
}
