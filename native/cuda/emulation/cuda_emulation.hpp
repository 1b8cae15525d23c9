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
//  * __syncthreads() is one std::barrier per block, __syncwarp() one std::barrier per warp of 32
//    threads. Like the hardware's, these must be reached by every thread of the block / warp
//    (full masks only); a kernel that does not deadlocks here.
//  * Shuffles exchange values and nothing else: as on a GPU they do not order shared memory
//    (CUDA Programming Guide, "Warp Shuffle Functions" and the memory model), so a write before a
//    shuffle is not published to the other lanes by it. Two checks make that observable:
//    - the publication check (deterministic, every build): each warp keeps a copy of dynamic
//      shared memory as of its last __syncwarp/__syncthreads; a warp-collective WMMA load that
//      reads bytes differing from that copy reads a write no barrier has published, and the
//      launch fails. A shuffle does not refresh the copy. Plain loads through a pointer cannot be
//      intercepted, so for them the ThreadSanitizer build is the check:
//    - under ThreadSanitizer (the tsan preset) the shuffle's rendezvous is hidden from the race
//      detector, which then reports any plain read of another lane's write that only a shuffle
//      separates.
//  * __shared__ variables become function-local statics: one copy, shared by the threads of the
//    block that is running, which is all a block can see since blocks never overlap. Dynamic
//    shared memory is a per-launch buffer filled with 0xFF bytes (NaN as float, half or bfloat16)
//    before every block, so reading shared memory no thread of the block has written propagates
//    NaN into the output instead of passing by luck. Its base has exactly the alignment the
//    kernel declares (ATTN_DYNAMIC_SHARED_MEMORY) and no more, so an under-declared alignment
//    fails the alignment checks below instead of passing by the allocator's luck.
//  * Dynamic shared memory is limited as on the device: 48 KB unless the kernel opted in with
//    cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize), never more than the
//    emulated device's opt-in maximum (device(); sm_90 by default).
//  * Alignment rules are asserted: WMMA loads and stores need a 32-byte aligned pointer and a
//    leading dimension that is a multiple of 16 bytes (CUDA Programming Guide, "Warp Matrix
//    Functions"); 16-byte vector copies need 16-byte aligned addresses. A violation fails the
//    launch with cudaErrorMisalignedAddress, as the hardware's misaligned access does.
//  * The PTX warp-level instructions of ptx_primitives.hpp (mma.sync, ldmatrix, cp.async) are in
//    ptx_emulation.hpp; lanes that need each other's registers or addresses exchange them with
//    warp_gather below, which like a shuffle orders no memory.
//  * __half and __nv_bfloat16 are NVIDIA's own types from cuda_fp16.h / cuda_bf16.h, whose
//    conversions also compile for the host: rounding is the GPU's round-to-nearest-even.
//  * Launch errors (bad block size, too much shared memory) and errors found while the kernel
//    runs are reported as on a GPU, through cudaGetLastError(); cudaGetErrorString adds what the
//    emulation found.
#if defined(__CUDACC__)
#error "cuda_emulation.hpp is for host compilers: nvcc compiles the kernels for the GPU"
#endif

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

// cuda_fp16.h brings CUDA's host_defines.h, which defines __global__, __device__, __host__ and
// __forceinline__ for host compilers already; __shared__ there expands to nothing, which would
// give every thread its own copy. Function-local statics give the block one shared copy.
#undef __shared__
#define __shared__ static
// Launch bounds only steer nvcc's register allocation.
#if !defined(__launch_bounds__)
#define __launch_bounds__(...)
#endif

#if defined(__SANITIZE_THREAD__)
#define ATTN_EMULATION_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ATTN_EMULATION_TSAN 1
#endif
#endif

#if defined(ATTN_EMULATION_TSAN)
// ThreadSanitizer's annotation interface (compiler-rt tsan_interface_ann.cpp).
extern "C" void AnnotateIgnoreSyncBegin(const char* file, int line);
extern "C" void AnnotateIgnoreSyncEnd(const char* file, int line);
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

