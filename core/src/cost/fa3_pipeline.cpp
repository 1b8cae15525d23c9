#include "attn/cost/fa3_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "attn/error.hpp"

namespace attn::cost {
namespace {

std::string str(std::size_t n) { return std::to_string(n); }

void require_in(const char* name, std::size_t value, std::size_t lo, std::size_t hi) {
    if (value < lo || value > hi) {
        throw Error(std::string(name) + ": must be in [" + str(lo) + ", " + str(hi) + "], got " + str(value));
    }
}

void validate(const Fa3Config& c) {
    if (c.precision != Fa3Precision::fp16 && c.precision != Fa3Precision::fp8) {
        throw Error("config.precision: must be fp16 or fp8");
    }
    require_in("config.head_dim", c.head_dim, 8, 512);
    require_in("config.rows_per_warpgroup", c.rows_per_warpgroup, 1, 512);
    require_in("config.block_k", c.block_k, 1, 1024);
    require_in("config.consumer_warpgroups", c.consumer_warpgroups, 1, 4);
    require_in("config.stages", c.stages, 1, 8);
    require_in("config.q_len", c.q_len, 1, std::size_t{1} << 24);
}

double positive(const Sourced& s, const char* field, const GpuPreset& gpu) {
    if (std::isnan(s.value)) {
        throw Error(std::string("gpu.") + field + ": not published for preset '" + std::string(gpu.id) + "' (" +
                    std::string(s.source) + "); the FA3 model needs it");
    }
    if (!(std::isfinite(s.value) && s.value > 0)) {
        throw Error(std::string("gpu.") + field + ": must be a finite number > 0 for the FA3 model, got " +
                    std::to_string(s.value) + " for preset '" + std::string(gpu.id) + "'");
    }
    return s.value;
}

// Dense FP16 tensor-core FLOPs per clock per SM by compute capability: Volta and Turing have 8
// Tensor Cores per SM of 64 FMA per clock (Volta and Turing whitepapers), Ampere 4 of 256 (A100
// whitepaper), Hopper twice Ampere's per SM, clock for clock (H100 whitepaper). The preset's
// tensor-core peak divided by SM count and this rate gives the clock that peak is quoted at:
// 1,830 MHz for the H100 SXM5, the clock FlashAttention-3 fixes its GPU at and computes its
// 989 TFLOPS from (FA3 Appendix C.1), below the 1,980 MHz boost clock of the FP32 units. The
// exponentials of a tensor-core kernel run at that clock. Other architectures (Ada, Blackwell) are
// left out rather than guessed: FlashAttention-3 runs on Hopper only.
double fp16_tensor_flops_per_clock_per_sm(const GpuPreset& gpu) {
    const std::string_view arch = gpu.architecture;
    const std::size_t at = arch.find("sm_");
    int cc = -1;
    if (at != std::string_view::npos) {
        cc = 0;
        std::size_t i = at + 3;
        for (; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i) cc = cc * 10 + (arch[i] - '0');
        if (i == at + 3) cc = -1;
    }
    switch (cc) {
        case 70: case 75: return 1024;
        case 80: return 2048;
        case 90: return 4096;
        default:
            throw Error("gpu.architecture: '" + std::string(arch) + "' of preset '" + std::string(gpu.id) +
                        "' names no compute capability whose tensor-core rate per clock the FA3 model knows "
                        "(sm_70, 75, 80, 90)");
    }
}

// The CUDA C++ Programming Guide's table of arithmetic-instruction throughput gives 16
// special-function results (exp2, rcp, ...) per clock per SM for each of these capabilities.
constexpr double kSpecialFunctionsPerClockPerSm = 16;

double element_bytes(Fa3Precision p) { return p == Fa3Precision::fp8 ? 1.0 : 2.0; }

void require_duration(const char* name, double t) {
    if (!(std::isfinite(t) && t >= 0)) {
        throw Error(std::string("times.") + name + ": must be a finite number >= 0, got " + std::to_string(t));
    }
}

void validate(const Fa3OpTimes& t) {
    require_duration("load_k_s", t.load_k_s);
    require_duration("load_v_s", t.load_v_s);
    require_duration("gemm0_s", t.gemm0_s);
    require_duration("softmax_s", t.softmax_s);
    require_duration("gemm1_s", t.gemm1_s);
}

struct Node {
    Fa3Unit unit;
    Fa3Op op;
    int warpgroup;  // simulated consumer index; -1 producer
    std::size_t iteration;
    double duration_s;
    std::vector<std::size_t> deps;
    double start_s = 0, end_s = 0;
    bool done = false;
};

}  // namespace

Fa3Rates fa3_rates(const GpuPreset& gpu, const Fa3Config& config) {
    validate(config);
    const double sms = positive(gpu.sm_count, "sm_count", gpu);
    if (std::floor(sms) != sms) throw Error("gpu.sm_count: must be an integer, got " + std::to_string(sms));
    const double tensor = config.precision == Fa3Precision::fp8 ? positive(gpu.fp8_flops, "fp8_flops", gpu)
                                                                 : positive(gpu.fp16_flops, "fp16_flops", gpu);
    const double clock_hz = positive(gpu.fp16_flops, "fp16_flops", gpu) / (sms * fp16_tensor_flops_per_clock_per_sm(gpu));
    const double ctas_per_head = std::ceil(static_cast<double>(config.q_len) /
                                           static_cast<double>(config.consumer_warpgroups * config.rows_per_warpgroup));
    const double kv_readers = std::min(ctas_per_head, sms);
    return {tensor / sms, kSpecialFunctionsPerClockPerSm * clock_hz,
            positive(gpu.hbm_bytes_per_s, "hbm_bytes_per_s", gpu) / sms * kv_readers, kv_readers, clock_hz};
}

Fa3OpTimes fa3_op_times(const Fa3Rates& rates, const Fa3Config& config) {
    validate(config);
    for (auto [name, v] : {std::pair{"rates.tensor_flops_per_s", rates.tensor_flops_per_s},
                           std::pair{"rates.exp_per_s", rates.exp_per_s},
                           std::pair{"rates.load_bytes_per_s", rates.load_bytes_per_s}}) {
        if (!(std::isfinite(v) && v > 0)) throw Error(std::string(name) + ": must be a finite number > 0");
    }
    const double rows = static_cast<double>(config.rows_per_warpgroup);
    const double bc = static_cast<double>(config.block_k);
    const double d = static_cast<double>(config.head_dim);
    const double load_s = bc * d * element_bytes(config.precision) / rates.load_bytes_per_s;
    const double gemm_s = 2 * rows * bc * d / rates.tensor_flops_per_s;
    return {load_s, load_s, gemm_s, rows * bc / rates.exp_per_s, gemm_s};
}

Fa3Timeline fa3_timeline(const Fa3OpTimes& times, Fa3Schedule schedule, const Fa3Config& config,
                         std::size_t iterations) {
    validate(config);
    validate(times);
    require_in("iterations", iterations, 1, 4096);
    const std::size_t W = config.consumer_warpgroups;
    if (schedule.pingpong && W < 2) {
        throw Error("config.consumer_warpgroups: ping-pong scheduling needs at least 2 consumer warpgroups, got 1");
    }
    // Without ping-pong the consumers run in lockstep: simulate one consumer whose ops take W
    // times as long (each warpgroup gets 1/W of the unit), then report one segment per warpgroup.
    const bool lockstep = !schedule.pingpong;
    const std::size_t C = lockstep ? 1 : W;
    const double stretch = lockstep ? static_cast<double>(W) : 1.0;
    const std::size_t n = iterations, s = config.stages;

    std::vector<Node> nodes;
    auto add = [&](Fa3Unit u, Fa3Op op, int wg, std::size_t j, double d) {
        nodes.push_back({u, op, wg, j, d, {}});
        return nodes.size() - 1;
    };
    std::vector<std::size_t> lk(n), lv(n);
    for (std::size_t j = 0; j < n; ++j) {
        lk[j] = add(Fa3Unit::tma, Fa3Op::load_k, -1, j, times.load_k_s);
        lv[j] = add(Fa3Unit::tma, Fa3Op::load_v, -1, j, times.load_v_s);
    }
    std::vector<std::vector<std::size_t>> g0(C, std::vector<std::size_t>(n)), sm(g0), g1(g0);
    for (std::size_t c = 0; c < C; ++c) {
        for (std::size_t j = 0; j < n; ++j) {
            const int wg = static_cast<int>(c);
            g0[c][j] = add(Fa3Unit::tensor_cores, Fa3Op::gemm0, wg, j, times.gemm0_s * stretch);
            sm[c][j] = add(Fa3Unit::special_functions, Fa3Op::softmax, wg, j, times.softmax_s * stretch);
            g1[c][j] = add(Fa3Unit::tensor_cores, Fa3Op::gemm1, wg, j, times.gemm1_s * stretch);
        }
    }

    // Dependencies. Buffers (Algorithm 1 lines 6-9, Algorithm 2 line 15): stage j % s of K is free
    // once every consumer's GEMM0 of key block j - s is done; V likewise with GEMM1.
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t c = 0; c < C; ++c) {
            if (j >= s) {
                nodes[lk[j]].deps.push_back(g0[c][j - s]);
                nodes[lv[j]].deps.push_back(g1[c][j - s]);
            }
            nodes[g0[c][j]].deps.push_back(lk[j]);
            nodes[sm[c][j]].deps.push_back(g0[c][j]);
            nodes[g1[c][j]].deps.push_back(sm[c][j]);
            nodes[g1[c][j]].deps.push_back(lv[j]);
            if (schedule.intra_warpgroup_overlap) {
                // Algorithm 2: GEMM0_j is issued after softmax_j-1 and after waiting for GEMM1_j-2.
                if (j >= 1) nodes[g0[c][j]].deps.push_back(sm[c][j - 1]);
                if (j >= 2) nodes[g0[c][j]].deps.push_back(g1[c][j - 2]);
            } else if (j >= 1) {
                // Algorithm 1: "commit and wait" on every GEMM, so GEMM0_j follows GEMM1_j-1.
                nodes[g0[c][j]].deps.push_back(g1[c][j - 1]);
            }
        }
    }

    // Issue order on each unit. Tensor cores: GEMM groups, consumers taking turns per group
    // (ping-pong; a single lockstep consumer otherwise). Without intra overlap a group is
    // (GEMM1_j-1, GEMM0_j) as in Figure 1; with it, (GEMM0_j, GEMM1_j-1) as in Algorithm 2.
    std::array<std::vector<std::size_t>, 3> queue;
    auto& tma_q = queue[static_cast<int>(Fa3Unit::tma)];
    auto& tc_q = queue[static_cast<int>(Fa3Unit::tensor_cores)];
    auto& sfu_q = queue[static_cast<int>(Fa3Unit::special_functions)];
    for (std::size_t j = 0; j < n; ++j) {
        tma_q.push_back(lk[j]);
        tma_q.push_back(lv[j]);
    }
    for (std::size_t t = 0; t <= n; ++t) {
        for (std::size_t c = 0; c < C; ++c) {
            if (t == 0) {
                tc_q.push_back(g0[c][0]);
            } else if (t == n) {
                tc_q.push_back(g1[c][n - 1]);
            } else if (schedule.intra_warpgroup_overlap) {
                tc_q.push_back(g0[c][t]);
                tc_q.push_back(g1[c][t - 1]);
            } else {
                tc_q.push_back(g1[c][t - 1]);
                tc_q.push_back(g0[c][t]);
            }
        }
    }
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t c = 0; c < C; ++c) sfu_q.push_back(sm[c][j]);
    }

    // Each unit runs its queue in order; an op starts when the unit is free and its inputs are done.
    std::array<std::size_t, 3> head{};
    std::array<double, 3> unit_free{};
    std::size_t remaining = nodes.size();
    while (remaining > 0) {
        bool progress = false;
        for (std::size_t u = 0; u < 3; ++u) {
            while (head[u] < queue[u].size()) {
                Node& node = nodes[queue[u][head[u]]];
                double ready = unit_free[u];
                bool inputs_done = true;
                for (std::size_t dep : node.deps) {
                    inputs_done = inputs_done && nodes[dep].done;
                    ready = std::max(ready, nodes[dep].end_s);
                }
                if (!inputs_done) break;
                node.start_s = ready;
                node.end_s = ready + node.duration_s;
                node.done = true;
                unit_free[u] = node.end_s;
                ++head[u];
                --remaining;
                progress = true;
            }
        }
        if (!progress) throw std::logic_error("fa3_timeline: issue orders contradict the dependencies");
    }

    Fa3Timeline out{schedule, {}, 0.0, 0.0};
    for (const Node& node : nodes) {
        out.total_s = std::max(out.total_s, node.end_s);
        const std::size_t copies = node.warpgroup >= 0 && lockstep ? W : 1;
        for (std::size_t w = 0; w < copies; ++w) {
            const int wg = node.warpgroup < 0 ? -1 : (lockstep ? static_cast<int>(w) : node.warpgroup);
            out.segments.push_back({node.unit, node.op, wg, node.iteration, node.start_s, node.end_s,
                                    node.warpgroup >= 0 ? 1.0 / stretch : 1.0});
        }
    }
    // Steady state: between the starts of consumer 0's GEMM0 of two key blocks every unit has done
    // whole iterations' work (the last block's GEMM1 has no GEMM0 after it, so end times would not).
    // The window is the second half of the run, cut to a whole number of periods: the schedule can
    // repeat every two blocks, or every W with W warpgroups taking turns, so lcm(2, W).
    if (n < 3) {
        out.steady_iteration_s = out.total_s / static_cast<double>(n);
    } else {
        std::size_t span = (n - 1) / 2;
        const std::size_t period = std::lcm(std::size_t{2}, W);
        if (span >= period) span -= span % period;  // a repeating pattern then averages exactly
        out.steady_iteration_s =
            (nodes[g0[0][n - 1]].start_s - nodes[g0[0][n - 1 - span]].start_s) / static_cast<double>(span);
    }
    return out;
}

