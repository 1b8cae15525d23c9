#pragma once
// What the run adds to Google Benchmark's per-benchmark numbers: the ratios issue 4's targets are
// stated in (all measured in this one run), and the roofline model's predictions for the same
// problems on every GPU preset, written for scripts/bench-to-site.mjs.
#include <ostream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "run_collector.hpp"

namespace attn::bench {

// Prints the three ratios: (a) flash_fast's speed-up over standard_blas across N at d = 64, (b) its
// FLOP rate as a share of the best sgemm rate at N = 4096, d = 128, (c) both implementations' peak
// heap bytes across N. Returns them as a JSON object.
std::string report_ratios(const std::vector<MeasuredRun>& runs, std::ostream& out);

// JSON array: for each problem, algorithm (standard, flash) and GPU preset with published
// numbers, the roofline prediction at fp16 and fp32 (attn::cost::predict), in the benchmark's FLOP
// convention.
std::string model_predictions(const std::vector<Problem>& problems);

}  // namespace attn::bench
