#pragma once
// A CPU stand-in for the part of the CUDA programming model the kernels in native/cuda/ use, so
// the very same .cu sources compile with g++ and can be tested on machines without a GPU.
// Included (through cuda_compat.hpp / attention_kernels.hpp) only when ATTN_CUDA_EMULATION is
// defined, never by nvcc.
//
// Execution model, and how it differs from a GPU:
//  * A launch runs its thread blocks one after another. The blockDim threads of a block are real
//    std::threads, created once per launch and reused for every block, so the threads of a block
//    do run concurrently and a missing barrier shows up as a wrong answer, as it would on a GPU.
//  * __syncthreads() is one std::barrier per block; __syncwarp() and the shuffles use one
//    std::barrier per warp of 32 threads. Like the hardware's, these must be reached by every
//    thread of the block / warp (full masks only); a kernel that does not deadlocks here.
//  * __shared__ variables become function-local statics: one copy, shared by the threads of the
//    block that is running, which is all a block can see since blocks never overlap. Dynamic
//    shared memory is a per-launch buffer filled with 0xFF bytes (NaN as float, half or bfloat16)
//    before every block, so reading shared memory no thread of the block has written propagates
//    NaN into the output instead of passing by luck.
//  * __half and __nv_bfloat16 are NVIDIA's own types from cuda_fp16.h / cuda_bf16.h, whose
//    conversions also compile for the host: rounding is the GPU's round-to-nearest-even.
//  * Launch errors (bad block size, too much shared memory) are reported as on a GPU, through
//    cudaGetLastError().
#if defined(__CUDACC__)
#error "cuda_emulation.hpp is for host compilers: nvcc compiles the kernels for the GPU"
#endif

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <barrier>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

// cuda_fp16.h brings CUDA's host_defines.h, which defines __global__, __device__, __host__ and
// __forceinline__ for host compilers already; __shared__ there expands to nothing, which would
// give every thread its own copy. Function-local statics give the block one shared copy.
#undef __shared__
#define __shared__ static

namespace attn::cuda_emulation {

inline constexpr unsigned kWarpSize = 32;
// The largest dynamic shared memory a block may opt into on sm_90 (227 KB); sm_80 allows 163 KB.
inline constexpr std::size_t kMaxSharedBytes = 227 * 1024;

// Everything the threads of the running block share.
struct BlockContext {
    explicit BlockContext(unsigned threads, std::size_t shared_bytes)
        : block_barrier(threads), exchange(2 * std::size_t{threads}), dynamic_shared(shared_bytes) {
        for (unsigned w = 0; w < threads / kWarpSize; ++w) {
            warp_barriers.push_back(std::make_unique<std::barrier<>>(kWarpSize));
        }
    }
    std::barrier<> block_barrier;
    std::vector<std::unique_ptr<std::barrier<>>> warp_barriers;
    std::vector<std::uint64_t> exchange;  // two shuffle slots per thread (see __shfl_sync)
    std::vector<unsigned char> dynamic_shared;

    // 0xFF bytes are NaN as float, __half and __nv_bfloat16: unwritten shared memory is poison.
    void poison_dynamic_shared() {
        if (!dynamic_shared.empty()) std::memset(dynamic_shared.data(), 0xFF, dynamic_shared.size());
    }
};

struct ThreadContext {
    BlockContext* block = nullptr;
    unsigned linear = 0;  // threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)
    unsigned shuffles = 0;  // shuffles this thread has made; their parity picks the exchange slot
};

inline thread_local ThreadContext current_thread;
inline thread_local cudaError_t last_error = cudaSuccess;

[[noreturn]] inline void fail(const char* what) {
    std::fprintf(stderr, "CUDA emulation: %s\n", what);
    std::abort();
}

inline unsigned lane_id() { return current_thread.linear % kWarpSize; }

inline void warp_barrier() {
    current_thread.block->warp_barriers[current_thread.linear / kWarpSize]->arrive_and_wait();
}

inline void require_full_mask(unsigned mask) {
    if (mask != 0xffffffffu) fail("only full-warp masks (0xffffffff) are emulated");
}

}  // namespace attn::cuda_emulation

// The built-in variables. Every emulated thread has its own copy, set before the kernel runs.
inline thread_local dim3 threadIdx;
inline thread_local dim3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;

inline void __syncthreads() { attn::cuda_emulation::current_thread.block->block_barrier.arrive_and_wait(); }

