#pragma once
// What the kernel sources need from CUDA: the real toolkit when nvcc compiles them, the CPU
// emulation (emulation/) when a host compiler builds them for the emulated tests. Kernel code is
// written once against this header, which hides the few spellings that differ between the two:
// the triple-chevron launch (which g++ cannot parse), dynamic shared memory, unrolling pragmas
// and 16-byte vector copies.
#include <cstddef>
#include <cstring>
#include <string>

#include "attn/error.hpp"
#include "attn/host_device.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#include <mma.h>
// Dynamic shared memory of the block (its size is the launch's shared_bytes), its base aligned
// to `alignment` bytes (32 where WMMA tiles start at its offsets).
#define ATTN_DYNAMIC_SHARED_MEMORY(name, alignment) extern __shared__ __align__(alignment) unsigned char name[]
// Asks nvcc to unroll the next loop fully (its trip count is a compile-time constant), so small
// per-thread arrays indexed by the loop variable stay in registers.
#define ATTN_UNROLL _Pragma("unroll")
#elif defined(ATTN_CUDA_EMULATION)
#include "emulation/cuda_emulation.hpp"
#include "emulation/wmma_emulation.hpp"
#define ATTN_DYNAMIC_SHARED_MEMORY(name, alignment) \
    unsigned char* name = ::attn::cuda_emulation::dynamic_shared_memory(alignment)
#define ATTN_UNROLL
#else
#error "native/cuda sources are compiled by nvcc, or by a host compiler with ATTN_CUDA_EMULATION defined"
#endif

namespace attn::cuda {

// Copies 16 bytes between 16-byte aligned addresses: one vector load and store on the GPU
// (ld.global.v4 / st.shared.v4), which fault on a misaligned address; under the emulation a
// memcpy after the same alignment check, a violation failing the launch.
ATTN_HD inline void copy_16_bytes(void* destination, const void* source) {
#if defined(__CUDACC__)
    *static_cast<uint4*>(destination) = *static_cast<const uint4*>(source);
#else
    if (cuda_emulation::require_aligned("copy_16_bytes (destination)", destination, 16) &&
        cuda_emulation::require_aligned("copy_16_bytes (source)", source, 16)) {
        std::memcpy(destination, source, 16);
    }
#endif
}

// kernel<<<grid, block, shared_bytes, stream>>>(args...), then turns a launch error into
// attn::Error naming the kernel.
template <class... Params, class... Args>
void launch_kernel(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
                   cudaStream_t stream, Args... args) {
#if defined(__CUDACC__)
    kernel<<<grid, block, shared_bytes, stream>>>(args...);
#else
    (void)stream;  // the emulation runs the grid synchronously
    cuda_emulation::run_grid(kernel, grid, block, shared_bytes, args...);
#endif
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
        throw Error(std::string(name) + ": launch failed: " + cudaGetErrorString(e));
    }
}

}  // namespace attn::cuda