namespace attn::cuda_emulation {

inline constexpr unsigned kWarpSize = 32;
#if defined(ATTN_EMULATION_TSAN)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
// Dynamic shared memory a kernel may use without opting in (CUDA Programming Guide, "Shared
// Memory": allocations above 48 KB per block need cudaFuncSetAttribute).
inline constexpr std::size_t kDefaultSharedBytes = 48 * 1024;
// The largest base alignment a kernel may declare for its dynamic shared memory.
inline constexpr std::size_t kMaxSharedAlignment = 128;
// The largest value one lane contributes to a warp_gather (an mma.sync's A and B fragments).
inline constexpr std::size_t kGatherWords = 4;

// The emulated device's limits (CUDA Programming Guide, "Compute Capabilities", technical
// specifications: maximum shared memory per thread block 163 KB for 8.0, 227 KB for 9.0; SM
// counts of the A100 SXM and H100 SXM).
struct Device {
    const char* name;
    int major, minor;
    int multiprocessors;
    std::size_t max_shared_bytes_optin;
};
inline constexpr Device kSm80{"emulated sm_80 (A100)", 8, 0, 108, 163 * 1024};
inline constexpr Device kSm90{"emulated sm_90 (H100 SXM)", 9, 0, 132, 227 * 1024};

// The device every emulated call sees; tests may switch it (never while a kernel runs).
inline Device& device() {
    static Device current = kSm90;
    return current;
}

// The dynamic shared memory limit each kernel opted into, keyed by the kernel's address.
struct FunctionAttributes {
    std::mutex mutex;
    std::map<const void*, std::size_t> max_dynamic_shared_bytes;
};
inline FunctionAttributes& function_attributes() {
    static FunctionAttributes attributes;
    return attributes;
}

struct BlockContext;

// The rendezvous of a warp's shuffle: no lane reads a value before every lane has published its
// own. Built from atomics alone, so that ThreadSanitizer can be told to ignore the ordering it
// creates (see shuffle_rendezvous) without then seeing races on a barrier's internal state.
class WarpRendezvous {
public:
    void arrive_and_wait() {
        const unsigned phase = phase_.load(std::memory_order_acquire);
        if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == kWarpSize) {
            arrived_.store(0, std::memory_order_relaxed);  // before the new phase releases anyone
            phase_.fetch_add(1, std::memory_order_release);
            phase_.notify_all();
        } else {
            phase_.wait(phase, std::memory_order_acquire);
        }
    }

private:
    std::atomic<unsigned> arrived_{0};
    std::atomic<unsigned> phase_{0};
};

// Completion steps of the barriers: everything written before a barrier is published to the
// threads it releases, so their copies of shared memory are refreshed (see check_published).
struct PublishToWarp {
    BlockContext* block;
    unsigned warp;
    void operator()() const noexcept;
};
struct PublishToBlock {
    BlockContext* block;
    void operator()() const noexcept;
};

// Everything the threads of the running block share.
struct BlockContext {
    explicit BlockContext(unsigned threads, std::size_t shared_bytes)
        : block_barrier(threads, PublishToBlock{this}),
          exchange(2 * std::size_t{threads}),
          gather_slots(2 * std::size_t{threads} * kGatherWords),
          shared_storage(shared_bytes + 2 * kMaxSharedAlignment),
          published(threads / kWarpSize, std::vector<unsigned char>(shared_storage.size())) {
        for (unsigned w = 0; w < threads / kWarpSize; ++w) {
            warp_barriers.push_back(std::make_unique<std::barrier<PublishToWarp>>(kWarpSize, PublishToWarp{this, w}));
            shuffle_rendezvous.push_back(std::make_unique<WarpRendezvous>());
        }
    }
    std::barrier<PublishToBlock> block_barrier;
    std::vector<std::unique_ptr<std::barrier<PublishToWarp>>> warp_barriers;
    std::vector<std::unique_ptr<WarpRendezvous>> shuffle_rendezvous;
    std::vector<std::atomic<std::uint64_t>> exchange;  // two shuffle slots per thread (see __shfl_sync)
    std::vector<std::atomic<std::uint64_t>> gather_slots;  // two warp_gather slots per thread, alike
    std::vector<unsigned char> shared_storage;  // dynamic shared memory plus room to place its base
    // Per warp: dynamic shared memory as of the warp's last barrier.
    std::vector<std::vector<unsigned char>> published;

