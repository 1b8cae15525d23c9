// Standard attention (native/cuda/standard_attention.cu): the masked softmax kernel under the CPU
// emulation, between the two cuBLAS GEMMs as written for cuBLAS and executed by the reference
// GEMM of emulation/cublas_emulation.hpp. Compared with sdpa in double on float-rounded inputs:
// output, lse and the probability matrix P the framework materialises.
//
// Tolerance: 2e-5 absolute (the GEMM stand-in sums in double; the softmax is FP32, so the
// error is the FP32 rounding of scores, exps and 1/l: a few 2^-24 relative on values < 5).
#include <doctest/doctest.h>

#include "kernel_test_support.hpp"

namespace {

using namespace attn;
using namespace attn::test;

constexpr double kTolerance = 2e-5;

void check_standard_attention(const KernelCase& c) {
    const std::uint64_t seed = next_seed();
    INFO("seed " << seed << ", " << c.str());
    const KernelProblem p = make_problem(c, seed, round_to_float);
    const auto q = converted<float>(p.inputs.q.data, round_to_float);
    const auto k = converted<float>(p.inputs.k.data, round_to_float);
    const auto v = converted<float>(p.inputs.v.data, round_to_float);
    std::vector<float> out(std::size_t(c.batch) * c.q_heads * c.q_len * c.value_dim, -1.0f);
    std::vector<float> lse(std::size_t(c.batch) * c.q_heads * c.q_len, -1.0f);
    const std::size_t workspace = cuda::standard_attention_workspace_elements(c.shape());
    CHECK(workspace == std::size_t(c.batch) * c.q_heads * c.q_len * c.kv_len);
    std::vector<float> scores(workspace, NAN), probs(workspace, NAN);
    cublasHandle_t cublas = nullptr;
    REQUIRE(cublasCreate(&cublas) == CUBLAS_STATUS_SUCCESS);
    cuda::standard_attention_forward(cublas, q.data(), k.data(), v.data(), out.data(), lse.data(), scores.data(),
                                     probs.data(), c.shape(), p.kernel_options, nullptr);
    cublasDestroy(cublas);
    SdpaOptions options = p.reference_options;
    options.return_probs = true;
    const auto ref = sdpa(p.inputs.q, p.inputs.k, p.inputs.v, options);
    CHECK(max_abs_diff(widened(out), ref.output.data) < kTolerance);
    CHECK(max_abs_diff(widened(lse), ref.lse) < kTolerance);
    CHECK(max_abs_diff(widened(probs), ref.probs) < kTolerance);
}

TEST_CASE("standard attention kernels match sdpa at odd lengths and both head dims") {
    check_standard_attention({1, 1, 1, 1, 1, 64, 64});
    check_standard_attention({2, 2, 2, 17, 113, 64, 64});
    check_standard_attention({1, 2, 2, 129, 127, 128, 128});
    check_standard_attention({1, 1, 1, 113, 17, 17, 96});
    check_standard_attention({1, 1, 1, 17, 1023, 64, 64});
}

TEST_CASE("standard attention kernels match sdpa under both causal alignments") {
    check_standard_attention({1, 2, 2, 127, 129, 64, 64, Causal::top_left});
    check_standard_attention({1, 2, 2, 129, 113, 128, 128, Causal::bottom_right});
    check_standard_attention({1, 1, 1, 1023, 129, 64, 64, Causal::bottom_right});
}

TEST_CASE("standard attention kernels match sdpa with grouped-query heads") {
    // One strided-batched GEMM per (batch, kv_head) covers the whole group of query heads.
    check_standard_attention({2, 4, 2, 113, 129, 64, 64, Causal::top_left});
    check_standard_attention({1, 6, 2, 17, 127, 128, 64});
}

TEST_CASE("standard attention kernels give zeros and -inf lse for fully masked rows") {
    check_standard_attention({2, 2, 1, 113, 127, 64, 64, Causal::none, true});
    check_standard_attention({1, 2, 2, 129, 17, 128, 128, Causal::bottom_right});
}

TEST_CASE("standard attention launchers reject bad arguments") {
    std::vector<float> buffer(64, 0.0f);
    float* b = buffer.data();
    CublasEmulatedContext context;
    cublasHandle_t cublas = &context;
    const cuda::AttentionShape ok{1, 1, 1, 1, 1, 64, 64};
    check_error([&] { cuda::standard_attention_forward(nullptr, b, b, b, b, b, b, b, ok, {}, nullptr); },
                "cublas must not be null");
    check_error([&] { cuda::standard_attention_forward(cublas, b, b, b, b, b, nullptr, b, ok, {}, nullptr); },
                "scores must not be null");
    check_error(
        [&] { cuda::standard_attention_forward(cublas, b, b, b, b, b, b, b, {1, 2, 2, 1, 1, 0, 64}, {}, nullptr); },
        "head_dim must be in [1, 2147483647], got 0");
    check_error(
        [&] {
            cuda::standard_attention_forward(cublas, b, b, b, b, b, b, b, {1, 4, 1, 1 << 30, 1, 64, 64}, {}, nullptr);
        },
        "q_heads / kv_heads * q_len must be in [1, 2147483647], got 4294967296");
    check_error([&] { cuda::masked_softmax_forward(b, nullptr, b, ok, {}, nullptr); }, "probs must not be null");
    cuda::KernelOptions negative_stride;
    const std::uint8_t allowed[1] = {1};
    negative_stride.mask = {allowed, 0, -1, 1};
    check_error([&] { cuda::masked_softmax_forward(b, b, b, ok, negative_stride, nullptr); },
                "mask.head_stride must be in [0, ");
    check_error([&] { cuda::standard_attention_workspace_elements({1, 1, 1, 1, -3, 64, 64}); },
                "kv_len must be in [1, 1073741824], got -3");
}

}  // namespace
