// JavaScript API of the GPU-execution models of Part 3: FA1 vs FA2 thread-block partitioning and
// wave scheduling (gpuWorkPartition), FlashAttention-3's warp-specialised pipeline (fa3Pipeline,
// fa3Timeline), and FA3's FP8 numerical-error experiment (fp8Experiment, roundToFp16, roundToE4m3).
// Thin by design: read and check the JS arguments, call the core, return plain objects and typed arrays.
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "attn/attention/float_formats.hpp"
#include "attn/attention/fp8_numerics.hpp"
#include "attn/cost/fa3_pipeline.hpp"
#include "attn/cost/gpu_presets.hpp"
#include "attn/cost/work_partition.hpp"
#include "convert.hpp"
#include "limits.hpp"

namespace attn::wasm {
namespace {

using namespace attn::cost;

// ---- arguments -------------------------------------------------------------------------------

val args_object(const val& obj) {
    if (obj.isUndefined() || obj.isNull() || obj.typeOf().as<std::string>() != "object") {
        throw Error("arguments: must be an object");
    }
    return obj;
}

// obj[key] as one of `names` (index returned); `fallback` index when absent, or required if < 0.
int choice_arg(const val& obj, const char* key, std::initializer_list<const char*> names, int fallback) {
    const val v = obj[key];
    std::string allowed;
    for (const char* n : names) allowed += (allowed.empty() ? "'" : ", '") + std::string(n) + "'";
    if (v.isUndefined()) {
        if (fallback < 0) throw Error(std::string(key) + ": missing; one of " + allowed);
        return fallback;
    }
    const std::string s = v.isString() ? v.as<std::string>() : "";
    int i = 0;
    for (const char* n : names) {
        if (s == n) return i;
        ++i;
    }
    throw Error(std::string(key) + ": must be one of " + allowed);
}

const GpuPreset& gpu_arg(const val& obj) {
    const val v = obj["gpu"];
    if (!v.isString()) throw Error("gpu: must be a preset id string, e.g. 'a100-sxm-80gb'");
    return gpu_preset(v.as<std::string>());
}

// ---- results ---------------------------------------------------------------------------------

// ---- gpuWorkPartition ------------------------------------------------------------------------

// {gpu, partition, batch, heads, qLen, kvLen, blockQ, blockK, causal, blocksPerSm}
val gpu_work_partition_js(const val& in_) {
    return guarded([&] {
        const val in = args_object(in_);
        const GpuPreset& gpu = gpu_arg(in);
        const Partition partition = choice_arg(in, "partition", {"fa1", "fa2"}, -1) == 0 ? Partition::fa1 : Partition::fa2;
        AttentionLaunch l;
        l.batch = integer_arg(in, "batch", 1, 65536, 1);
        l.heads = integer_arg(in, "heads", 1, 65536, 1);
        l.q_len = integer_arg(in, "qLen", 1, std::size_t{1} << 24, 1024);
        l.kv_len = integer_arg(in, "kvLen", 1, std::size_t{1} << 24, l.q_len);
        l.block_q = integer_arg(in, "blockQ", 1, 4096, 128);
        l.block_k = integer_arg(in, "blockK", 1, 4096, 128);
        l.causal = static_cast<Causal>(choice_arg(in, "causal", {"none", "top_left", "bottom_right"}, 0));
        l.blocks_per_sm = integer_arg(in, "blocksPerSm", 1, 32, 1);
        const double blocks = static_cast<double>(l.batch) * static_cast<double>(l.heads) *
                              (partition == Partition::fa2 ? std::ceil(static_cast<double>(l.q_len) / static_cast<double>(l.block_q)) : 1.0);
        if (blocks > static_cast<double>(kMaxWorkBlocks)) {
            throw Error("batch/heads/qLen/blockQ: " + std::to_string(static_cast<long long>(blocks)) +
                        " thread blocks exceed the in-browser limit of " + std::to_string(kMaxWorkBlocks));
        }
        // Each block's tile count goes out in an Int32Array: an FA1 block computes every tile of
        // its head, up to 2^48 of them, so the bound is checked (in double) before the layout.
        const double tiles_per_block =
            (partition == Partition::fa1 ? std::ceil(static_cast<double>(l.q_len) / static_cast<double>(l.block_q)) : 1.0) *
            std::ceil(static_cast<double>(l.kv_len) / static_cast<double>(l.block_k));
        if (tiles_per_block > static_cast<double>(kMaxTilesPerBlock)) {
            throw Error("qLen/kvLen/blockQ/blockK: up to " + std::to_string(static_cast<long long>(tiles_per_block)) +
                        " K/V tiles per thread block exceed the in-browser limit of " + std::to_string(kMaxTilesPerBlock) +
                        "; use larger blocks");
        }
        const WorkPartition w = partition_work(l, partition, gpu);

        const std::size_t n = w.blocks.size();
        std::vector<std::int32_t> batch(n), head(n), q_begin(n), q_end(n), tiles(n), sm(n), wave(n);
        std::vector<double> start(n), end(n);
        for (std::size_t i = 0; i < n; ++i) {
            const ThreadBlock& b = w.blocks[i];
            batch[i] = static_cast<std::int32_t>(b.batch);
            head[i] = static_cast<std::int32_t>(b.head);
            q_begin[i] = static_cast<std::int32_t>(b.q_block_begin);
            q_end[i] = static_cast<std::int32_t>(b.q_block_end);
            tiles[i] = static_cast<std::int32_t>(b.kv_tiles);  // <= kMaxTilesPerBlock, checked above
            sm[i] = static_cast<std::int32_t>(b.sm);
            wave[i] = static_cast<std::int32_t>(b.wave);
            start[i] = b.start_tiles;
            end[i] = b.end_tiles;
        }
        val blocks_js = val::object();
        blocks_js.set("batch", typed_array(batch));
        blocks_js.set("head", typed_array(head));
        blocks_js.set("qBlockBegin", typed_array(q_begin));
        blocks_js.set("qBlockEnd", typed_array(q_end));
        blocks_js.set("kvTiles", typed_array(tiles));
        blocks_js.set("sm", typed_array(sm));
        blocks_js.set("wave", typed_array(wave));
        blocks_js.set("startTiles", typed_array(start));
        blocks_js.set("endTiles", typed_array(end));
        val waves = val::array();
        for (const Wave& wv : w.waves) {
            val o = val::object();
            o.set("firstBlock", static_cast<double>(wv.first_block));
            o.set("blockCount", static_cast<double>(wv.block_count));
            o.set("occupancy", wv.occupancy);
            o.set("startTiles", wv.start_tiles);
            o.set("endTiles", wv.end_tiles);
            waves.call<void>("push", o);
        }
        val out = val::object();
        out.set("partition", val(partition == Partition::fa1 ? "fa1" : "fa2"));
        out.set("gpu", val(std::string(gpu.id)));
        out.set("smCount", static_cast<double>(w.sm_count));
        out.set("blocksPerSm", static_cast<double>(w.blocks_per_sm));
        out.set("numQBlocks", static_cast<double>(w.num_q_blocks));
        out.set("numKBlocks", static_cast<double>(w.num_k_blocks));
        out.set("totalTiles", static_cast<double>(w.total_tiles));
        out.set("makespanTiles", w.makespan_tiles);
        out.set("smUtilization", w.sm_utilization);
        out.set("smBusyTiles", typed_array(w.sm_busy_tiles));
        out.set("blocks", blocks_js);
        out.set("waves", waves);
        return out;
    });
}

// ---- fa3Pipeline / fa3Timeline ---------------------------------------------------------------

const char* schedule_name(Fa3Schedule s) {
    if (s.pingpong) return s.intra_warpgroup_overlap ? "pingpong_intra_overlap" : "pingpong";
    return s.intra_warpgroup_overlap ? "intra_overlap" : "sequential";
}

// {precision, headDim, rowsPerWarpgroup, blockK, consumerWarpgroups, stages, qLen}
Fa3Config fa3_config_arg(const val& in) {
    Fa3Config c;
    c.precision = choice_arg(in, "precision", {"fp16", "fp8"}, 0) == 0 ? Fa3Precision::fp16 : Fa3Precision::fp8;
    c.head_dim = integer_arg(in, "headDim", 8, 512, c.head_dim);
    c.rows_per_warpgroup = integer_arg(in, "rowsPerWarpgroup", 1, 512, c.rows_per_warpgroup);
    c.block_k = integer_arg(in, "blockK", 1, 1024, c.block_k);
    c.consumer_warpgroups = integer_arg(in, "consumerWarpgroups", 1, 4, c.consumer_warpgroups);
    c.stages = integer_arg(in, "stages", 1, 8, c.stages);
    c.q_len = integer_arg(in, "qLen", 1, std::size_t{1} << 24, c.q_len);
    return c;
}

val timeline_to_js(const Fa3Timeline& t) {
    val segments = val::array();
    for (const Fa3Segment& s : t.segments) {
        val o = val::object();
        o.set("unit", val(std::string(fa3_unit_name(s.unit))));
        o.set("op", val(std::string(fa3_op_name(s.op))));
        o.set("warpgroup", s.warpgroup);
        o.set("iteration", static_cast<double>(s.iteration));
        o.set("startS", s.start_s);
        o.set("endS", s.end_s);
        o.set("unitShare", s.unit_share);
        segments.call<void>("push", o);
    }
    val out = val::object();
    out.set("name", val(schedule_name(t.schedule)));
    out.set("intraWarpgroupOverlap", t.schedule.intra_warpgroup_overlap);
    out.set("pingpong", t.schedule.pingpong);
    out.set("totalS", t.total_s);
    out.set("steadyIterationS", t.steady_iteration_s);
    out.set("segments", segments);
    return out;
}

val op_times_to_js(const Fa3OpTimes& t) {
    val o = val::object();
    o.set("loadKS", t.load_k_s);
    o.set("loadVS", t.load_v_s);
    o.set("gemm0S", t.gemm0_s);
    o.set("softmaxS", t.softmax_s);
    o.set("gemm1S", t.gemm1_s);
    return o;
}

// config + {gpu, iterations}
val fa3_pipeline_js(const val& in_) {
    return guarded([&] {
        const val in = args_object(in_);
        const GpuPreset& gpu = gpu_arg(in);
        const Fa3Config c = fa3_config_arg(in);
        const std::size_t iterations = integer_arg(in, "iterations", 1, kMaxFa3Iterations, 8);
        if (c.consumer_warpgroups < 2) {
            throw Error("consumerWarpgroups: the comparison includes ping-pong, which needs at least 2, got 1");
        }
        const Fa3Comparison cmp = fa3_compare(gpu, c, iterations);
        val rates = val::object();
        rates.set("tensorFlopsPerS", cmp.rates.tensor_flops_per_s);
        rates.set("expPerS", cmp.rates.exp_per_s);
        rates.set("loadBytesPerS", cmp.rates.load_bytes_per_s);
        rates.set("kvReaders", cmp.rates.kv_readers);
        rates.set("clockHz", cmp.rates.clock_hz);
        val schedules = val::array();
        for (const Fa3ScheduleResult& r : cmp.schedules) {
            val o = timeline_to_js(r.timeline);
            o.set("closedFormIterationS", r.closed_form_iteration_s);
            o.set("speedup", r.speedup);
            o.set("steadySpeedup", r.steady_speedup);
            schedules.call<void>("push", o);
        }
        val out = val::object();
        out.set("gpu", val(std::string(gpu.id)));
        out.set("rates", rates);
        out.set("opTimes", op_times_to_js(cmp.times));
        out.set("schedules", schedules);
        return out;
    });
}

// {opTimes: {loadKS, loadVS, gemm0S, softmaxS, gemm1S}, intraWarpgroupOverlap, pingpong,
//  consumerWarpgroups, stages, iterations}
val fa3_timeline_js(const val& in_) {
    return guarded([&] {
        const val in = args_object(in_);
        const val t = in["opTimes"];
        if (t.isUndefined() || t.isNull() || t.typeOf().as<std::string>() != "object") {
            throw Error("opTimes: must be an object {loadKS, loadVS, gemm0S, softmaxS, gemm1S}");
        }
        auto time = [&](const char* key) {
            if (t[key].isUndefined()) throw Error(std::string("opTimes.") + key + ": missing");
            return number_arg(t, key, 0, 1e6, 0);
        };
        const Fa3OpTimes times{time("loadKS"), time("loadVS"), time("gemm0S"), time("softmaxS"), time("gemm1S")};
        const Fa3Schedule schedule{bool_arg(in, "intraWarpgroupOverlap", false), bool_arg(in, "pingpong", false)};
        Fa3Config c;
        c.consumer_warpgroups = integer_arg(in, "consumerWarpgroups", 1, 4, c.consumer_warpgroups);
        c.stages = integer_arg(in, "stages", 1, 8, c.stages);
        const std::size_t iterations = integer_arg(in, "iterations", 1, kMaxFa3Iterations, 8);
        val out = timeline_to_js(fa3_timeline(times, schedule, c, iterations));
        out.set("closedFormIterationS", fa3_steady_iteration_s(times, schedule, c.consumer_warpgroups));
        return out;
    });
}

// ---- fp8Experiment, roundToFp16, roundToE4m3 --------------------------------------------------

// {seqLen, headDim, evalRows, blockRows, seed, outlierProbability, outlierStddev}
val fp8_experiment_js(const val& in_) {
    return guarded([&] {
        const val in = args_object(in_);
        Fp8ExperimentOptions o;
        o.seq_len = integer_arg(in, "seqLen", 1, kMaxFp8SeqLen, 512);
        o.head_dim = integer_arg(in, "headDim", 1, 256, 128);
        if ((o.head_dim & (o.head_dim - 1)) != 0) {
            throw Error("headDim: must be a power of two (Hadamard transform), got " + std::to_string(o.head_dim));
        }
        o.eval_rows = integer_arg(in, "evalRows", 1, o.seq_len, std::min<std::size_t>(o.seq_len, 64));
        o.block_rows = integer_arg(in, "blockRows", 1, o.seq_len, std::min<std::size_t>(o.seq_len, 64));
        o.seed = integer_arg(in, "seed", 0, kMaxSeed, 0);
        o.outlier_probability = number_arg(in, "outlierProbability", 0, 1, o.outlier_probability);
        o.outlier_stddev = number_arg(in, "outlierStddev", 1e-6, 1e6, o.outlier_stddev);
        const double work = static_cast<double>(o.seq_len) * static_cast<double>(o.eval_rows) * static_cast<double>(o.head_dim);
        if (work > static_cast<double>(kMaxFp8Work)) {
            throw Error("seqLen/evalRows/headDim: seqLen * evalRows * headDim = " + std::to_string(static_cast<long long>(work)) +
                        " exceeds the in-browser limit of " + std::to_string(kMaxFp8Work));
        }
        // Each (evaluated row, key) pair costs about 0.4 microseconds in the browser even at
        // headDim 2 (measured: seqLen 2048 x evalRows 2048 took 1.8 s), so pairs have their own cap.
        const double pairs = static_cast<double>(o.seq_len) * static_cast<double>(o.eval_rows);
        if (pairs > static_cast<double>(kMaxFp8Pairs)) {
            throw Error("seqLen/evalRows: seqLen * evalRows = " + std::to_string(static_cast<long long>(pairs)) +
                        " exceeds the in-browser limit of " + std::to_string(kMaxFp8Pairs));
        }
        val rows = val::array();
        for (const NumericsResult& r : fp8_experiment(o)) {
            val row = val::object();
            row.set("method", val(std::string(numerics_method_name(r.method))));
            row.set("rmse", r.rmse);
            if (const auto p = fa3_table3_rmse(r.method)) {
                row.set("paperLabel", val(std::string(p->label)));
                row.set("paperRmse", p->rmse);
            }
            rows.call<void>("push", row);
        }
        val out = val::object();
        out.set("results", rows);
        out.set("paperSource", val(std::string(kFa3Table3Source)));
        return out;
    });
}

double number_value(const val& x) {
    if (!x.isNumber()) throw Error("x: must be a number");
    return x.as<double>();
}

val round_to_fp16_js(const val& x) { return guarded([&] { return val(round_to_fp16(number_value(x))); }); }
val round_to_e4m3_js(const val& x) { return guarded([&] { return val(round_to_e4m3(number_value(x))); }); }

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(gpu) {
    emscripten::function("gpuWorkPartition", &attn::wasm::gpu_work_partition_js);
    emscripten::function("fa3Pipeline", &attn::wasm::fa3_pipeline_js);
    emscripten::function("fa3Timeline", &attn::wasm::fa3_timeline_js);
    emscripten::function("fp8Experiment", &attn::wasm::fp8_experiment_js);
    emscripten::function("roundToFp16", &attn::wasm::round_to_fp16_js);
    emscripten::function("roundToE4m3", &attn::wasm::round_to_e4m3_js);
}