    // The first error found while the grid runs (the launch reports it after joining the
    // threads). Claimed with a relaxed exchange: a lock here would order the memory of the
    // reporting threads and so hide from ThreadSanitizer the very races being reported.
    std::atomic<bool> failed{false};
    cudaError_t error = cudaSuccess;
    std::string error_detail;

    void report(cudaError_t e, const std::string& detail) {
        if (failed.exchange(true, std::memory_order_relaxed)) return;
        error = e;
        error_detail = detail;
    }

    // 0xFF bytes are NaN as float, __half and __nv_bfloat16: unwritten shared memory is poison.
    void poison_dynamic_shared() {
        std::memset(shared_storage.data(), 0xFF, shared_storage.size());
        for (auto& copy : published) std::memcpy(copy.data(), shared_storage.data(), copy.size());
    }

    // Copies dynamic shared memory as the warp's barrier publishes it. Other warps may be writing
    // their own parts meanwhile: those bytes are ones this warp may not read before its next
    // barrier anyway, so their copied value never matters (and the race detector is told so).
    void publish(unsigned warp) noexcept {
#if defined(ATTN_EMULATION_TSAN)
        __tsan_ignore_thread_begin();
#endif
        std::memcpy(published[warp].data(), shared_storage.data(), shared_storage.size());
#if defined(ATTN_EMULATION_TSAN)
        __tsan_ignore_thread_end();
#endif
    }
};

inline void PublishToWarp::operator()() const noexcept { block->publish(warp); }
inline void PublishToBlock::operator()() const noexcept {
    for (unsigned w = 0; w < block->published.size(); ++w) block->publish(w);
}

// A cp.async issued by a thread and not yet waited for: 16 bytes from `source` (or zeros) to
// `destination`, copied only when a cp.async.wait_group retires its group (see mma_emulation.hpp).
struct AsyncCopy {
    void* destination;
    const void* source;  // null: zero-fill (src-size 0)
};

// The thread's cp.async state: copies not yet committed, and committed groups oldest first.
struct AsyncCopies {
    std::vector<AsyncCopy> uncommitted;
    std::vector<std::vector<AsyncCopy>> groups;
};

struct ThreadContext {
    BlockContext* block = nullptr;
    unsigned linear = 0;  // threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)
    unsigned shuffles = 0;  // shuffles this thread has made; their parity picks the exchange slot
    unsigned gathers = 0;   // warp_gathers alike
    AsyncCopies async;      // emptied before every block: a copy never lands in another block's memory
};

inline thread_local ThreadContext current_thread;
inline thread_local cudaError_t last_error = cudaSuccess;
inline thread_local std::string last_error_message;

[[noreturn]] inline void fail(const char* what) {
    std::fprintf(stderr, "CUDA emulation: %s\n", what);
    std::abort();
}

inline void set_last_error(cudaError_t e, const std::string& detail) {
    last_error = e;
    last_error_message = detail;
}

// An error found inside a kernel: the launch fails with it (the kernel keeps running, so the
// first error of the grid is the one reported).
inline void report(cudaError_t e, const std::string& detail) {
    if (current_thread.block == nullptr) fail(detail.c_str());
    current_thread.block->report(e, detail);
}

inline unsigned lane_id() { return current_thread.linear % kWarpSize; }
inline unsigned warp_id() { return current_thread.linear / kWarpSize; }