double fa3_steady_iteration_s(const Fa3OpTimes& times, Fa3Schedule schedule, std::size_t consumer_warpgroups) {
    validate(times);
    require_in("consumer_warpgroups", consumer_warpgroups, 1, 4);
    if (schedule.pingpong && consumer_warpgroups < 2) {
        throw Error("consumer_warpgroups: ping-pong scheduling needs at least 2 consumer warpgroups, got 1");
    }
    const double W = static_cast<double>(consumer_warpgroups);
    const double g0 = times.gemm0_s, g1 = times.gemm1_s, sm = times.softmax_s;
    double compute;
    if (schedule.pingpong) compute = W * std::max(g0 + g1, sm);
    else if (schedule.intra_warpgroup_overlap) compute = W * (g0 + std::max(g1, sm));
    else compute = W * (g0 + sm + g1);
    return std::max(compute, times.load_k_s + times.load_v_s);
}

Fa3Comparison fa3_compare(const GpuPreset& gpu, const Fa3Config& config, std::size_t iterations) {
    Fa3Comparison out{};
    out.rates = fa3_rates(gpu, config);
    out.times = fa3_op_times(out.rates, config);
    const Fa3Schedule schedules[4] = {{false, false}, {true, false}, {false, true}, {true, true}};
    for (std::size_t i = 0; i < 4; ++i) {
        auto& r = out.schedules[i];
        r.timeline = fa3_timeline(out.times, schedules[i], config, iterations);
        r.closed_form_iteration_s = fa3_steady_iteration_s(out.times, schedules[i], config.consumer_warpgroups);
        r.speedup = out.schedules[0].timeline.total_s / r.timeline.total_s;
        r.steady_speedup = out.schedules[0].closed_form_iteration_s / r.closed_form_iteration_s;
    }
    return out;
}

std::string_view fa3_unit_name(Fa3Unit unit) {
    switch (unit) {
        case Fa3Unit::tma: return "tma";
        case Fa3Unit::tensor_cores: return "tensor_cores";
        case Fa3Unit::special_functions: return "special_functions";
    }
    throw Error("unit: not an Fa3Unit");
}

std::string_view fa3_op_name(Fa3Op op) {
    switch (op) {
        case Fa3Op::load_k: return "load_k";
        case Fa3Op::load_v: return "load_v";
        case Fa3Op::gemm0: return "gemm0";
        case Fa3Op::softmax: return "softmax";
        case Fa3Op::gemm1: return "gemm1";
    }
    throw Error("op: not an Fa3Op");
}

}  // namespace attn::cost