inline void __syncwarp(unsigned mask = 0xffffffffu) {
    attn::cuda_emulation::require_full_mask(mask);
    attn::cuda_emulation::warp_barrier();
}

// __shfl_sync: every lane publishes `value`, waits for the whole warp, then reads the value
// published by `src_lane` of its own `width`-lane segment (CUDA Programming Guide, "Warp Shuffle
// Functions"). Consecutive shuffles alternate between two slots per lane, so one barrier per
// shuffle suffices: a lane can only reach the shuffle after next, which reuses this slot, once
// every lane has passed the next shuffle's barrier, that is, once every lane has read this one.
template <class T>
T __shfl_sync(unsigned mask, T value, int src_lane, int width = 32) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(std::uint64_t));
    using namespace attn::cuda_emulation;
    require_full_mask(mask);
    ThreadContext& self = current_thread;
    const unsigned warp_base = self.linear - lane_id();
    const unsigned segment = lane_id() / static_cast<unsigned>(width) * static_cast<unsigned>(width);
    const unsigned source = warp_base + segment + static_cast<unsigned>(src_lane) % static_cast<unsigned>(width);
    std::uint64_t* slots = self.block->exchange.data() + (self.shuffles++ % 2) * self.block->exchange.size() / 2;
    std::memcpy(&slots[self.linear], &value, sizeof(T));
    warp_barrier();
    T result;
    std::memcpy(&result, &slots[source], sizeof(T));
    return result;
}

// __shfl_xor_sync: lane i reads lane i ^ lane_mask (the butterfly of a warp reduction).
template <class T>
T __shfl_xor_sync(unsigned mask, T value, int lane_mask, int width = 32) {
    const int lane = static_cast<int>(attn::cuda_emulation::lane_id());
    return __shfl_sync(mask, value, lane ^ lane_mask, width);
}

inline cudaError_t cudaGetLastError() {
    const cudaError_t e = attn::cuda_emulation::last_error;
    attn::cuda_emulation::last_error = cudaSuccess;
    return e;
}

inline const char* cudaGetErrorString(cudaError_t e) {
    switch (e) {
        case cudaSuccess: return "no error";
        case cudaErrorInvalidConfiguration: return "invalid configuration argument (emulated)";
        case cudaErrorInvalidValue: return "invalid argument (emulated)";
        default: return "unknown error (emulated)";
    }
}

// Raising the dynamic shared memory limit is a no-op here: the launch checks kMaxSharedBytes.
template <class Kernel>
cudaError_t cudaFuncSetAttribute(Kernel*, cudaFuncAttribute, int) {
    return cudaSuccess;
}

namespace attn::cuda_emulation {

inline unsigned char* dynamic_shared_memory() { return current_thread.block->dynamic_shared.data(); }

// Runs kernel(args...) on every thread of every block of the grid.
template <class... Params, class... Args>
void run_grid(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, Args... args) {
    const unsigned threads = block.x * block.y * block.z;
    if (threads == 0 || threads > 1024 || threads % kWarpSize != 0 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
        grid.y > 65535 || grid.z > 65535) {
        last_error = cudaErrorInvalidConfiguration;  // the emulation also insists on whole warps
        return;
    }
    if (shared_bytes > kMaxSharedBytes) {
        last_error = cudaErrorInvalidValue;
        return;
    }
    const std::tuple<Params...> params(args...);
    BlockContext context(threads, shared_bytes);
    // One barrier phase per block: the completion step (run by one thread while all wait) moves
    // to the next block and refills dynamic shared memory.
    dim3 next{0, 0, 0};
    bool done = false;
    auto advance = [&]() noexcept {
        context.poison_dynamic_shared();
        if (++next.x < grid.x) return;
        next.x = 0;
        if (++next.y < grid.y) return;
        next.y = 0;
        if (++next.z < grid.z) return;
        done = true;
    };
    context.poison_dynamic_shared();
    std::barrier between_blocks(static_cast<std::ptrdiff_t>(threads), advance);
    std::vector<std::jthread> workers;
    workers.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            current_thread = {&context, t, 0};
            threadIdx = dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
            blockDim = block;
            gridDim = grid;
            while (!done) {
                blockIdx = next;
                std::apply(kernel, params);
                between_blocks.arrive_and_wait();
            }
        });
    }
}

}  // namespace attn::cuda_emulation
