// Built once per mutation of the v3 mma flash kernel (ATTN_MMA_KERNEL_MUTATION, listed in
// flash_forward_mma.cu), each a bug real hardware would expose: under the emulation the kernel
// test must fail, by a failed launch or by results outside the tolerance the unmutated kernel
// meets on the same problems (test_flash_forward_mma_kernel.cpp).
//   kMissingCpAsyncWait      no cp.async.wait_group in the loop: tiles are read before they land
//                            (the emulation copies at the wait), so S and P V see stale data
//   kMissingBarrierAfterWait each thread waits for its own copies only: other warps read them
//                            unpublished (check_published fails the launch) or stale
//   kUnswizzledLdmatrix      cp.async stores rows XOR-swizzled, ldmatrix addresses them plainly:
//                            the fragments hold the wrong columns
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "kernel_test_support.hpp"

#if !defined(ATTN_MMA_KERNEL_MUTATION)
#error "define ATTN_MMA_KERNEL_MUTATION to the mutation under test"
#endif
#define ATTN_STRINGIFY_VALUE(x) #x
#define ATTN_STRINGIFY(x) ATTN_STRINGIFY_VALUE(x)

namespace {

using namespace attn;
using namespace attn::test;

// Whether the mutated kernel fails the kernel test on case c: a launch error, or an output or
// lse error at or above the tolerance.
template <class Type>
bool kernel_test_fails(const KernelCase& c) {
    const std::uint64_t seed = next_seed();
    INFO(ATTN_STRINGIFY(ATTN_MMA_KERNEL_MUTATION) << ", seed " << seed << ", " << c.str());
    try {
        const FlashErrors e = sixteen_bit_flash_errors<Type>(
            c, seed, [](auto... args) { cuda::flash_forward_mma(args..., nullptr); });
        MESSAGE("output error " << e.output << ", lse error " << e.lse);
        return !(e.output < Type::kOutputTolerance && e.lse < kSixteenBitLseTolerance);
    } catch (const Error& error) {
        MESSAGE("launch failed: " << std::string(error.what()));
        return true;
    }
}

TEST_CASE("mma flash kernel mutation " ATTN_STRINGIFY(ATTN_MMA_KERNEL_MUTATION) " fails under the emulation") {
    CHECK(kernel_test_fails<HalfType>({1, 1, 1, 64, 257, 64, 64}));
    CHECK(kernel_test_fails<Bfloat16Type>({1, 2, 1, 100, 200, 128, 128, Causal::bottom_right}));
}

}  // namespace
