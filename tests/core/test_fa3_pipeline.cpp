// The FA3 main-loop timing model: per-op durations from a preset, the simulated timelines of the
// four schedules (FA3 §3.1-3.2), their invariants and their closed-form steady state.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <tuple>

#include "attn/cost/fa3_pipeline.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::cost;

namespace {

constexpr Fa3Schedule kSequential{false, false}, kIntra{true, false}, kPingpong{false, true}, kBoth{true, true};
constexpr Fa3Schedule kSchedules[] = {kSequential, kIntra, kPingpong, kBoth};

Fa3Config config_with(std::size_t warpgroups, std::size_t stages) {
    Fa3Config c;
    c.consumer_warpgroups = warpgroups;
    c.stages = stages;
    return c;
}

using Key = std::tuple<Fa3Op, int, std::size_t>;  // (op, warpgroup, iteration)

std::map<Key, Fa3Segment> by_key(const Fa3Timeline& t) {
    std::map<Key, Fa3Segment> m;
    for (const auto& s : t.segments) m[{s.op, s.warpgroup, s.iteration}] = s;
    return m;
}

// Checks every invariant of a timeline: each unit serves at most its full rate at any time, and
// every op starts after its inputs and its buffer stage are ready.
void check_timeline(const Fa3Timeline& t, const Fa3Config& c, std::size_t iterations) {
    const std::size_t W = c.consumer_warpgroups;
    CHECK(t.segments.size() == iterations * (2 + 3 * W));
    for (Fa3Unit unit : {Fa3Unit::tma, Fa3Unit::tensor_cores, Fa3Unit::special_functions}) {
        std::vector<std::pair<double, double>> events;  // (time, +share / -share)
        for (const auto& s : t.segments) {
            CHECK(s.end_s >= s.start_s);
            if (s.unit != unit || s.end_s == s.start_s) continue;
            events.push_back({s.start_s, s.unit_share});
            events.push_back({s.end_s, -s.unit_share});
        }
        std::sort(events.begin(), events.end());  // ends (negative) before starts at equal times
        double load = 0;
        for (auto [time, delta] : events) {
            load += delta;
            CHECK(load <= 1.0 + 1e-9);
        }
    }
    const auto seg = by_key(t);
    double last_end = 0;
    for (std::size_t j = 0; j < iterations; ++j) {
        const auto& lk = seg.at({Fa3Op::load_k, -1, j});
        const auto& lv = seg.at({Fa3Op::load_v, -1, j});
        for (int w = 0; w < static_cast<int>(W); ++w) {
            const auto& g0 = seg.at({Fa3Op::gemm0, w, j});
            const auto& sm = seg.at({Fa3Op::softmax, w, j});
            const auto& g1 = seg.at({Fa3Op::gemm1, w, j});
            CHECK(g0.start_s >= lk.end_s);  // GEMM0_j reads K_j
            CHECK(sm.start_s >= g0.end_s);  // softmax_j reads S_j
            CHECK(g1.start_s >= sm.end_s);  // GEMM1_j reads P_j ...
            CHECK(g1.start_s >= lv.end_s);  // ... and V_j
            if (j >= c.stages) {            // K_j and V_j reuse the stage of block j - stages
                CHECK(lk.start_s >= seg.at({Fa3Op::gemm0, w, j - c.stages}).end_s);
                CHECK(lv.start_s >= seg.at({Fa3Op::gemm1, w, j - c.stages}).end_s);
            }
            last_end = std::max(last_end, g1.end_s);
        }
    }
    CHECK(t.total_s == last_end);
}

}  // namespace

