// Built once per mutation of the tensor-core flash kernel (ATTN_KERNEL_MUTATION, see
// flash_forward_tensor_core.cu), each a bug real hardware would expose: the launch under the
// emulation must fail, naming the cause. The unmutated kernel passes the same problems in the
// kernel tests (test_flash_forward_tensor_core_kernel.cpp), so the failure is the mutation's.
#include <doctest/doctest.h>

#include <string>

#include "kernel_test_support.hpp"

#if !defined(ATTN_KERNEL_MUTATION)
#error "define ATTN_KERNEL_MUTATION to the mutation under test"
#endif
#define ATTN_STRINGIFY_VALUE(x) #x
#define ATTN_STRINGIFY(x) ATTN_STRINGIFY_VALUE(x)

namespace {

using namespace attn;
using namespace attn::test;

// What the emulation reports for each mutation.
std::string expected_failure() {
    const std::string mutation = ATTN_STRINGIFY(ATTN_KERNEL_MUTATION);
    if (mutation == "kMissingSyncwarp") return "written after its last __syncwarp/__syncthreads";
    if (mutation == "kUnalignedLdm") return "ldm = 68 elements of 2 bytes is not a multiple of 16 bytes";
    if (mutation == "kNoSharedMemoryOptIn") return "exceed the kernel's limit of 49152 bytes";
    if (mutation == "kSharedBase16") return "is not 32-byte aligned";
    FAIL("unknown mutation " << mutation);
    return {};
}

template <class T, class Convert>
void check_launch_fails(const KernelCase& c, Convert convert) {
    INFO(ATTN_STRINGIFY(ATTN_KERNEL_MUTATION) << ", " << c.str());
    const KernelProblem p = make_problem(c, next_seed(), round_to_half);
    const auto q = converted<T>(p.inputs.q.data, convert);
    const auto k = converted<T>(p.inputs.k.data, convert);
    const auto v = converted<T>(p.inputs.v.data, convert);
    std::vector<T> out(q.size());
    check_error(
        [&] {
            cuda::flash_forward_tensor_core(q.data(), k.data(), v.data(), out.data(), nullptr, c.shape(),
                                            p.kernel_options, nullptr);
        },
        expected_failure());
}

TEST_CASE("tensor-core flash kernel mutation " ATTN_STRINGIFY(ATTN_KERNEL_MUTATION) " fails under the emulation") {
    auto to_half = [](double x) { return __float2half_rn(static_cast<float>(x)); };
    auto to_bfloat16 = [](double x) { return __float2bfloat16_rn(static_cast<float>(x)); };
    check_launch_fails<__half>({1, 1, 1, 64, 100, 64, 64}, to_half);
    check_launch_fails<__nv_bfloat16>({1, 2, 1, 30, 70, 128, 128, Causal::bottom_right}, to_bfloat16);
}

}  // namespace
