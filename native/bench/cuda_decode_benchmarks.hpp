#pragma once
// The CUDA paged decode kernel (native/cuda/paged_decode.cu: vLLM paged_attention semantics, GQA
// packing, split-KV merged by merge_partial_states.cu) over gpu_decode_plan.hpp's sweep: the
// Llama 3 8B and 70B shapes x layouts (shuffled 16- and 32-token blocks, contiguous) x batch
// 1, 8, 32 x context 1k ... 128k, with FP16 and with BF16 K/V, as far as device memory holds them.
//   cuda/decode_<fp16|bf16>_<layout>/<model>/N:<context>/B:<batch>
// The split count is paged_decode_num_splits's for the device's SM count. Each (shape, layout,
// element) is checked against core's paged_decode in double (gpu_decode_plan.hpp) with one split,
// the heuristic's and eight (empty splits) before its first timed run.
//
// Counters: bytes/s, the headline: the bytes any decode step must move (K/V read once, q, out and
// lse) per second; hbm_percent, that rate as a share of the roofline preset's HBM bandwidth
// (absent when no preset describes the device); overhead_bytes/s (block tables and the split
// partial states written and read back); splits, block_size, peak_device_bytes, check_error, the
// launch spread; N (context), d, causal (0), batch, heads, kv_heads.
#include <ostream>

namespace attn::bench {

// Registers the decode benchmarks when device 0 is usable (register_cuda_benchmarks says why not).
void register_cuda_decode_benchmarks(std::ostream& log);

// `--check`: every shape, layout and element type, one line each. True without a usable device.
bool run_cuda_decode_checks(std::ostream& out);

}  // namespace attn::bench