inline void require_full_mask(unsigned mask) {
    if (mask != 0xffffffffu) fail("only full-warp masks (0xffffffff) are emulated");
}

inline std::string address(const void* p) {
    char text[32];
    std::snprintf(text, sizeof text, "%p", p);
    return text;
}

// Reports `operation` at an address that is not a multiple of `alignment` bytes.
inline bool require_aligned(const char* operation, const void* p, std::size_t alignment) {
    if (reinterpret_cast<std::uintptr_t>(p) % alignment == 0) return true;
    report(cudaErrorMisalignedAddress, std::string(operation) + ": address " + address(p) + " is not " +
                                           std::to_string(alignment) + "-byte aligned");
    return false;
}

// A warp-collective operation reads `bytes` at p. If p lies in dynamic shared memory, the bytes
// must be as the warp's last barrier published them: a difference is a write that reached
// memory after that barrier, which a GPU need not show this warp (a race).
inline void check_published(const char* operation, const void* p, std::size_t bytes) {
    BlockContext& block = *current_thread.block;
    const auto* first = static_cast<const unsigned char*>(p);
    const unsigned char* base = block.shared_storage.data();
    if (first < base || first + bytes > base + block.shared_storage.size()) return;  // not shared memory
    const std::size_t offset = static_cast<std::size_t>(first - base);
#if defined(ATTN_EMULATION_TSAN)
    __tsan_ignore_thread_begin();  // the comparison itself is the race check
#endif
    const bool unchanged = std::memcmp(first, block.published[warp_id()].data() + offset, bytes) == 0;
#if defined(ATTN_EMULATION_TSAN)
    __tsan_ignore_thread_end();
#endif
    if (!unchanged) {
        report(cudaErrorLaunchFailure,
               std::string(operation) + ": warp " + std::to_string(warp_id()) + " reads shared memory at " +
                   address(p) + " written after its last __syncwarp/__syncthreads (a race: a shuffle does not "
                   "order shared memory)");
    }
}

inline void warp_barrier() { current_thread.block->warp_barriers[warp_id()]->arrive_and_wait(); }

// The rendezvous of a shuffle: every lane has published its value before any reads. Under
// ThreadSanitizer it is hidden from the race detector, since a GPU shuffle orders no memory.
inline void shuffle_rendezvous() {
#if defined(ATTN_EMULATION_TSAN)
    AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
#endif
    current_thread.block->shuffle_rendezvous[warp_id()]->arrive_and_wait();
#if defined(ATTN_EMULATION_TSAN)
    AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
#endif
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
// Functions"). Consecutive shuffles alternate between two slots per lane, so one rendezvous per
// shuffle suffices: a lane can only reach the shuffle after next, which reuses this slot, once
// every lane has passed the next shuffle's rendezvous, that is, once every lane has read this
// one. The slots are atomics, so only the values travel (see shuffle_rendezvous).
template <class T>
T __shfl_sync(unsigned mask, T value, int src_lane, int width = 32) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(std::uint64_t));
    using namespace attn::cuda_emulation;
    require_full_mask(mask);
    ThreadContext& self = current_thread;
    const unsigned warp_base = self.linear - lane_id();
    const unsigned segment = lane_id() / static_cast<unsigned>(width) * static_cast<unsigned>(width);
    const unsigned source = warp_base + segment + static_cast<unsigned>(src_lane) % static_cast<unsigned>(width);
    std::atomic<std::uint64_t>* slots =
        self.block->exchange.data() + (self.shuffles++ % 2) * self.block->exchange.size() / 2;
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    slots[self.linear].store(bits, std::memory_order_relaxed);
    shuffle_rendezvous();
    bits = slots[source].load(std::memory_order_relaxed);
    T result;
    std::memcpy(&result, &bits, sizeof(T));
    return result;
}

