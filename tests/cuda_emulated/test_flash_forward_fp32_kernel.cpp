// The readable FP32 flash kernel (native/cuda/flash_forward_fp32.cu), run under the CPU
// emulation, against sdpa in double on the same float-rounded inputs.
//
// Tolerance: 2e-5 absolute on outputs and lse. Inputs are exact in both; what differs is float
// arithmetic: dot products over d <= 128 terms and sums over S <= 1023 weights of size <= 1, each
// with relative error ~ n * 2^-24 <= 1e-4 in the worst case but ~ sqrt(n) * 2^-24 ~ 2e-6 in
// practice on random inputs, times values of magnitude < 5.
#include <doctest/doctest.h>

#include "kernel_test_support.hpp"

namespace {

using namespace attn;
using namespace attn::test;

constexpr double kTolerance = 2e-5;

void check_fp32_kernel(const KernelCase& c) {
    const std::uint64_t seed = next_seed();
    INFO("seed " << seed << ", " << c.str());
    const KernelProblem p = make_problem(c, seed, round_to_float);
    const auto q = converted<float>(p.inputs.q.data, round_to_float);
    const auto k = converted<float>(p.inputs.k.data, round_to_float);
    const auto v = converted<float>(p.inputs.v.data, round_to_float);
    std::vector<float> out(std::size_t(c.batch) * c.q_heads * c.q_len * c.value_dim, -1.0f);
    std::vector<float> lse(std::size_t(c.batch) * c.q_heads * c.q_len, -1.0f);
    cuda::flash_forward_fp32(q.data(), k.data(), v.data(), out.data(), lse.data(), c.shape(), p.kernel_options,
                             nullptr);
    const auto ref = sdpa(p.inputs.q, p.inputs.k, p.inputs.v, p.reference_options);
    CHECK(max_abs_diff(widened(out), ref.output.data) < kTolerance);
    CHECK(max_abs_diff(widened(lse), ref.lse) < kTolerance);
}

TEST_CASE("fp32 flash kernel matches sdpa at odd lengths and both head dims") {
    check_fp32_kernel({1, 1, 1, 1, 1, 64, 64});
    check_fp32_kernel({2, 2, 2, 17, 113, 64, 64});
    check_fp32_kernel({1, 2, 2, 129, 127, 128, 128});
    check_fp32_kernel({1, 1, 1, 113, 17, 17, 96});  // any head_dim, value_dim != head_dim
}

TEST_CASE("fp32 flash kernel matches sdpa under both causal alignments") {
    check_fp32_kernel({1, 2, 2, 127, 129, 64, 64, Causal::top_left});
    check_fp32_kernel({1, 2, 2, 127, 129, 128, 128, Causal::bottom_right});
    check_fp32_kernel({1, 1, 1, 17, 113, 64, 32, Causal::top_left});
    check_fp32_kernel({1, 1, 1, 1023, 1023, 64, 64, Causal::bottom_right});
}

TEST_CASE("fp32 flash kernel matches sdpa with grouped-query heads") {
    check_fp32_kernel({2, 4, 2, 113, 129, 64, 64, Causal::bottom_right});
    check_fp32_kernel({1, 4, 1, 17, 127, 128, 128});
}

TEST_CASE("fp32 flash kernel gives zeros and -inf lse for fully masked rows") {
    // Boolean mask with empty rows, and bottom-right causal with L > S (the first L - S rows see
    // no key); sdpa returns zeros and -inf there, and so must the kernel (never NaN).
    check_fp32_kernel({2, 2, 1, 113, 127, 64, 64, Causal::none, true});
    check_fp32_kernel({1, 2, 2, 129, 17, 128, 128, Causal::bottom_right});
}

TEST_CASE("fp32 flash kernel launcher rejects bad arguments") {
    std::vector<float> buffer(64 * 128, 0.0f);
    float* b = buffer.data();
    auto run = [&](cuda::AttentionShape shape, cuda::KernelOptions options = {}) {
        return [=] { cuda::flash_forward_fp32(b, b, b, b, nullptr, shape, options, nullptr); };
    };
    check_error(run({1, 1, 1, 1, 1, 129, 64}), "head_dim must be in [1, 128], got 129");
    check_error(run({1, 1, 1, 1, 1, 64, 48}), "value_dim must be one of 32, 64, 96, 128, got 48");
    check_error(run({1, 3, 2, 1, 1, 64, 64}), "q_heads must be a multiple of kv_heads");
    check_error(run({1, 1, 1, 0, 1, 64, 64}), "q_len must be in [1, 1073741824], got 0");
    check_error(run({1, 1, 1, 1, 0, 64, 64}), "kv_len must be in [1, 1073741824], got 0");
    check_error(run({0, 1, 1, 1, 1, 64, 64}), "batch must be in [1, 65535], got 0");
    check_error(run({1, 1, 2, 1, 1, 64, 64}), "kv_heads must be in [1, 1], got 2");
    cuda::KernelOptions bad_scale;
    bad_scale.scale = INFINITY;
    check_error(run({1, 1, 1, 1, 1, 64, 64}, bad_scale), "scale must be finite");
    const std::uint8_t allowed[1] = {1};
    cuda::KernelOptions mask_and_causal;
    mask_and_causal.causal = Causal::top_left;
    mask_and_causal.mask.allowed = allowed;
    check_error(run({1, 1, 1, 1, 1, 64, 64}, mask_and_causal), "mask: may not be combined with causal");
    check_error([&] { cuda::flash_forward_fp32(b, b, nullptr, b, nullptr, {1, 1, 1, 1, 1, 64, 64}, {}, nullptr); },
                "v must not be null");
}

}  // namespace
