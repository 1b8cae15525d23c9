// The benchmark binary behind `make bench`: every attention implementation of the project on the
// CPU (and on the GPU when built with CUDA and a device is present), each checked against the
// double-precision reference before it is timed, then the ratios issue 4's targets are stated in.
//
//   bench_attention [Google Benchmark flags]   run (JSON via --benchmark_out=F --benchmark_out_format=json)
//   bench_attention --check                    only the correctness checks; exit status 1 if any fails
//   bench_attention --summary_out=F            also write the ratios, the decode bandwidth shares, the
//                                              approximate methods' times and crossovers, the GPU
//                                              decode table and the roofline model's predictions
//                                              for the same problems as JSON to F
//
// Counters: FLOP/s in FlashAttention's convention (4 B H N^2 d, halved when causal), bytes/s of
// modelled main-memory traffic (attn::cost), peak_heap_bytes allocated by one call, check_error
// (max |error| of the pre-run check), and N, d, causal, batch, heads. The CUDA benchmarks
// (cuda_benchmarks.hpp, cuda preset only) report peak_device_bytes instead of peak_heap_bytes,
// and roofline_percent when a roofline preset describes the GPU.
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "approx_benchmarks.hpp"
#include "bench_support.hpp"
#include "cpu_benchmarks.hpp"
#include "decode_benchmarks.hpp"
#include "gpu_decode_report.hpp"
#include "machine_context.hpp"
#include "run_collector.hpp"
#include "summary.hpp"
#include "vector_isa.hpp"
#if defined(ATTN_BENCH_CUDA)
#include "cuda_benchmarks.hpp"
#include "cuda_decode_benchmarks.hpp"
#endif

namespace {

using namespace attn;
using namespace attn::bench;

int run_checks() {
    bool all = true;
    std::cout << "Correctness against attn::sdpa in double (tolerance " << kCheckTolerance << "):\n";
    for (const Implementation& impl : cpu_implementations()) {
        for (std::size_t d : kHeadDims) {
            for (Causal c : {Causal::none, Causal::top_left, Causal::bottom_right}) {
                const CheckResult r = check_against_reference(impl, d, c);
                std::cout << "  " << (r.passed ? "ok  " : "FAIL") << "  " << r.implementation << "  " << r.problem
                          << "  max|error| = " << r.max_abs_error << "\n";
                all = all && r.passed;
            }
        }
    }
    all = run_decode_checks(std::cout) && all;
    all = run_approx_checks(std::cout) && all;
#if defined(ATTN_BENCH_CUDA)
    all = run_cuda_checks(std::cout) && all;
    all = run_cuda_decode_checks(std::cout) && all;
#endif
    return all ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    bool check_only = false;
    std::string summary_out;
    std::vector<char*> rest;
    for (int i = 0; i < argc; ++i) {
        if (std::strcmp(argv[i], "--check") == 0) {
            check_only = true;
        } else if (std::strncmp(argv[i], "--summary_out=", 14) == 0) {
            summary_out = argv[i] + 14;
        } else {
            rest.push_back(argv[i]);
        }
    }
    if (check_only) return run_checks();

    int rest_argc = static_cast<int>(rest.size());
    benchmark::Initialize(&rest_argc, rest.data());
    if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 1;
    add_machine_context();
    std::vector<Problem> problems = register_cpu_benchmarks();
    register_decode_benchmarks();
    register_approx_benchmarks();
#if defined(ATTN_BENCH_CUDA)
    // To stderr, like the ratios, so that stdout stays pure JSON under --benchmark_format=json.
    const std::vector<Problem> gpu_problems = register_cuda_benchmarks(std::cerr);
    problems.insert(problems.end(), gpu_problems.begin(), gpu_problems.end());
    register_cuda_decode_benchmarks(std::cerr);
#endif

    RunCollector collector(benchmark::CreateDefaultDisplayReporter());
    benchmark::RunSpecifiedBenchmarks(&collector);

    // The ratios go to stderr, so that stdout stays pure JSON under --benchmark_format=json.
    std::cerr << "\n== Ratios measured in this run (optimised paths compiled for " << compiled_vector_isa()
              << ", CPU offers " << host_vector_isa() << ") ==";
    const std::string ratios = report_ratios(collector.runs(), std::cerr);
    const std::string decode = report_decode_ratios(collector.runs(), std::cerr);
    const std::string approx = report_approx(collector.runs(), std::cerr);
    const std::string gpu_decode = report_gpu_decode(collector.runs(), std::cerr);
    if (!summary_out.empty()) {
        std::ofstream f(summary_out);
        f << "{\"ratios\":" << ratios << ",\"decode\":" << decode << ",\"approx\":" << approx << ",\"gpu_decode\":" << gpu_decode
          << ",\"predictions\":" << model_predictions(problems)
          << "}\n";
        if (!f) {
            std::cerr << "cannot write " << summary_out << "\n";
            return 1;
        }
    }
    benchmark::Shutdown();
    return 0;
}
