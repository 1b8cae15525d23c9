#pragma once
// A timing model of FlashAttention-3's forward main loop on one SM (Shah et al. 2024,
// "FlashAttention-3", arXiv:2407.08608, §3.1-3.2, Figures 1-2, Algorithms 1-2).
//
// One thread block (CTA) per SM: a producer warpgroup issues TMA loads of K_j and V_j into
// `stages`-deep circular shared-memory buffers (one for K, one for V, each stage released when the
// GEMM that reads it finishes); W consumer warpgroups each own `rows_per_warpgroup` query rows and,
// for every key block j, run GEMM0 (S = Q K_j^T), softmax (exponentials of S) and GEMM1 (O += P V_j).
//
// Three hardware units, each serving one operation at a time at the SM's full rate:
//   tma                -- loads; rate = the SM's share of HBM bandwidth times `kv_readers` (the
//                         CTAs of one head reading each K/V tile together: one HBM read, the rest
//                         L2 hits)
//   tensor_cores       -- GEMMs; rate = the GPU's dense tensor-core FLOP/s / SM count
//   special_functions  -- exponentials; rate = 16 per SM per clock (CUDA C++ Programming Guide,
//                         throughput of native arithmetic instructions; FA3 §3.1 footnote 5) at the
//                         clock the tensor-core peak is quoted at (1,830 MHz on the H100 SXM5)
// Softmax time counts the exponentials only (FA3 §3.1: the exponential is the bottleneck -- 512x
// fewer operations than the matmuls at head dim 128 but 256x lower throughput on H100 SXM5).
//
// Schedules (FA3 §3.1 "Pingpong scheduling", §3.2 "Intra-warpgroup overlapping"):
//   sequential    each consumer waits for every op: GEMM0_j -> softmax_j -> GEMM1_j -> GEMM0_j+1.
//                 Without barriers the W consumers run the same program on the same schedule, so
//                 they reach each GEMM and each softmax together and split the unit between them
//                 (segments with unit_share = 1/W) -- the contention ping-pong removes.
//   intra overlap Algorithm 2: GEMM0_j+1 and GEMM1_j are issued back to back and softmax_j+1 runs
//                 while GEMM1_j does.
//   ping-pong     named barriers make the consumers take the tensor cores in turn, one GEMM group
//                 (GEMM1 of one iteration + GEMM0 of the next) at a time (Figure 1), so one
//                 warpgroup's softmax runs during another's GEMMs.
// Not modelled: the Q load and the epilogue, latencies, register pressure, the non-exponential
// softmax instructions.
//
// Overlap never lengthens the steady state. When loads are the bottleneck a short run can still end
// slightly later with ping-pong than without: turn-taking is strict, so a warpgroup's GEMM1 for
// block j-1 queues behind another warpgroup's GEMM0 for block j, which waits for K_j.
#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

#include "attn/cost/gpu_presets.hpp"