TEST_CASE("fa3 rates and op times follow the preset and FA3's H100 ratio: exponentials take ~50% of the matmul time") {
    const GpuPreset& h100 = gpu_preset("h100-sxm");
    Fa3Config c;  // FP16, head dim 128, 2 x 64 query rows, 128 keys per block, q_len 8448
    const Fa3Rates r = fa3_rates(h100, c);
    const double sms = h100.sm_count.value;
    CHECK(r.tensor_flops_per_s == doctest::Approx(h100.fp16_flops.value / sms));
    // 16 special-function results per clock per SM, at the clock Hopper's 4,096 dense FP16 tensor
    // FLOPs per clock per SM give the preset's peak: FA3's 3.9 TFLOPS at 1,830 MHz (footnote 5).
    CHECK(r.exp_per_s == doctest::Approx(16 * h100.fp16_flops.value / (sms * 4096)));
    CHECK(r.exp_per_s * sms == doctest::Approx(3.9e12).epsilon(0.01));
    CHECK(r.clock_hz == doctest::Approx(1830e6).epsilon(0.001));
    CHECK(r.kv_readers == 66);  // ceil(8448 / 128) CTAs per head, fewer than 132 SMs
    CHECK(r.load_bytes_per_s == doctest::Approx(h100.hbm_bytes_per_s.value / sms * 66));
    const Fa3OpTimes t = fa3_op_times(r, c);
    CHECK(t.gemm0_s == doctest::Approx(2.0 * 64 * 128 * 128 / r.tensor_flops_per_s));
    CHECK(t.gemm1_s == t.gemm0_s);
    CHECK(t.softmax_s == doctest::Approx(64.0 * 128 / r.exp_per_s));
    CHECK(t.load_k_s == doctest::Approx(128.0 * 128 * 2 / r.load_bytes_per_s));
    c.precision = Fa3Precision::fp8;
    const Fa3Rates r8 = fa3_rates(h100, c);
    CHECK(r8.tensor_flops_per_s == doctest::Approx(h100.fp8_flops.value / sms));
    CHECK(fa3_op_times(r8, c).load_k_s == doctest::Approx(128.0 * 128 / r8.load_bytes_per_s));  // 1-byte e4m3

    // FA3 §3.1: "the H100 SXM5 GPU has 989 TFLOPS of FP16 matmul but only 3.9 TFLOPS of special
    // functions ... with head dimension 128, there are 512x more matmul FLOPS compared to exponential
    // operations, but the exponential has 256x lower throughput, so exponential can take 50% of the
    // cycle compared to matmul."
    const Fa3Rates paper{989e12 / 132, 3.9e12 / 132, 1e30, 1};
    const Fa3OpTimes p = fa3_op_times(paper, Fa3Config{});
    const double matmul_flops = 2 * 2.0 * 64 * 128 * 128, exps = 64.0 * 128;
    CHECK(matmul_flops / exps == 512);
    CHECK(p.softmax_s / (p.gemm0_s + p.gemm1_s) == doctest::Approx(0.5).epsilon(0.02));
    // The model's own H100 rates give that ratio exactly: both follow from the same clock.
    CHECK(t.softmax_s / (t.gemm0_s + t.gemm1_s) == doctest::Approx(0.5).epsilon(1e-9));
}

TEST_CASE("fa3 timelines by hand: two warpgroups with unit-time ops over two key blocks") {
    const Fa3OpTimes unit{0, 0, 1, 1, 1};
    const Fa3Config c = config_with(2, 2);
    // Sequential, lockstep: each op takes 2 (two warpgroups share the unit): 3 ops x 2 x 2 blocks.
    const Fa3Timeline seq = fa3_timeline(unit, kSequential, c, 2);
    CHECK(seq.total_s == 12);
    // Intra overlap: G0_0 [0,2], S_0 [2,4], G0_1 [4,6], G1_0 [6,8] with S_1 [6,8], G1_1 [8,10].
    const Fa3Timeline intra = fa3_timeline(unit, kIntra, c, 2);
    CHECK(intra.total_s == 10);
    CHECK(by_key(intra).at({Fa3Op::softmax, 1, 1}).start_s == 6);
    CHECK(by_key(intra).at({Fa3Op::softmax, 1, 1}).unit_share == 0.5);
    // Ping-pong: WG0's softmax runs during WG1's GEMMs (FA3 Figure 1): done at 8.
    const Fa3Timeline pp = fa3_timeline(unit, kPingpong, c, 2);
    CHECK(pp.total_s == 8);
    const auto s = by_key(pp);
    CHECK(s.at({Fa3Op::softmax, 0, 0}).start_s == 1);
    CHECK(s.at({Fa3Op::gemm0, 1, 0}).start_s == 1);  // tensor cores busy with WG1 while WG0 exponentiates
    CHECK(s.at({Fa3Op::gemm1, 1, 0}).start_s == 4);
    CHECK(s.at({Fa3Op::gemm1, 1, 1}).end_s == 8);
    CHECK(s.at({Fa3Op::gemm0, 0, 0}).unit_share == 1.0);
    CHECK(fa3_timeline(unit, kBoth, c, 2).total_s == 8);
    for (const auto* t : {&seq, &intra, &pp}) check_timeline(*t, c, 2);
}

