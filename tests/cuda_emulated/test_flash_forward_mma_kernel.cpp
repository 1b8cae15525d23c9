// v3 of the kernel ladder (native/cuda/flash_forward_mma.cu), run under the CPU emulation with
// mma.sync, ldmatrix and cp.async emulated register for register (emulation/ptx_emulation.hpp),
// against sdpa in double on inputs pre-rounded to FP16 or BF16. Tolerances: HalfType and
// Bfloat16Type in kernel_test_support.hpp (v3 rounds P and O to the input type as v2 does; its
// exp2 of pre-scaled scores differs from exp by FP32 rounding only).
#include <doctest/doctest.h>

#include "kernel_test_support.hpp"

namespace {

using namespace attn;
using namespace attn::test;

template <class Type>
void check_mma_kernel(const KernelCase& c) {
    check_sixteen_bit_flash_kernel<Type>(c, [](auto... args) { cuda::flash_forward_mma(args..., nullptr); });
}

// Lengths 1, 17, 100 and 257: a partial query block and a partial key tile, and 257 = four
// whole 64-key tiles plus one key, so the double buffer turns over more than once.
template <class Type>
void check_lengths_and_head_dims() {
    check_mma_kernel<Type>({1, 1, 1, 1, 1, 64, 64});
    check_mma_kernel<Type>({2, 2, 2, 17, 100, 128, 128});
    check_mma_kernel<Type>({1, 2, 2, 100, 257, 64, 64});
    check_mma_kernel<Type>({1, 1, 1, 257, 17, 128, 128});
}

template <class Type>
void check_causal() {
    check_mma_kernel<Type>({1, 2, 2, 100, 257, 64, 64, Causal::top_left});
    check_mma_kernel<Type>({1, 1, 1, 257, 257, 128, 128, Causal::top_left});
    check_mma_kernel<Type>({1, 2, 2, 17, 257, 128, 128, Causal::bottom_right});
    // q_len > kv_len: the first query blocks see no key at all (zeros, lse -inf).
    check_mma_kernel<Type>({1, 2, 2, 257, 100, 64, 64, Causal::bottom_right});
}

template <class Type>
void check_grouped_heads() {
    check_mma_kernel<Type>({2, 4, 2, 100, 257, 64, 64, Causal::bottom_right});
    check_mma_kernel<Type>({1, 4, 1, 17, 100, 128, 128});
}

template <class Type>
void check_boolean_mask() {
    check_mma_kernel<Type>({2, 2, 1, 100, 257, 64, 64, Causal::none, true});
    check_mma_kernel<Type>({1, 2, 2, 17, 100, 128, 128, Causal::none, true});
}

TEST_CASE("fp16 mma flash kernel matches sdpa at odd lengths and both head dims") {
    check_lengths_and_head_dims<HalfType>();
}
TEST_CASE("bf16 mma flash kernel matches sdpa at odd lengths and both head dims") {
    check_lengths_and_head_dims<Bfloat16Type>();
}
TEST_CASE("fp16 mma flash kernel matches sdpa under both causal alignments") { check_causal<HalfType>(); }
TEST_CASE("bf16 mma flash kernel matches sdpa under both causal alignments") { check_causal<Bfloat16Type>(); }
TEST_CASE("fp16 mma flash kernel matches sdpa with grouped-query heads") { check_grouped_heads<HalfType>(); }
TEST_CASE("bf16 mma flash kernel matches sdpa with grouped-query heads") { check_grouped_heads<Bfloat16Type>(); }
TEST_CASE("fp16 mma flash kernel matches sdpa under a boolean mask with fully masked rows") {
    check_boolean_mask<HalfType>();
}
TEST_CASE("bf16 mma flash kernel matches sdpa under a boolean mask with fully masked rows") {
    check_boolean_mask<Bfloat16Type>();
}

TEST_CASE("mma flash kernel launcher rejects bad arguments") {
    std::vector<__half> buffer(64 * 128 + 8);
    __half* b = buffer.data();
    auto run = [&](cuda::AttentionShape shape, const __half* q = nullptr) {
        return [=] { cuda::flash_forward_mma(q ? q : b, b, b, b, nullptr, shape, {}, nullptr); };
    };
    check_error(run({1, 1, 1, 1, 1, 96, 96}), "head_dim must be 64 or 128, got 96");
    check_error(run({1, 1, 1, 1, 1, 64, 128}), "value_dim must equal head_dim (64), got 128");
    check_error(run({1, 4, 3, 1, 1, 64, 64}), "q_heads must be a multiple of kv_heads");
    check_error(run({1, 1, 1, 0, 1, 64, 64}), "q_len must be in [1, 1073741824], got 0");
    check_error(run({1, 1, 1, 1, 1, 64, 64}, b + 1), "q must be 16-byte aligned");
    // d = 128 needs 80 KB: more than a 64 KB device allows; d = 64 (40 KB) fits.
    attn::cuda_emulation::device() = {"emulated 64 KB device", 7, 5, 40, 64 * 1024};
    check_error(run({1, 1, 1, 1, 1, 128, 128}),
                "flash_forward_mma: needs 81920 bytes of shared memory per block, the device allows at most 65536");
    CHECK_NOTHROW(run({1, 1, 1, 1, 1, 64, 64})());
    attn::cuda_emulation::device() = attn::cuda_emulation::kSm90;
    std::vector<__nv_bfloat16> bf(64);
    check_error(
        [&] {
            cuda::flash_forward_mma(bf.data(), bf.data(), bf.data(), nullptr, nullptr, {1, 1, 1, 1, 1, 64, 64}, {},
                                    nullptr);
        },
        "out must not be null");
}

}  // namespace
