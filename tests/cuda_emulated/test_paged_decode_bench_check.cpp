// The GPU decode benchmark's pre-timing check (native/bench/gpu_decode_plan.hpp) run on the
// emulated paged decode kernel, as bench_attention runs it on a GPU: the kernel must pass it with
// one split, the split count the heuristic picks for a 132-SM GPU and eight splits (empty splits
// for the short sequences), for FP16 and BF16 K/V; and a kernel told that one sequence is a token
// longer than it is (so it reads a poisoned slot) must fail it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <vector>

#include "attention_kernels.hpp"
#include "cuda_elements.hpp"
#include "gpu_decode_plan.hpp"

namespace {

using namespace attn;
using namespace attn::bench;

// The emulated kernel on the check case with `splits` splits; context_lens as given (the case's own
// unless a test lengthens one).
template <class T>
DecodeCheckOutcome run_check(const DecodeCheckCase& c, int splits, const std::vector<int>& context_lens) {
    const int seqs = static_cast<int>(context_lens.size());
    const cuda::PagedDecodeShape shape{seqs,
                                       static_cast<int>(c.shape.q_heads),
                                       static_cast<int>(c.shape.kv_heads),
                                       static_cast<int>(c.shape.head_dim),
                                       static_cast<int>(c.layout.block_size),
                                       c.num_blocks,
                                       c.max_blocks_per_seq};
    const int max_context = *std::max_element(context_lens.begin(), context_lens.end());
    const std::vector<T> keys = converted<T>(c.key_pool), values = converted<T>(c.value_pool);
    std::vector<float> workspace(cuda::paged_decode_workspace_floats(shape, splits));
    std::vector<float> out(c.expected_out.size()), lse(c.expected_lse.size());
    cuda::paged_decode(c.q.data(), keys.data(), values.data(), c.block_tables.data(), context_lens.data(), shape,
                       max_context, splits, workspace.data(), out.data(), lse.data(), std::nullopt, nullptr);
    return compare_with_reference(c, out, lse);
}

// With `splits` splits, or 0 for the heuristic's count (4 here: 32 blocks on 132 SMs).
template <class T>
void check_passes(const DecodeShape& shape, const GpuDecodeLayout& layout, std::initializer_list<int> split_counts) {
    const DecodeCheckCase c = make_decode_check_case(shape, layout, 0x5eedd3c0 + shape.q_heads + layout.block_size);
    const int heuristic = cuda::paged_decode_num_splits(static_cast<int>(c.context_lens.size()),
                                                        static_cast<int>(shape.kv_heads), 1037, 132);
    for (int count : split_counts) {
        const int splits = count ? count : heuristic;
        INFO(c.description << ", splits " << splits);
        const DecodeCheckOutcome r = run_check<T>(c, splits, c.context_lens);
        CHECK(r.passed);
        CHECK(r.max_abs_error < kDecodeCheckTolerance);
    }
}

const DecodeShape kLlama8b{"llama3-8b", 32, 8, 128};
const DecodeShape kLlama70b{"llama3-70b", 64, 8, 128};

// Every emulated launch runs each GPU thread as a host thread: one layout gets the three split
// counts the benchmark checks, the others the heuristic's.
TEST_CASE("bench decode check: the emulated kernel passes it, every layout, FP16") {
    check_passes<__half>(kLlama8b, kGpuDecodeLayouts[0], {1, 0, 8});
    check_passes<__half>(kLlama8b, kGpuDecodeLayouts[1], {0});
    check_passes<__half>(kLlama8b, kGpuDecodeLayouts[2], {0});
}

TEST_CASE("bench decode check: the emulated kernel passes it, GQA group 8, BF16") {
    check_passes<__nv_bfloat16>(kLlama70b, kGpuDecodeLayouts[0], {0});
}

TEST_CASE("bench decode check: a kernel reading one slot past a context fails it") {
    const DecodeCheckCase c = make_decode_check_case(kLlama8b, kGpuDecodeLayouts[1], 3);
    std::vector<int> longer = c.context_lens;
    longer[1] += 1;  // 18 of 32 slots: the 18th is poisoned
    const DecodeCheckOutcome r = run_check<__half>(c, 2, longer);
    CHECK_FALSE(r.passed);
    CHECK(std::isinf(r.max_abs_error));
}

}  // namespace
