#pragma once
// Registers the CPU benchmarks: every implementation of cpu_implementations() over the sweep, and
// OpenBLAS sgemm -- the machine's practical FLOP ceiling -- on attention-shaped and square products.
#include <vector>

#include "bench_support.hpp"

namespace attn::bench {

inline constexpr std::size_t kCpuSeqLens[] = {512, 1024, 2048, 4096};
inline constexpr std::size_t kHeadDims[] = {64, 128};
inline constexpr std::size_t kSquareGemm = 2048;

// Registers the benchmarks and returns the attention problems they run (for the model's predictions).
std::vector<Problem> register_cpu_benchmarks();

// Sets the counters every attention benchmark reports.
void set_attention_counters(benchmark::State& state, const Problem& p, double modelled_bytes, double peak_heap_bytes,
                            double check_error);

}  // namespace attn::bench
