#pragma once
// The sm_80 warp-level instructions FlashAttention-2-style kernels are built from, one small
// device function each, named after its PTX instruction (PTX ISA 8.x). CUDA C++ has no
// intrinsic for mma.sync m16n8k16, ldmatrix or cp.async groups (WMMA hides the first two behind
// an unspecified fragment layout), so under nvcc they are one line of inline PTX each; under the
// CPU emulation the same names come from emulation/ptx_emulation.hpp, which documents the
// register layouts the kernels rely on.
#include <cstdint>
#include <type_traits>

#include "cuda_compat.hpp"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace attn::cuda::ptx {

namespace detail {
// The 32-bit shared-state-space address ldmatrix and cp.async take.
__device__ inline std::uint32_t shared_address(const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
}  // namespace detail

// d = A B + c on one warp: A 16 x 16 (row), B 16 x 8 (col), 16-bit inputs, FP32 accumulators.
template <class T>
__device__ inline void mma_sync_m16n8k16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                         const float (&c)[4]) {
    if constexpr (std::is_same_v<T, __half>) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%10,%11,%12,%13};\n"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
                       "f"(c[2]), "f"(c[3]));
    } else {
        static_assert(std::is_same_v<T, __nv_bfloat16>, "mma.sync m16n8k16 takes f16 or bf16 inputs here");
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%10,%11,%12,%13};\n"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
                       "f"(c[2]), "f"(c[3]));
    }
}

// kMatrices 8 x 8 matrices of 16-bit elements from shared memory; lanes 8i .. 8i + 7 pass the
// (16-byte aligned) row addresses of matrix i.
template <int kMatrices, bool kTranspose>
__device__ inline void ldmatrix_sync_m8n8(std::uint32_t (&r)[kMatrices], const void* row_address) {
    const std::uint32_t a = detail::shared_address(row_address);
    if constexpr (kMatrices == 4 && kTranspose) {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
    } else if constexpr (kMatrices == 4) {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
    } else if constexpr (kMatrices == 2 && kTranspose) {
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
    } else if constexpr (kMatrices == 2) {
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
    } else if constexpr (kTranspose) {
        static_assert(kMatrices == 1, "ldmatrix loads 1, 2 or 4 matrices");
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(a));
    } else {
        static_assert(kMatrices == 1, "ldmatrix loads 1, 2 or 4 matrices");
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(a));
    }
}

// 16 bytes global -> shared without passing through registers (L2 only: .cg); copy == false
// zero-fills the destination instead (src-size 0: the source is not read).
__device__ inline void cp_async_cg_16(void* destination, const void* source, bool copy) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(detail::shared_address(destination)),
                 "l"(source), "r"(copy ? 16 : 0));
}

__device__ inline void cp_async_commit_group() { asm volatile("cp.async.commit_group;\n" ::); }

// All but the kPending newest groups of this thread's copies have landed (visible to this
// thread; other threads need a barrier after it).
template <int kPending>
__device__ inline void cp_async_wait_group() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

}  // namespace attn::cuda::ptx

#elif defined(ATTN_CUDA_EMULATION)
#include "emulation/ptx_emulation.hpp"
#endif