TEST_CASE("fa3 timelines keep every invariant and reach the closed-form steady state -- overlap is never slower") {
    std::mt19937_64 rng(test::next_seed());
    std::uniform_real_distribution<double> op(0.05, 2.0);
    for (int trial = 0; trial < 60; ++trial) {
        const std::size_t W = 2 + trial % 3, stages = 2 + trial % 2;
        const Fa3Config c = config_with(W, stages);
        // Loads: none, hidden under compute, or the bottleneck (every third kind of trial).
        const double load_scale = trial % 3 == 0 ? 0.0 : trial % 3 == 1 ? 0.2 : 8.0;
        const Fa3OpTimes times{load_scale * op(rng), load_scale * op(rng), op(rng), op(rng), op(rng)};
        INFO("trial " << trial << " W=" << W << " stages=" << stages << " times " << times.load_k_s << " "
                      << times.load_v_s << " " << times.gemm0_s << " " << times.softmax_s << " " << times.gemm1_s);
        double sequential_total = 0, sequential_steady = 0;
        for (Fa3Schedule s : kSchedules) {
            INFO("intra=" << s.intra_warpgroup_overlap << " pingpong=" << s.pingpong);
            const Fa3Timeline shortrun = fa3_timeline(times, s, c, 9);
            check_timeline(shortrun, c, 9);
            const Fa3Timeline longrun = fa3_timeline(times, s, c, 400);
            const double closed_form = fa3_steady_iteration_s(times, s, W);
            // Exact in every regime but one seen so far: with W = 3 ping-pong the simulation can settle
            // up to ~0.03% below the closed form (rare draws; an open question in the model), hence 1e-3.
            CHECK(longrun.steady_iteration_s == doctest::Approx(closed_form).epsilon(1e-3));
            if (!s.intra_warpgroup_overlap && !s.pingpong) {
                sequential_total = shortrun.total_s;
                sequential_steady = closed_form;
            }
            // Overlap never slows the steady state. Whole runs too, unless loads are the bottleneck:
            // then strict turn-taking can leave a GEMM1 queued behind another warpgroup's GEMM0 that
            // waits for the last K block, and the run ends a little later (see fa3_pipeline.hpp).
            CHECK(closed_form <= sequential_steady);
            CHECK(longrun.steady_iteration_s <= sequential_steady * (1 + 1e-9));
            if (load_scale < 1) CHECK(shortrun.total_s <= sequential_total * (1 + 1e-12));
        }
    }
}

TEST_CASE("fa3 compare on the H100 preset: speedups over the sequential schedule") {
    const Fa3Comparison cmp = fa3_compare(gpu_preset("h100-sxm"), Fa3Config{}, 64);
    const auto& t = cmp.times;
    const double P = t.gemm0_s + t.gemm1_s, S = t.softmax_s;
    REQUIRE(S < P);  // FP16 on H100: the tensor cores, not the exponentials, bound the overlapped schedules
    CHECK(cmp.schedules[0].steady_speedup == 1.0);
    CHECK(cmp.schedules[1].steady_speedup == doctest::Approx((t.gemm0_s + S + t.gemm1_s) / (t.gemm0_s + std::max(t.gemm1_s, S))));
    CHECK(cmp.schedules[2].steady_speedup == doctest::Approx((P + S) / P));
    CHECK(cmp.schedules[3].steady_speedup == doctest::Approx((P + S) / P));
    for (const auto& r : cmp.schedules) {
        check_timeline(r.timeline, Fa3Config{}, 64);
        CHECK(r.speedup >= 1.0);
        CHECK(r.timeline.steady_iteration_s == doctest::Approx(r.closed_form_iteration_s).epsilon(1e-9));
    }
    // FP8 doubles the tensor rate but not the exponential rate, so hiding the softmax matters more.
    Fa3Config fp8;
    fp8.precision = Fa3Precision::fp8;
    const Fa3Comparison cmp8 = fa3_compare(gpu_preset("h100-sxm"), fp8, 64);
    CHECK(cmp8.schedules[3].steady_speedup > cmp.schedules[3].steady_speedup);
}