// __shfl_xor_sync: lane i reads lane i ^ lane_mask (the butterfly of a warp reduction).
template <class T>
T __shfl_xor_sync(unsigned mask, T value, int lane_mask, int width = 32) {
    const int lane = static_cast<int>(attn::cuda_emulation::lane_id());
    return __shfl_sync(mask, value, lane ^ lane_mask, width);
}

namespace attn::cuda_emulation {

// Every lane's `value`, indexed by lane: the building block of the emulated warp-collective
// instructions (mma.sync, ldmatrix) that read other lanes' registers. One rendezvous, with two
// slots per lane used alternately, as in __shfl_sync; like a shuffle it orders no memory.
template <class T>
std::array<T, kWarpSize> warp_gather(const T& value) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= kGatherWords * sizeof(std::uint64_t));
    ThreadContext& self = current_thread;
    const unsigned warp_base = self.linear - lane_id();
    std::atomic<std::uint64_t>* slots =
        self.block->gather_slots.data() + (self.gathers++ % 2) * self.block->gather_slots.size() / 2;
    std::uint64_t words[kGatherWords] = {};
    std::memcpy(words, &value, sizeof(T));
    for (std::size_t w = 0; w < kGatherWords; ++w) {
        slots[self.linear * kGatherWords + w].store(words[w], std::memory_order_relaxed);
    }
    shuffle_rendezvous();
    std::array<T, kWarpSize> all;
    for (unsigned lane = 0; lane < kWarpSize; ++lane) {
        for (std::size_t w = 0; w < kGatherWords; ++w) {
            words[w] = slots[(warp_base + lane) * kGatherWords + w].load(std::memory_order_relaxed);
        }
        std::memcpy(&all[lane], words, sizeof(T));
    }
    return all;
}

// Whether [p, p + bytes) lies in the running block's dynamic shared memory.
inline bool in_dynamic_shared(const void* p, std::size_t bytes) {
    const auto* first = static_cast<const unsigned char*>(p);
    const std::vector<unsigned char>& storage = current_thread.block->shared_storage;
    return first >= storage.data() && first + bytes <= storage.data() + storage.size();
}

}  // namespace attn::cuda_emulation

inline cudaError_t cudaGetLastError() {
    const cudaError_t e = attn::cuda_emulation::last_error;
    attn::cuda_emulation::last_error = cudaSuccess;
    return e;
}

// The CUDA runtime's text for e, followed by what the emulation found when it raised e.
inline const char* cudaGetErrorString(cudaError_t e) {
    const char* text = "unknown error";
    switch (e) {
        case cudaSuccess: text = "no error"; break;
        case cudaErrorInvalidConfiguration: text = "invalid configuration argument"; break;
        case cudaErrorInvalidValue: text = "invalid argument"; break;
        case cudaErrorMisalignedAddress: text = "misaligned address"; break;
        case cudaErrorLaunchFailure: text = "unspecified launch failure"; break;
        default: break;
    }
    thread_local std::string message;
    message = std::string(text) + " (emulated";
    if (e != cudaSuccess && !attn::cuda_emulation::last_error_message.empty()) {
        message += ": " + attn::cuda_emulation::last_error_message;
    }
    message += ")";
    return message.c_str();
}

inline cudaError_t cudaGetDevice(int* device) {
    *device = 0;
    return cudaSuccess;
}

inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device) {
    const attn::cuda_emulation::Device& d = attn::cuda_emulation::device();
    if (device != 0) return cudaErrorInvalidDevice;
    switch (attribute) {
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = static_cast<int>(d.max_shared_bytes_optin); break;
        case cudaDevAttrMultiProcessorCount: *value = d.multiprocessors; break;
        case cudaDevAttrComputeCapabilityMajor: *value = d.major; break;
        case cudaDevAttrComputeCapabilityMinor: *value = d.minor; break;
        default: attn::cuda_emulation::fail("cudaDeviceGetAttribute: attribute not emulated");
    }
    return cudaSuccess;
}

