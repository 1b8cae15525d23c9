#pragma once
// The table the GPU decode benchmarks (cuda_decode_benchmarks.hpp) print after the run and write
// to the summary's gpu_decode: per KV element type, shape, layout, batch and context, the GB/s of
// the bytes a decode step must move, their share of the GPU preset's HBM bandwidth, and a paged
// layout's rate as a share of the contiguous cache's at the same batch and context.
#include <ostream>
#include <string>
#include <vector>

#include "measured_run.hpp"

namespace attn::bench {

struct GpuDecodeRow {
    std::string element, layout, model;  // from "cuda/decode_<element>_<layout>/<model>"
    double batch = 0, context = 0, splits = 0;
    double bytes_per_s = 0;
    double hbm_percent = 0;            // NaN when the run had no preset
    double percent_of_contiguous = 0;  // NaN for the contiguous layout or without its run
};

// The rows of every decode run in `runs`, in run order; other runs are ignored.
std::vector<GpuDecodeRow> gpu_decode_rows(const std::vector<MeasuredRun>& runs);

// Prints (f), one line per row (nothing when there are none), and returns the rows as a JSON array.
std::string report_gpu_decode(const std::vector<MeasuredRun>& runs, std::ostream& out);

}  // namespace attn::bench
