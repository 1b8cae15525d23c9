#include "cpu_benchmarks.hpp"

#include <cblas.h>

#include <map>
#include <memory>
#include <tuple>

#include "alloc_counter.hpp"

namespace attn::bench {
namespace {

// Each (implementation, head_dim, causal) is checked once, before its first timed run.
const CheckResult& checked(const Implementation& impl, std::size_t d, Causal causal) {
    static std::map<std::tuple<std::string, std::size_t, Causal>, CheckResult> done;
    const auto key = std::make_tuple(impl.name, d, causal);
    auto it = done.find(key);
    if (it == done.end()) it = done.emplace(key, check_against_reference(impl, d, causal)).first;
    return it->second;
}

void attention_benchmark(benchmark::State& state, const Implementation& impl, const Problem& p) {
    const CheckResult& check = checked(impl, p.head_dim, p.causal);
    if (!check.passed) {
        state.SkipWithError(("correctness check failed: max |error| " + std::to_string(check.max_abs_error) +
                             " > tolerance on " + check.problem)
                                .c_str());
        return;
    }
    const Inputs in = make_inputs(p, 42);
    const std::size_t before = heap_bytes_in_use();
    reset_heap_peak();
    for (auto _ : state) benchmark::DoNotOptimize(impl.forward(in.q, in.k, in.v, p.causal));
    set_attention_counters(state, p, impl.modelled_bytes(p), static_cast<double>(heap_bytes_peak() - before),
                           check.max_abs_error);
}

// C[m x n] = A[m x k] B[k x n] in FP32, B stored transposed when `b_transposed` (QK^T's layout).
void sgemm_benchmark(benchmark::State& state, std::size_t m, std::size_t n, std::size_t k, bool b_transposed) {
    std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n);
    const auto M = static_cast<blasint>(m), N = static_cast<blasint>(n), K = static_cast<blasint>(k);
    for (auto _ : state) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, b_transposed ? CblasTrans : CblasNoTrans, M, N, K, 1.0f, a.data(), K,
                    b.data(), b_transposed ? K : N, 0.0f, c.data(), N);
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    state.counters["FLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(m * n * k),
                                                  benchmark::Counter::kIsIterationInvariantRate);
    state.counters["N"] = static_cast<double>(n);
    state.counters["d"] = static_cast<double>(k);
}

}  // namespace

void set_attention_counters(benchmark::State& state, const Problem& p, double modelled_bytes, double peak_heap_bytes,
                            double check_error) {
    using benchmark::Counter;
    state.counters["FLOP/s"] = Counter(p.convention_flops(), Counter::kIsIterationInvariantRate);
    state.counters["bytes/s"] = Counter(modelled_bytes, Counter::kIsIterationInvariantRate);
    state.counters["peak_heap_bytes"] = Counter(peak_heap_bytes, Counter::kDefaults, Counter::kIs1024);
    state.counters["check_error"] = check_error;
    state.counters["N"] = static_cast<double>(p.seq);
    state.counters["d"] = static_cast<double>(p.head_dim);
    state.counters["causal"] = p.causal == Causal::none ? 0.0 : 1.0;
    state.counters["batch"] = static_cast<double>(p.batch);
    state.counters["heads"] = static_cast<double>(p.heads);
}

std::vector<Problem> register_cpu_benchmarks() {
    // Benchmarks run in registration order. The machine may be shared, so the runs a ratio compares
    // are registered next to each other: for each size, every implementation, then the sgemm of the
    // same shape -- a change of background load then hits both sides of a ratio alike.
    std::vector<std::shared_ptr<const Implementation>> impls;
    for (Implementation& impl : cpu_implementations()) impls.push_back(std::make_shared<const Implementation>(std::move(impl)));
    std::vector<Problem> problems;
    for (std::size_t n : kCpuSeqLens) {
        for (std::size_t d : kHeadDims) {
            for (Causal causal : {Causal::none, Causal::top_left}) {
                Problem p;
                p.seq = n;
                p.head_dim = d;
                p.causal = causal;
                problems.push_back(p);
                for (const auto& impl : impls) {
                    // The readable version is ~50x slower: two small sizes show the gap within the time budget.
                    if (impl->name == "flash_readable" && (n > 1024 || d != 64 || causal != Causal::none)) continue;
                    const std::string name = "cpu/" + impl->name + "/N:" + std::to_string(n) + "/d:" + std::to_string(d) +
                                             "/causal:" + (causal == Causal::none ? "0" : "1");
                    benchmark::RegisterBenchmark(name.c_str(), [impl, p](benchmark::State& s) {
                        attention_benchmark(s, *impl, p);
                    })->UseRealTime()->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
                }
            }
            const std::string gemm = "cpu/sgemm_qk/N:" + std::to_string(n) + "/d:" + std::to_string(d);
            benchmark::RegisterBenchmark(gemm.c_str(), [n, d](benchmark::State& s) { sgemm_benchmark(s, n, n, d, true); })
                ->UseRealTime()->Unit(benchmark::kMillisecond);
        }
    }
    // Right after the largest attention runs: the ceiling the largest flash run is compared with.
    const std::string square = "cpu/sgemm_square/N:" + std::to_string(kSquareGemm);
    benchmark::RegisterBenchmark(square.c_str(), [](benchmark::State& s) {
        sgemm_benchmark(s, kSquareGemm, kSquareGemm, kSquareGemm, false);
    })->UseRealTime()->Unit(benchmark::kMillisecond);
    return problems;
}

}  // namespace attn::bench