// Raises the kernel's dynamic shared memory limit, up to the device's opt-in maximum.
template <class Kernel>
cudaError_t cudaFuncSetAttribute(Kernel* kernel, cudaFuncAttribute attribute, int value) {
    using namespace attn::cuda_emulation;
    if (attribute != cudaFuncAttributeMaxDynamicSharedMemorySize) fail("cudaFuncSetAttribute: attribute not emulated");
    if (value < 0 || static_cast<std::size_t>(value) > device().max_shared_bytes_optin) {
        set_last_error(cudaErrorInvalidValue, "cudaFuncAttributeMaxDynamicSharedMemorySize = " + std::to_string(value) +
                                                  " exceeds the " + device().name + " maximum of " +
                                                  std::to_string(device().max_shared_bytes_optin) + " bytes");
        return cudaErrorInvalidValue;
    }
    FunctionAttributes& attributes = function_attributes();
    const std::lock_guard lock(attributes.mutex);
    attributes.max_dynamic_shared_bytes[reinterpret_cast<const void*>(kernel)] = static_cast<std::size_t>(value);
    return cudaSuccess;
}

namespace attn::cuda_emulation {

// The dynamic shared memory base, placed at exactly `alignment` bytes past a multiple of
// 2 * alignment: aligned as declared, and not by accident more.
inline unsigned char* dynamic_shared_memory(std::size_t alignment) {
    if (alignment == 0 || alignment > kMaxSharedAlignment || (alignment & (alignment - 1)) != 0) {
        fail("dynamic shared memory alignment must be a power of two up to 128");
    }
    unsigned char* storage = current_thread.block->shared_storage.data();
    const std::size_t misplacement = reinterpret_cast<std::uintptr_t>(storage) % (2 * alignment);
    return storage + (alignment + 2 * alignment - misplacement) % (2 * alignment);
}

// The dynamic shared memory a launch of `kernel` may use: 48 KB, or what it opted into.
inline std::size_t dynamic_shared_limit(const void* kernel) {
    FunctionAttributes& attributes = function_attributes();
    const std::lock_guard lock(attributes.mutex);
    const auto it = attributes.max_dynamic_shared_bytes.find(kernel);
    return it == attributes.max_dynamic_shared_bytes.end() ? kDefaultSharedBytes : it->second;
}

// Runs kernel(args...) on every thread of every block of the grid.
template <class... Params, class... Args>
void run_grid(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, Args... args) {
    const unsigned threads = block.x * block.y * block.z;
    if (threads == 0 || threads > 1024 || threads % kWarpSize != 0 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
        grid.y > 65535 || grid.z > 65535) {
        set_last_error(cudaErrorInvalidConfiguration, "");  // the emulation also insists on whole warps
        return;
    }
    const std::size_t shared_limit = dynamic_shared_limit(reinterpret_cast<const void*>(kernel));
    if (shared_bytes > shared_limit || shared_bytes > device().max_shared_bytes_optin) {
        set_last_error(cudaErrorInvalidValue,
                       std::to_string(shared_bytes) + " bytes of dynamic shared memory exceed the kernel's limit of " +
                           std::to_string(std::min(shared_limit, device().max_shared_bytes_optin)) +
                           " bytes (above 48 KB a kernel must opt in with cudaFuncSetAttribute, up to the " +
                           device().name + " maximum of " + std::to_string(device().max_shared_bytes_optin) + ")");
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
    {
        std::vector<std::jthread> workers;
        workers.reserve(threads);
        for (unsigned t = 0; t < threads; ++t) {
            workers.emplace_back([&, t] {
                current_thread = {&context, t, 0, 0, {}};
                threadIdx = dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
                blockDim = block;
                gridDim = grid;
                while (!done) {
                    blockIdx = next;
                    current_thread.async = {};
                    std::apply(kernel, params);
                    between_blocks.arrive_and_wait();
                }
            });
        }
    }  // the workers join here
    if (context.error != cudaSuccess) set_last_error(context.error, context.error_detail);
}

}  // namespace attn::cuda_emulation