TEST_CASE("fa3 model rejects bad arguments with a message naming them") {
    const Fa3OpTimes ok{0.1, 0.1, 1, 1, 1};
    CHECK_THROWS_WITH_AS(fa3_timeline(ok, kPingpong, config_with(1, 2), 4), doctest::Contains("consumer_warpgroups"), Error);
    CHECK_THROWS_WITH_AS(fa3_steady_iteration_s(ok, kBoth, 1), doctest::Contains("consumer_warpgroups"), Error);
    CHECK_THROWS_WITH_AS(fa3_timeline(ok, kSequential, Fa3Config{}, 0), doctest::Contains("iterations"), Error);
    CHECK_THROWS_WITH_AS(fa3_timeline(ok, kSequential, Fa3Config{}, 4097), doctest::Contains("iterations"), Error);
    CHECK_THROWS_WITH_AS(fa3_timeline({0.1, 0.1, -1, 1, 1}, kSequential, Fa3Config{}, 4), doctest::Contains("gemm0_s"), Error);
    CHECK_THROWS_WITH_AS(fa3_timeline({0.1, 0.1, 1, NAN, 1}, kSequential, Fa3Config{}, 4), doctest::Contains("softmax_s"), Error);
    CHECK_THROWS_WITH_AS(fa3_timeline(ok, kSequential, config_with(2, 0), 4), doctest::Contains("config.stages"), Error);
    CHECK_THROWS_WITH_AS(fa3_timeline(ok, kSequential, config_with(5, 2), 4), doctest::Contains("config.consumer_warpgroups"), Error);
    Fa3Config bad;
    bad.head_dim = 4;
    CHECK_THROWS_WITH_AS(fa3_rates(gpu_preset("h100-sxm"), bad), doctest::Contains("config.head_dim"), Error);
    bad = Fa3Config{};
    bad.block_k = 0;
    CHECK_THROWS_WITH_AS(fa3_rates(gpu_preset("h100-sxm"), bad), doctest::Contains("config.block_k"), Error);
    bad = Fa3Config{};
    bad.precision = Fa3Precision::fp8;
    // The A100 has no FP8 tensor cores (its preset's fp8_flops is 0).
    CHECK_THROWS_WITH_AS(fa3_rates(gpu_preset("a100-sxm-80gb"), bad), doctest::Contains("gpu.fp8_flops"), Error);
    CHECK_THROWS_WITH_AS(fa3_op_times({0, 1, 1, 1}, Fa3Config{}), doctest::Contains("rates.tensor_flops_per_s"), Error);
    // No published SM count for the H200; an architecture without a known compute capability.
    CHECK_THROWS_WITH_AS(fa3_rates(gpu_preset("h200-sxm"), Fa3Config{}), doctest::Contains("not published"), Error);
    GpuPreset odd = gpu_preset("h100-sxm");
    odd.architecture = "Future (sm_999)";
    CHECK_THROWS_WITH_AS(fa3_rates(odd, Fa3Config{}), doctest::Contains("gpu.architecture"), Error);
    // Ada's tensor-core rate per clock is not one the model takes on trust.
    CHECK_THROWS_WITH_AS(fa3_rates(gpu_preset("l40s"), Fa3Config{}), doctest::Contains("(sm_70, 75, 80, 90)"), Error);
    CHECK(fa3_unit_name(Fa3Unit::special_functions) == "special_functions");
    CHECK(fa3_op_name(Fa3Op::load_v) == "load_v");
}