namespace attn::cost {

enum class Fa3Precision { fp16, fp8 };

struct Fa3Config {
    Fa3Precision precision = Fa3Precision::fp16;  // fp16: 2-byte operands; fp8: 1-byte e4m3
    std::size_t head_dim = 128;                   // d (also the value width), in [8, 512]
    std::size_t rows_per_warpgroup = 64;          // query rows per consumer warpgroup, in [1, 512]
    std::size_t block_k = 128;                    // Bc, keys per K/V block, in [1, 1024]
    std::size_t consumer_warpgroups = 2;          // W, in [1, 4]; ping-pong needs W >= 2
    std::size_t stages = 2;                       // circular buffer depth for K and for V, in [1, 8]
    std::size_t q_len = 8448;                     // queries per head (FA3 Table 2: seqlen 8448), >= 1
};

// One SM's rates. `kv_readers` = min(ceil(q_len / (W * rows_per_warpgroup)), SM count): the CTAs of a
// head run together (their grid indices are consecutive) and share each K/V tile through L2.
// `clock_hz` is the SM clock the special-function rate assumes (see fa3_rates).
struct Fa3Rates {
    double tensor_flops_per_s;
    double exp_per_s;
    double load_bytes_per_s;
    double kv_readers;
    double clock_hz = 0;
};

// Per-SM rates from a preset. The SM clock is fp16_flops / (SM count * dense FP16 tensor FLOPs per
// clock per SM), with the rate of the preset's compute capability (parsed from "sm_XX" in its
// architecture string; known for sm_70, 75, 80 and 90). Throws attn::Error for an unknown
// architecture, a non-positive preset number, FP8 on a GPU without FP8 tensor cores, or an invalid
// config.
Fa3Rates fa3_rates(const GpuPreset& gpu, const Fa3Config& config);

// Durations of one operation: loads of one K or V block, and one consumer warpgroup's GEMMs and
// softmax for one key block.
struct Fa3OpTimes {
    double load_k_s, load_v_s;  // block_k * head_dim * element bytes / load rate, each
    double gemm0_s;             // 2 * rows * block_k * head_dim FLOPs / tensor rate
    double softmax_s;           // rows * block_k exponentials / special-function rate
    double gemm1_s;             // 2 * rows * block_k * head_dim FLOPs / tensor rate
};
Fa3OpTimes fa3_op_times(const Fa3Rates& rates, const Fa3Config& config);

struct Fa3Schedule {
    bool intra_warpgroup_overlap = false;
    bool pingpong = false;
};

enum class Fa3Unit { tma, tensor_cores, special_functions };
enum class Fa3Op { load_k, load_v, gemm0, softmax, gemm1 };

struct Fa3Segment {
    Fa3Unit unit;
    Fa3Op op;
    int warpgroup;          // -1 for the producer, else the consumer index in [0, W)
    std::size_t iteration;  // key block j
    double start_s, end_s;
    double unit_share;      // fraction of the unit's rate this op has: 1, or 1/W in lockstep
};

struct Fa3Timeline {
    Fa3Schedule schedule;
    std::vector<Fa3Segment> segments;  // producer ops, then consumers' ops, each in issue order
    double total_s;                    // end of the last GEMM1
    double steady_iteration_s;         // time per key block over the second half of the run, between
                                       // GEMM0 starts (total_s / iterations for fewer than 3 blocks)
};

// Simulates `iterations` key blocks (in [1, 4096]) with the given per-op durations (finite, >= 0)
// and buffer/warpgroup counts from `config`. Throws attn::Error for invalid arguments, including
// ping-pong with a single consumer warpgroup.
Fa3Timeline fa3_timeline(const Fa3OpTimes& times, Fa3Schedule schedule, const Fa3Config& config,
                         std::size_t iterations);

// Closed-form steady-state time per key block when loads are not the bottleneck and stages >= 2,
// with P = gemm0 + gemm1 and softmax S per warpgroup:
//   sequential           W (gemm0 + S + gemm1)    every unit shared, nothing overlaps
//   intra overlap        W (gemm0 + max(gemm1, S)) softmax_j+1 hides under GEMM1_j
//   ping-pong, +/- intra W max(P, S)             the busier of tensor cores and SFU never idles
// and in every case at least load_k + load_v (the TMA unit's time per key block).
double fa3_steady_iteration_s(const Fa3OpTimes& times, Fa3Schedule schedule, std::size_t consumer_warpgroups);

struct Fa3ScheduleResult {
    Fa3Timeline timeline;
    double closed_form_iteration_s;  // fa3_steady_iteration_s
    double speedup;                  // sequential total_s / this total_s
    double steady_speedup;           // sequential closed form / this closed form
};

// The four schedules (sequential, intra overlap, ping-pong, both) on `gpu` for `config`; needs
// config.consumer_warpgroups >= 2 (ping-pong).
struct Fa3Comparison {
    Fa3Rates rates;
    Fa3OpTimes times;
    std::array<Fa3ScheduleResult, 4> schedules;
};
Fa3Comparison fa3_compare(const GpuPreset& gpu, const Fa3Config& config, std::size_t iterations);

std::string_view fa3_unit_name(Fa3Unit unit);  // "tma", "tensor_cores", "special_functions"
std::string_view fa3_op_name(Fa3Op op);        // "load_k", "load_v", "gemm0", "softmax", "gemm1"

}  // namespace attn::cost
