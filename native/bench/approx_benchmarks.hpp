#pragma once
// The price of approximation, measured (Part 2): wall time, peak heap and error of each
// approximate method (approx_blas.hpp) against exact attention, optimised flash (attn::flash_forward_fast)
// and standard attention on OpenBLAS, for one head of d = 64 at N = 1k ... 32k, all in one run:
//   cpu/approx_flash_fast, cpu/approx_standard_blas          the exact baselines
//   cpu/approx_<method>                                      performer, linformer, linear,
//                                                            sliding_window, lsh
// Each method is checked against the core's double-precision reference (attn/approx/) before its
// first timed run. Counters: N, d, causal (0), batch, heads, peak_heap_bytes, check_error, and
// rel_error: ||O - O_exact||_F / ||O_exact||_F on the timed inputs, O_exact from flash_fast (for
// LSH, exact shared-QK attention, the function it approximates).
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "run_collector.hpp"

namespace attn::bench {

inline constexpr std::size_t kApproxSeqLens[] = {1024, 2048, 4096, 8192, 16384, 32768};
inline constexpr std::size_t kApproxHeadDim = 64;

void register_approx_benchmarks();

// The pre-timing checks of every method (also run by --check); prints one line each and returns
// whether all passed.
bool run_approx_checks(std::ostream& out);

// Prints (e): per N the time of each method beside exact flash, and per method the crossover N
// (the smallest N of the sweep from which it is faster than flash_fast at every larger N) with
// its error there. Returns them as a JSON object.
std::string report_approx(const std::vector<MeasuredRun>& runs, std::ostream& out);

}  // namespace attn::bench
