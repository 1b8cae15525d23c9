// JavaScript API of the decode-time attention algorithms: paged decode, split-KV partial states
// and their merge, chunked prefill, sliding-window masks and receptive fields, the ring-attention
// schedule and timing model, and speculative decoding's acceptance model.
// Thin by design: read and check the JS arguments, call the core, return plain objects.
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/attention/chunked_prefill.hpp"
#include "attn/attention/paged_decode.hpp"
#include "attn/attention/sdpa.hpp"
#include "attn/random.hpp"
#include "attn/attention/ring_attention.hpp"
#include "attn/attention/sliding_window.hpp"
#include "attn/attention/speculative.hpp"
#include "attn/attention/split_kv.hpp"
#include "attention_args.hpp"
#include "convert.hpp"
#include "limits.hpp"

namespace attn::wasm {
namespace {

// ---- arguments -------------------------------------------------------------------------------

double required_number(const val& obj, const char* key, double lo, double hi) {
    if (obj.isUndefined() || obj.isNull() || obj[key].isUndefined()) throw Error(std::string(key) + ": missing");
    return number_arg(obj, key, lo, hi, lo);
}

// obj[key] as an array of integers in [lo, hi] with at most max_count entries.
std::vector<std::size_t> integer_list(const val& obj, const char* key, std::size_t lo, std::size_t hi,
                                      std::size_t max_count) {
    const val v = obj[key];
    if (!v.isArray()) throw Error(std::string(key) + ": must be an array of integers");
    const auto n = v["length"].as<std::size_t>();
    if (n > max_count) throw Error(std::string(key) + ": at most " + std::to_string(max_count) + " entries");
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < n; ++i) {
        val holder = val::object();
        holder.set(key, v[i]);
        out.push_back(integer_arg(holder, key, lo, hi, 0));
    }
    return out;
}

val float_array(const std::vector<float>& v) { return to_float32_array(v); }

val number_array(const std::vector<double>& v) {
    val a = val::array();
    for (double x : v) a.call<void>("push", x);
    return a;
}

// ---- paged decode ----------------------------------------------------------------------------

val paged_decode_js(const val& in) {
    return guarded([&] {
        const Tensor4<float> q = tensor_arg(in, "q", "qShape", kMaxTensorElements);
        const Tensor4<float> kp = tensor_arg(in, "keyPool", "keyPoolShape", kMaxTensorElements);
        const Tensor4<float> vp = tensor_arg(in, "valuePool", "valuePoolShape", kMaxTensorElements);
        if (kp.shape.batch > kMaxPagedBlocks) {
            throw Error("keyPoolShape: at most " + std::to_string(kMaxPagedBlocks) + " physical blocks in the browser");
        }
        const val seqs = in["sequences"];
        if (!seqs.isArray()) throw Error("sequences: must be an array of {blockTable, contextLen, keyAllowed?}");
        if (seqs["length"].as<std::size_t>() != q.shape.batch) {
            throw Error("sequences: need one per query sequence (" + std::to_string(q.shape.batch) + ")");
        }
        std::vector<PagedSequence> sequences;
        for (std::size_t s = 0; s < q.shape.batch; ++s) {
            const val e = seqs[s];
            if (e.typeOf().as<std::string>() != "object" || e.isNull()) throw Error("sequences: every entry must be an object {blockTable, contextLen}");
            PagedSequence p;
            p.block_table = integer_list(e, "blockTable", 0, kMaxPagedBlocks, kMaxPagedBlocks);
            p.context_len = required_integer(e, "contextLen", 1, kMaxTensorElements);
            if (!e["keyAllowed"].isUndefined()) {
                for (std::size_t a : integer_list(e, "keyAllowed", 0, 1, kMaxTensorElements)) p.key_allowed.push_back(a);
            }
            sequences.push_back(std::move(p));
        }
        PagedDecodeOptions o;
        const AttentionOptions a = attention_options_arg(in);
        o.scale = a.scale;
        o.trace = true;
        o.trace_seq = integer_arg(in, "traceSeq", 0, q.shape.batch - 1, 0);
        o.trace_head = integer_arg(in, "traceHead", 0, q.shape.heads - 1, 0);
        const PagedDecodeResult<float> r = paged_decode(q, kp, vp, sequences, o);
        val out = forward_result_js(r.output, r.lse);
        val steps = val::array();
        for (const auto& s : r.trace) {
            val step = val::object();
            step.set("logicalBlock", s.logical_block);
            step.set("physicalBlock", s.physical_block);
            step.set("tokenBegin", s.token_begin);
            step.set("tokenEnd", s.token_end);
            step.set("scores", float_array(s.scores));
            step.set("m", s.m);
            step.set("l", s.l);
            step.set("rescale", s.rescale);
            step.set("acc", float_array(s.acc));
            steps.call<void>("push", step);
        }
        out.set("steps", steps);
        return out;
    });
}

// ---- split-KV --------------------------------------------------------------------------------

val split_kv_js(const val& in) {
    return guarded([&] {
        const Qkv t = qkv_arg(in);
        require_score_budget(t);
        SplitKvOptions o;
        static_cast<AttentionOptions&>(o) = attention_options_arg(in);
        o.num_partitions = integer_arg(in, "numPartitions", 1, 1024, 4);
        const SplitKvResult<float> r = split_kv_attention(t.q, t.k, t.v, o);
        // Merge order: a permutation of the partitions (default 0, 1, ...).
        std::vector<std::size_t> order;
        if (in["mergeOrder"].isUndefined()) {
            for (std::size_t i = 0; i < r.partials.size(); ++i) order.push_back(i);
        } else {
            order = integer_list(in, "mergeOrder", 0, r.partials.size() - 1, r.partials.size());
            std::vector<bool> used(r.partials.size(), false);
            for (std::size_t i : order) {
                if (used[i]) throw Error("mergeOrder: must be a permutation of 0 .. numPartitions - 1");
                used[i] = true;
            }
            if (order.size() != r.partials.size()) throw Error("mergeOrder: must list every partition once");
        }
        val partitions = val::array();
        for (const auto& p : r.partials) {
            val e = val::object();
            e.set("keyBegin", p.key_ranges.front().begin);
            e.set("keyEnd", p.key_ranges.front().end);
            std::vector<float> m, l;
            for (const auto& s : p.state) {
                m.push_back(s.m);
                l.push_back(s.l);
            }
            e.set("m", float_array(m));
            e.set("l", float_array(l));
            e.set("acc", float_array(p.acc));
            const NormalizedAttention<float> n = normalize(p);
            e.set("output", float_array(n.output));
            e.set("lse", float_array(n.lse));
            partitions.call<void>("push", e);
        }
        // The running state after each merge, in the requested order.
        val merges = val::array();
        PartialAttention<float> running = r.partials[order[0]];
        for (std::size_t i = 1; i < order.size(); ++i) {
            merge_partial(running, r.partials[order[i]]);
            std::vector<float> m, l;
            for (const auto& s : running.state) {
                m.push_back(s.m);
                l.push_back(s.l);
            }
            val e = val::object();
            e.set("merged", order[i]);
            e.set("m", float_array(m));
            e.set("l", float_array(l));
            merges.call<void>("push", e);
        }
        const NormalizedAttention<float> final_state = normalize(running);
        val out = val::object();
        out.set("output", float_array(final_state.output));
        out.set("outputShape", shape_to_js(r.output.shape));
        out.set("lse", float_array(final_state.lse));
        out.set("partitions", partitions);
        out.set("merges", merges);
        return out;
    });
}

// ---- chunked prefill -------------------------------------------------------------------------

val chunked_prefill_js(const val& in) {
    return guarded([&] {
        const Qkv t = qkv_arg(in);
        require_score_budget(t);
        PrefillOptions o;
        o.scale = attention_options_arg(in).scale;
        o.block_k = integer_arg(in, "blockK", 1, 4096, 64);
        const std::vector<std::size_t> chunks =
            in["chunkLengths"].isUndefined() ? std::vector<std::size_t>{t.q.shape.seq}
                                             : integer_list(in, "chunkLengths", 1, kMaxTensorElements, 4096);
        const PrefillResult<float> r = chunked_prefill(t.q, t.k, t.v, chunks, o);
        val out = forward_result_js(r.output, r.lse);
        out.set("keyRowsRead", static_cast<double>(r.key_rows_read));
        return out;
    });
}

// ---- sliding window --------------------------------------------------------------------------

val sliding_window_mask_js(const val& in) {
    return guarded([&] {
        const std::size_t n = required_integer(in, "seqLen", 1, kMaxTraceLength);
        const std::size_t w = required_integer(in, "window", 1, kMaxTraceLength);
        return typed_array(sliding_window_mask(n, w).allowed);
    });
}

val sliding_window_receptive_field_js(const val& in) {
    return guarded([&] {
        const ReceptiveField f = sliding_window_receptive_field(required_integer(in, "layers", 1, 1u << 20),
                                                                required_integer(in, "window", 1, 1u << 30));
        val out = val::object();
        out.set("layers", f.layers);
        out.set("window", f.window);
        out.set("reachTokens", static_cast<double>(f.reach_tokens));
        out.set("paperReachTokens", static_cast<double>(f.paper_reach_tokens));
        return out;
    });
}

val sliding_window_influence_js(const val& in) {
    return guarded([&] {
        const std::size_t layers = required_integer(in, "layers", 1, 256);
        const std::size_t window = required_integer(in, "window", 1, kMaxTraceLength);
        const std::size_t n = required_integer(in, "seqLen", 1, kMaxTraceLength);
        const std::size_t source = integer_arg(in, "source", 0, n - 1, 0);
        if (layers * n * n > kMaxInfluenceCells) {
            throw Error("layers/seqLen: layers x seqLen^2 exceeds the in-browser limit of " +
                        std::to_string(kMaxInfluenceCells));
        }
        val rows = val::array();
        for (const auto& row : sliding_window_influence(layers, window, n, source)) rows.call<void>("push", typed_array(row));
        return rows;
    });
}

// ---- ring attention --------------------------------------------------------------------------

val ring_schedule_js(const val& in) {
    return guarded([&] {
        const std::size_t P = required_integer(in, "devices", 1, kMaxRingDevices);
        const std::size_t L = required_integer(in, "qLen", 1, kMaxTensorElements);
        const std::size_t S = integer_arg(in, "kvLen", 1, kMaxTensorElements, L);
        const std::vector<RingStep> steps = ring_schedule(P, L, S, causal_arg(in));
        val out = val::object();
        val shards = val::array();
        for (const auto& r : ring_shards(L, P)) shards.call<void>("push", number_array({double(r.begin), double(r.end)}));
        val kv_shards = val::array();
        for (const auto& r : ring_shards(S, P)) kv_shards.call<void>("push", number_array({double(r.begin), double(r.end)}));
        val list = val::array();
        for (const RingStep& s : steps) {
            val e = val::object();
            e.set("step", s.step);
            e.set("device", s.device);
            e.set("qShard", s.q_shard);
            e.set("kvShard", s.kv_shard);
            e.set("computed", s.computed);
            e.set("attendedPairs", static_cast<double>(s.attended_pairs));
            e.set("sends", s.sends);
            e.set("sendTo", s.send_to);
            e.set("recvFrom", s.recv_from);
            e.set("receivedKvShard", s.received_kv_shard);
            list.call<void>("push", e);
        }
        out.set("qShards", shards);
        out.set("kvShards", kv_shards);
        out.set("steps", list);
        return out;
    });
}

val ring_timing_js(const val& in) {
    return guarded([&] {
        RingTimingInput t;
        t.devices = required_integer(in, "devices", 1, kMaxRingDevices);
        t.batch = integer_arg(in, "batch", 1, 65536, 1);
        t.q_heads = integer_arg(in, "qHeads", 1, 4096, 32);
        t.kv_heads = integer_arg(in, "kvHeads", 1, 4096, t.q_heads);
        t.seq_len = required_integer(in, "seqLen", 1, std::size_t{1} << 24);
        t.head_dim = integer_arg(in, "headDim", 1, 1024, 128);
        t.value_dim = integer_arg(in, "valueDim", 1, 1024, t.head_dim);
        t.causal = causal_arg(in);
        t.element_bytes = integer_arg(in, "elementBytes", 1, 8, 2);
        t.gpu = string_arg(in, "gpu", "h100-sxm");
        t.precision = cost::precision_from_name(string_arg(in, "precision", "fp16"));
        t.link_bytes_per_s = required_number(in, "linkBytesPerS", 1.0, 1e15);
        const RingTiming r = ring_attention_timing(t);
        val out = val::object();
        out.set("peakFlops", r.peak_flops);
        out.set("kvShardBytes", r.kv_shard_bytes);
        out.set("flopsTotal", r.flops_total);
        val steps = val::array();
        for (const auto& s : r.steps) {
            val e = val::object();
            e.set("computeTimeS", s.compute_time_s);
            e.set("sendTimeS", s.send_time_s);
            e.set("stepTimeS", s.step_time_s);
            e.set("commHidden", s.comm_hidden);
            steps.call<void>("push", e);
        }
        out.set("steps", steps);
        out.set("ringTimeS", r.ring_time_s);
        out.set("ringComputeTimeS", r.ring_compute_time_s);
        out.set("commHidden", r.comm_hidden);
        out.set("minShardTokensToHide", r.min_shard_tokens_to_hide);
        out.set("ringKvBytesPerDevice", r.ring_kv_bytes_per_device);
        out.set("allgatherCommTimeS", r.allgather_comm_time_s);
        out.set("allgatherComputeTimeS", r.allgather_compute_time_s);
        out.set("allgatherTimeS", r.allgather_time_s);
        out.set("allgatherKvBytesPerDevice", r.allgather_kv_bytes_per_device);
        return out;
    });
}

// The largest |a - b| over two equally long arrays.
template <class A, class B>
double max_abs_diff(const std::vector<A>& a, const std::vector<B>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
    return worst;
}

// Ring attention of one seeded random head in float, as a device would run it, with its merge
// traced at every (step, device), and its error against the dense reference in double. Three
// passes over the scores and P^2 traced entries: under the caps the largest calls measured here
// took 0.2-0.4 s of CPU (Node, a loaded 2-core EPYC host). The
// single-device float sdpa's error is returned beside it: the ring's is of the same order, since
// the merge itself is exact and only float rounding differs.
val ring_trace_js(const val& in) {
    return guarded([&] {
        const std::size_t P = required_integer(in, "devices", 1, kMaxRingTraceDevices);
        const std::size_t L = required_integer(in, "qLen", 1, kMaxTraceLength);
        const std::size_t S = integer_arg(in, "kvLen", 1, kMaxTraceLength, L);
        const std::size_t D = integer_arg(in, "headDim", 1, 256, 16);
        const std::size_t Dv = integer_arg(in, "valueDim", 1, 256, D);
        const std::size_t seed = integer_arg(in, "seed", 0, kMaxSeed, 0);
        if (static_cast<double>(L) * static_cast<double>(S) * static_cast<double>(D + Dv) > static_cast<double>(kMaxRingTraceWork)) {
            throw Error("qLen/kvLen/headDim: qLen x kvLen x (headDim + valueDim) exceeds the in-browser limit of " +
                        std::to_string(kMaxRingTraceWork));
        }
        // Every step returns the device's query rows: P x qLen rows of (4 + valueDim) numbers in all.
        if (static_cast<double>(P) * static_cast<double>(L) * static_cast<double>(Dv + 4) > static_cast<double>(kMaxRingTraceValues)) {
            throw Error("devices/qLen/valueDim: devices x qLen x (valueDim + 4) exceeds the in-browser limit of " +
                        std::to_string(kMaxRingTraceValues));
        }
        const auto q = random_normal({1, 1, L, D}, seed), k = random_normal({1, 1, S, D}, seed + 1),
                   v = random_normal({1, 1, S, Dv}, seed + 2);
        RingOptions o;
        o.devices = P;
        o.causal = causal_arg(in);
        o.trace = true;
        const RingAttentionResult<float> r =
            ring_attention(tensor_cast<float>(q), tensor_cast<float>(k), tensor_cast<float>(v), o);
        SdpaOptions so;
        so.causal = o.causal;
        const SdpaResult<double> dense = sdpa(q, k, v, so);
        const SdpaResult<float> dense_float = sdpa(tensor_cast<float>(q), tensor_cast<float>(k), tensor_cast<float>(v), so);

        val steps = val::array();
        for (const RingTraceEntry<float>& e : r.trace) {
            std::vector<float> block_m, block_l, m, l, out(e.running_acc.size());
            for (std::size_t i = 0; i < e.block.size(); ++i) {
                block_m.push_back(e.block[i].m);
                block_l.push_back(e.block[i].l);
                m.push_back(e.running[i].m);
                l.push_back(e.running[i].l);
                online_softmax::finalize(e.running[i], &e.running_acc[i * Dv], Dv, &out[i * Dv]);
            }
            val s = val::object();
            s.set("step", e.step);
            s.set("device", e.device);
            s.set("kvShard", e.kv_shard);
            s.set("computed", e.computed);
            s.set("qBegin", e.q_rows.begin);
            s.set("qEnd", e.q_rows.end);
            s.set("kvBegin", e.kv_keys.begin);
            s.set("kvEnd", e.kv_keys.end);
            s.set("blockM", float_array(block_m));
            s.set("blockL", float_array(block_l));
            s.set("m", float_array(m));
            s.set("l", float_array(l));
            s.set("output", float_array(out));
            steps.call<void>("push", s);
        }
        val out = forward_result_js(r.output, r.lse);
        out.set("steps", steps);
        out.set("maxAbsError", max_abs_diff(r.output.data, dense.output.data));
        out.set("denseFloatMaxAbsError", max_abs_diff(dense_float.output.data, dense.output.data));
        return out;
    });
}

// ---- speculative decoding --------------------------------------------------------------------

val speculative_js(const val& in) {
    return guarded([&] {
        const double alpha = required_number(in, "alpha", 0.0, 1.0);
        const std::size_t gamma = required_integer(in, "gamma", 0, 1024);
        const double c = number_arg(in, "costRatio", 0.0, 1e6, 0.0);
        val out = val::object();
        out.set("expectedTokens", speculative_expected_tokens(alpha, gamma));
        out.set("walltimeImprovement", speculative_walltime_improvement(alpha, gamma, c));
        out.set("bestGamma", speculative_best_gamma(alpha, c, integer_arg(in, "maxGamma", 0, 1024, 32)));
        return out;
    });
}

val simulate_speculative_js(const val& in) {
    return guarded([&] {
        const double alpha = required_number(in, "alpha", 0.0, 1.0);
        const std::size_t gamma = required_integer(in, "gamma", 0, 1024);
        const std::size_t runs = integer_arg(in, "runs", 1, kMaxSpeculativeRuns, 10000);
        // Each run draws up to gamma + 1 acceptance tests (all of them when alpha is 1).
        if (static_cast<double>(runs) * static_cast<double>(gamma + 1) > static_cast<double>(kMaxSpeculativeDraws)) {
            throw Error("runs/gamma: runs * (gamma + 1) = " + std::to_string(static_cast<long long>(runs * double(gamma + 1))) +
                        " draws exceed the in-browser limit of " + std::to_string(kMaxSpeculativeDraws));
        }
        const std::size_t seed = integer_arg(in, "seed", 0, kMaxSeed, 0);
        const SpeculativeSimulation s = simulate_speculative(alpha, gamma, runs, seed);
        val out = val::object();
        out.set("meanTokens", s.mean_tokens);
        out.set("stderrTokens", s.stderr_tokens);
        std::vector<double> h(s.histogram.begin(), s.histogram.end());
        out.set("histogram", number_array(h));
        return out;
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(attn_decode) {
    using namespace attn::wasm;
    emscripten::function("pagedDecode", &paged_decode_js);
    emscripten::function("splitKvAttention", &split_kv_js);
    emscripten::function("chunkedPrefill", &chunked_prefill_js);
    emscripten::function("slidingWindowMask", &sliding_window_mask_js);
    emscripten::function("slidingWindowReceptiveField", &sliding_window_receptive_field_js);
    emscripten::function("slidingWindowInfluence", &sliding_window_influence_js);
    emscripten::function("ringAttentionSchedule", &ring_schedule_js);
    emscripten::function("ringAttentionTiming", &ring_timing_js);
    emscripten::function("ringAttentionTrace", &ring_trace_js);
    emscripten::function("speculativeDecoding", &speculative_js);
    emscripten::function("simulateSpeculativeDecoding", &simulate_speculative_js);
}
