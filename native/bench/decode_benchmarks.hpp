#pragma once
// Decode on the CPU: one new token's attention over a long KV cache, the step that dominates
// serving (Part 4). It reads every cached K/V row once and does about two multiply-adds per element
// read per query head, so its speed limit is memory bandwidth, measured here in the same run.
// For the shapes and contexts of decode_shapes.hpp, one sequence, one run cpu/decode/<model> times
// three reads in turn inside every iteration (decode_benchmarks.cpp, decode_benchmark):
//   stream      a streaming read of the same K/V bytes, on the kernel's worker threads: the
//               bandwidth ceiling
//   paged       attn::paged_decode_fast over a shuffled pool of 16-token blocks
//   contiguous  the same kernel over the cache stored contiguously (one block)
// Every read starts with the K/V bytes evicted from the CPU's caches, as a layer's cache is in a
// model (evict_caches). Both layouts are checked against attn::sdpa in double before the first
// timed read. Counters: stream_bytes/s, paged_bytes/s and contiguous_bytes/s of K/V read (each from
// its median read), paged_percent_of_stream and paged_percent_of_contiguous (the medians of the
// ratios within each iteration), N (context), d, q_heads, kv_heads, check_error (the larger of the
// two layouts').
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "decode_shapes.hpp"
#include "run_collector.hpp"

namespace attn::bench {

inline constexpr std::size_t kDecodeBlockSize = 16;  // vLLM's default block size

void register_decode_benchmarks();

// The pre-timing checks of both layouts for every shape (also run by --check); prints one line
// each and returns whether all passed.
bool run_decode_checks(std::ostream& out);

// Prints (d): paged GB/s as a share of the streaming read and of contiguous, per shape and context.
// Returns them as a JSON array.
std::string report_decode_ratios(const std::vector<MeasuredRun>& runs, std::ostream& out);

}  // namespace attn::bench
