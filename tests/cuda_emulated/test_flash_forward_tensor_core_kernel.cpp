// The tensor-core flash kernel (native/cuda/flash_forward_tensor_core.cu), run under the CPU
// emulation with emulated WMMA, against sdpa in double on inputs pre-rounded to FP16 or BF16.
//
// Tolerances: HalfType and Bfloat16Type in kernel_test_support.hpp.
#include <doctest/doctest.h>

#include "kernel_test_support.hpp"

namespace {

using namespace attn;
using namespace attn::test;

template <class Type>
void check_tensor_core_kernel(const KernelCase& c) {
    check_sixteen_bit_flash_kernel<Type>(c, [](auto... args) { cuda::flash_forward_tensor_core(args..., nullptr); });
}

template <class Type>
void check_lengths_and_head_dims() {
    check_tensor_core_kernel<Type>({1, 1, 1, 1, 1, 64, 64});
    check_tensor_core_kernel<Type>({2, 2, 2, 17, 113, 128, 128});
    check_tensor_core_kernel<Type>({1, 2, 2, 129, 127, 64, 64});
    check_tensor_core_kernel<Type>({1, 1, 1, 113, 17, 128, 128});
}

template <class Type>
void check_causal() {
    check_tensor_core_kernel<Type>({1, 2, 2, 127, 129, 64, 64, Causal::top_left});
    check_tensor_core_kernel<Type>({1, 2, 2, 129, 127, 128, 128, Causal::top_left});
    check_tensor_core_kernel<Type>({1, 2, 2, 17, 129, 64, 64, Causal::bottom_right});
    check_tensor_core_kernel<Type>({1, 2, 2, 127, 113, 128, 128, Causal::bottom_right});
}

template <class Type>
void check_grouped_heads() {
    check_tensor_core_kernel<Type>({2, 4, 2, 113, 129, 64, 64, Causal::bottom_right});
    check_tensor_core_kernel<Type>({1, 4, 1, 17, 127, 128, 128});
}

template <class Type>
void check_fully_masked_rows() {
    check_tensor_core_kernel<Type>({2, 2, 1, 113, 127, 64, 64, Causal::none, true});
    check_tensor_core_kernel<Type>({1, 2, 2, 129, 17, 128, 128, Causal::bottom_right});
}

TEST_CASE("fp16 tensor-core flash kernel matches sdpa at odd lengths and both head dims") {
    check_lengths_and_head_dims<HalfType>();
}
TEST_CASE("bf16 tensor-core flash kernel matches sdpa at odd lengths and both head dims") {
    check_lengths_and_head_dims<Bfloat16Type>();
}
TEST_CASE("fp16 tensor-core flash kernel matches sdpa under both causal alignments") { check_causal<HalfType>(); }
TEST_CASE("bf16 tensor-core flash kernel matches sdpa under both causal alignments") { check_causal<Bfloat16Type>(); }
TEST_CASE("fp16 tensor-core flash kernel matches sdpa with grouped-query heads") { check_grouped_heads<HalfType>(); }
TEST_CASE("bf16 tensor-core flash kernel matches sdpa with grouped-query heads") {
    check_grouped_heads<Bfloat16Type>();
}
TEST_CASE("fp16 tensor-core flash kernel gives zeros and -inf lse for fully masked rows") {
    check_fully_masked_rows<HalfType>();
}
TEST_CASE("bf16 tensor-core flash kernel gives zeros and -inf lse for fully masked rows") {
    check_fully_masked_rows<Bfloat16Type>();
}

TEST_CASE("tensor-core flash kernels match sdpa at length 1023") {
    check_tensor_core_kernel<HalfType>({1, 1, 1, 1023, 1023, 64, 64, Causal::bottom_right});
    check_tensor_core_kernel<Bfloat16Type>({1, 1, 1, 1023, 1023, 64, 64, Causal::top_left});
}

TEST_CASE("tensor-core flash kernel launcher rejects bad arguments") {
    std::vector<__half> buffer(64 * 128 + 8);
    __half* b = buffer.data();
    auto run = [&](cuda::AttentionShape shape, const __half* q = nullptr) {
        return [=] { cuda::flash_forward_tensor_core(q ? q : b, b, b, b, nullptr, shape, {}, nullptr); };
    };
    check_error(run({1, 1, 1, 1, 1, 96, 96}), "head_dim must be 64 or 128, got 96");
    check_error(run({1, 1, 1, 1, 1, 64, 128}), "value_dim must equal head_dim (64), got 128");
    check_error(run({1, 4, 3, 1, 1, 64, 64}), "q_heads must be a multiple of kv_heads");
    check_error(run({1, 1, 1, 1, 0, 64, 64}), "kv_len must be in [1, 1073741824], got 0");
    // Lengths stop at 2^30, so the kernel's int tile offsets (length + 63, key + 64) cannot overflow.
    check_error(run({1, 1, 1, (1 << 30) + 1, 1, 64, 64}), "q_len must be in [1, 1073741824], got 1073741825");
    check_error(run({1, 70000, 1, 1, 1, 64, 64}), "q_heads must be in [1, 65535], got 70000");
    check_error(run({1, 1, 1, 1, 1, 64, 64}, b + 1), "q must be 16-byte aligned");
    // A device whose blocks may use at most 64 KB (sm_75's opt-in maximum) cannot run d = 128
    // (77 KB); d = 64 (53 KB) fits.
    attn::cuda_emulation::device() = {"emulated 64 KB device", 7, 5, 40, 64 * 1024};
    check_error(run({1, 1, 1, 1, 1, 128, 128}),
                "flash_forward_tensor_core: needs 78848 bytes of shared memory per block, the device allows at most "
                "65536");
    attn::cuda_emulation::device() = attn::cuda_emulation::kSm90;
    std::vector<__nv_bfloat16> bf(64);
    check_error(
        [&] {
            cuda::flash_forward_tensor_core(bf.data(), bf.data(), bf.data(), nullptr, nullptr, {1, 1, 1, 1, 1, 64, 64},
                                            {}, nullptr);
        },
        "out must not be null");
}

}  // namespace
