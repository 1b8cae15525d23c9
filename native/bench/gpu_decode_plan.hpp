#pragma once
// The planning of the GPU decode benchmarks (cuda_decode_benchmarks.cpp), in plain C++ so that it
// is unit-tested on a machine without a GPU (tests/bench/, and tests/cuda_emulated/ runs the check
// against the emulated kernel): the batch x context sweep and which of its problems fit in device
// memory, the bytes one decode step must move (the GB/s headline), the launch shape the split-count
// heuristic reads, the block tables, and the correctness check run before timing.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "decode_shapes.hpp"

namespace attn::bench {

inline constexpr std::size_t kGpuDecodeBatches[] = {1, 8, 32};
// Device memory left free beyond what one benchmark allocates (the CUDA runtime's and cuBLAS's
// own workspaces), for the prefill benchmarks' S and P as for the decode benchmarks' caches.
inline constexpr double kDeviceHeadroomBytes = 256.0 * (1 << 20);
// One cached K or V element: the decode kernel reads FP16 or BF16.
inline constexpr std::size_t kKvElementBytes = 2;

// Whether `bytes` can be allocated with `free_bytes` free, keeping kDeviceHeadroomBytes.
bool fits_in_device_memory(double bytes, double free_bytes);

// How a benchmark lays the sequences' blocks out in the pool.
struct GpuDecodeLayout {
    std::string_view name;
    std::size_t block_size;
    // true: the physical blocks of all sequences in one random order, as in a server's pool after
    // many allocations and frees; false: each sequence's blocks consecutive and in order, i.e. a
    // contiguous cache read through an identity table, the baseline paging is measured against.
    bool shuffled;
};
inline constexpr GpuDecodeLayout kGpuDecodeLayouts[] = {
    {"paged16", 16, true}, {"paged32", 32, true}, {"contiguous", 16, false}};

// One decode step: `batch` sequences of `context` tokens each, one new query token per sequence.
struct GpuDecodeProblem {
    DecodeShape shape;
    GpuDecodeLayout layout;
    std::size_t batch = 1, context = 1;

    std::size_t blocks_per_seq() const;  // ceil(context / block_size)
    std::size_t num_blocks() const;      // batch * blocks_per_seq: the pool holds exactly these
};

// "cuda/decode_<element>_<layout>/<model>/N:<context>/B:<batch>": the converter's
// "<device>/<implementation>/<model>/N:..." form, N the context as for the CPU decode rows.
std::string gpu_decode_benchmark_name(const GpuDecodeProblem& p, std::string_view element);

// The integers cuda::paged_decode and cuda::paged_decode_num_splits take for this problem (the
// split-count heuristic reads num_seqs, kv_heads and max_context_len). Throws attn::Error naming
// the field when one exceeds int.
struct DecodeLaunchShape {
    int num_seqs, q_heads, kv_heads, head_dim, block_size, num_blocks, max_blocks_per_seq, max_context_len;
};
DecodeLaunchShape decode_launch_shape(const GpuDecodeProblem& p);

// What one decode step moves to or from device memory, in bytes. The headline counts what any
// decode kernel must move: every cached K and V element once, q (FP32) and the output and its
// log-sum-exp (FP32). The block tables and the split partial states (written by the split kernel,
// read back by the merge: (head_dim + 2) floats per query head and split, with splits = 1 too) are
// the paged kernel's own overhead, reported separately.
struct DecodeTraffic {
    double kv_bytes = 0, q_bytes = 0, out_bytes = 0, table_bytes = 0, workspace_bytes = 0;
    double headline_bytes() const { return kv_bytes + q_bytes + out_bytes; }
};
DecodeTraffic decode_traffic(const GpuDecodeProblem& p, int splits);

// Device memory one benchmark allocates: both pools (partial last blocks included), q, out, lse,
// the tables and context lengths, and the split workspace.
double decode_device_bytes(const GpuDecodeProblem& p, int splits);

// Every shape x layout x batch (kGpuDecodeBatches) x context (kDecodeContexts), contexts
// innermost; problems whose decode_device_bytes do not fit in `device_memory_bytes` (with the
// headroom) go to too_large instead, so a smaller GPU runs the part of the sweep it can hold.
struct GpuDecodeSweep {
    std::vector<GpuDecodeProblem> problems, too_large;
};
GpuDecodeSweep gpu_decode_sweep(double device_memory_bytes,
                                const std::function<int(const GpuDecodeProblem&)>& splits_for);

// [batch, blocks_per_seq] physical block ids, a permutation of [0, num_blocks): consecutive per
// sequence for a contiguous layout, shuffled (seeded) for a paged one.
std::vector<int> decode_block_tables(const GpuDecodeProblem& p, std::uint64_t seed);

// ---------------------------------------------------------------------------------------------
// The check a kernel configuration (shape, layout, KV element type) passes before it is timed.
//
// Four sequences of 1, 17, 2 * block_size and 1,037 tokens (one token, a partial block, exactly
// full blocks, a long context with a partial last block) in a pool whose every slot outside a
// context is NaN: the tail of partial blocks, blocks of no sequence, and the block that table
// entries past a context point to. K, V and q are N(0, 1) draws rounded to multiples of 2^-6 in
// [-255/64, 255/64], exactly representable in FP16, BF16 and FP32, so the kernel reads exactly the
// values the reference (core's attn::paged_decode in double) does and the error is its FP32
// arithmetic alone: tolerance 1e-4 on output and log-sum-exp, as the emulated kernel tests use
// (scores and values below 6 in magnitude, at most 1,037 keys: n u |x| < 4e-4 in the worst case,
// ~1e-6 typically; a wrong block, mask, head mapping or merge errs by > 1e-2, a poisoned slot read
// gives NaN).
inline constexpr double kDecodeCheckTolerance = 1e-4;

struct DecodeCheckCase {
    DecodeShape shape;
    GpuDecodeLayout layout;
    std::vector<int> context_lens;                // per sequence
    int num_blocks = 0, max_blocks_per_seq = 0;   // pool blocks; table width (one spare entry)
    std::vector<int> block_tables;                // [sequences, max_blocks_per_seq]
    std::vector<float> q;                         // [sequences, q_heads, head_dim]
    std::vector<float> key_pool, value_pool;      // [num_blocks, kv_heads, block_size, head_dim]
    std::vector<double> expected_out;             // [sequences, q_heads, head_dim]
    std::vector<double> expected_lse;             // [sequences, q_heads]
    std::string description;                      // "llama3-8b Hq=32 Hkv=8 d=128 paged16 contexts 1,17,32,1037"
};
// Throws attn::Error when kv_heads does not divide q_heads or a size is 0.
DecodeCheckCase make_decode_check_case(const DecodeShape& shape, const GpuDecodeLayout& layout, std::uint64_t seed);

// The largest |kernel - reference| over out and lse (NaN counts as infinite) and whether it is
// within kDecodeCheckTolerance. Throws attn::Error when a size differs from the case's.
struct DecodeCheckOutcome {
    double max_abs_error = 0;
    bool passed = false;
};
DecodeCheckOutcome compare_with_reference(const DecodeCheckCase& c, const std::vector<float>& out,
                                          const std::vector<float>& lse);

}  // namespace attn::bench
