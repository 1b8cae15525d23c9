// CPU timings of the dense reference and the tiled algorithm on the same inputs, one head.
// Both are the readable, single-threaded versions from core/ (the optimised CPU path and the CUDA
// kernels are separate drivers); the counters report each run's modelled HBM traffic, so the
// table shows what tiling changes -- bytes moved -- next to what it costs on a CPU.
#include <benchmark/benchmark.h>

#include "attn/attention/flash_forward.hpp"
#include "attn/attention/sdpa.hpp"
#include "attn/random.hpp"

namespace {

struct Inputs {
    attn::Tensor4<float> q, k, v;
};

Inputs make_inputs(std::size_t n, std::size_t d) {
    const attn::Shape4 s{1, 1, n, d};
    return {attn::tensor_cast<float>(attn::random_normal(s, 1)), attn::tensor_cast<float>(attn::random_normal(s, 2)),
            attn::tensor_cast<float>(attn::random_normal(s, 3))};
}

void report_flops(benchmark::State& state, std::size_t n, std::size_t d) {
    // 4 n^2 d: two matrix products of n x n x d multiply-adds (FlashAttention-3's count, non-causal).
    state.counters["FLOP/s"] = benchmark::Counter(4.0 * static_cast<double>(n * n * d),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

void BM_sdpa_reference(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0)), d = static_cast<std::size_t>(state.range(1));
    const Inputs in = make_inputs(n, d);
    for (auto _ : state) benchmark::DoNotOptimize(attn::sdpa(in.q, in.k, in.v));
    report_flops(state, n, d);
}

void BM_flash_forward(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0)), d = static_cast<std::size_t>(state.range(1));
    const Inputs in = make_inputs(n, d);
    attn::FlashOptions o;
    o.block_q = o.block_k = 64;
    attn::FlashStats stats;
    for (auto _ : state) {
        auto r = attn::flash_forward(in.q, in.k, in.v, o);
        stats = r.stats;
        benchmark::DoNotOptimize(r);
    }
    report_flops(state, n, d);
    state.counters["hbm_bytes_read"] = static_cast<double>(stats.hbm_bytes_read);
    state.counters["hbm_bytes_written"] = static_cast<double>(stats.hbm_bytes_written);
}

void sizes(benchmark::internal::Benchmark* b) {
    for (int n : {256, 512, 1024, 2048}) b->Args({n, 64});
    b->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK(BM_sdpa_reference)->Apply(sizes);
BENCHMARK(BM_flash_forward)->Apply(sizes);
BENCHMARK_MAIN();
