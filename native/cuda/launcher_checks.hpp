#pragma once
// Argument validation shared by the launchers in attention_kernels.hpp (host code only).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "attention_kernels.hpp"
#include "attn/error.hpp"

namespace attn::cuda::checks {

inline void in_range(const char* name, long long value, long long lo, long long hi) {
    if (value < lo || value > hi) {
        throw Error(std::string(name) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "], got " + std::to_string(value));
    }
}

inline void not_null(const char* name, const void* pointer) {
    if (pointer == nullptr) throw Error(std::string(name) + " must not be null");
}

inline constexpr long long kIntMax = std::numeric_limits<int>::max();
// Sequence lengths are capped at 2^30 so that kernel index arithmetic in int (a length rounded up
// to a whole tile, a tile offset plus a tile, a key index plus a warp's stride) cannot overflow.
inline constexpr long long kMaxSequenceLength = 1LL << 30;
// Flash kernels launch a grid (query blocks, q_heads, batch); CUDA allows 65535 in y and z.
inline constexpr long long kGridYZMax = 65535;

// Checks the sizes, head grouping, mask and causal options every kernel shares; returns the
// softmax scale (options.scale or 1 / sqrt(head_dim)).
inline float shape_and_options(const AttentionShape& s, const KernelOptions& o) {
    in_range("batch", s.batch, 1, kGridYZMax);
    in_range("q_heads", s.q_heads, 1, kGridYZMax);
    in_range("kv_heads", s.kv_heads, 1, s.q_heads);
    if (s.q_heads % s.kv_heads != 0) {
        throw Error("q_heads must be a multiple of kv_heads, got q_heads = " + std::to_string(s.q_heads) +
                    " and kv_heads = " + std::to_string(s.kv_heads));
    }
    in_range("q_len", s.q_len, 1, kMaxSequenceLength);
    in_range("kv_len", s.kv_len, 1, kMaxSequenceLength);
    in_range("head_dim", s.head_dim, 1, kIntMax);
    in_range("value_dim", s.value_dim, 1, kIntMax);
    if (o.scale && !std::isfinite(*o.scale)) {
        throw Error("scale must be finite, got " + std::to_string(*o.scale));
    }
    if (o.causal != Causal::none && o.causal != Causal::top_left && o.causal != Causal::bottom_right) {
        throw Error("causal must be none, top_left or bottom_right");
    }
    if (o.mask.allowed != nullptr) {
        if (o.causal != Causal::none) throw Error("mask: may not be combined with causal (as in SDPA)");
        in_range("mask.batch_stride", o.mask.batch_stride, 0, std::numeric_limits<long long>::max());
        in_range("mask.head_stride", o.mask.head_stride, 0, std::numeric_limits<long long>::max());
        in_range("mask.row_stride", o.mask.row_stride, 0, std::numeric_limits<long long>::max());
    }
    return o.scale ? *o.scale : 1.0f / std::sqrt(static_cast<float>(s.head_dim));
}

// Throws unless the current device allows `bytes` of dynamic shared memory per block (its opt-in
// maximum: 163 KB on sm_80, 227 KB on sm_90).
inline void shared_memory_fits(const char* kernel, std::size_t bytes) {
    int device = 0, max_bytes = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&max_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess) {
        throw Error(std::string(kernel) + ": cannot query the device's shared memory per block");
    }
    if (bytes > static_cast<std::size_t>(max_bytes)) {
        throw Error(std::string(kernel) + ": needs " + std::to_string(bytes) +
                    " bytes of shared memory per block, the device allows at most " + std::to_string(max_bytes));
    }
}

// The 16-bit flash kernels and the paged decode kernel are instantiated for these head dimensions.
inline void head_dim_64_or_128(int head_dim) {
    if (head_dim != 64 && head_dim != 128) throw Error("head_dim must be 64 or 128, got " + std::to_string(head_dim));
}

// Calls f(std::integral_constant<int, head_dim>{}): a launcher's one place that picks the
// instantiation of its kernel for the problem's head dimension (64 or 128, else it throws).
template <class F>
void for_head_dim(int head_dim, F&& f) {
    head_dim_64_or_128(head_dim);
    if (head_dim == 64) {
        f(std::integral_constant<int, 64>{});
    } else {
        f(std::integral_constant<int, 128>{});
    }
}

// The arguments of the 16-bit flash kernels (v2 tensor_core, v3 mma): head_dim == value_dim,
// 64 or 128; q, k, v, out non-null and 16-byte aligned (they are read and written in 16-byte
// vectors).
inline void sixteen_bit_flash_arguments(const AttentionShape& shape, const void* q, const void* k, const void* v,
                                        const void* out) {
    head_dim_64_or_128(shape.head_dim);
    if (shape.value_dim != shape.head_dim) {
        throw Error("value_dim must equal head_dim (" + std::to_string(shape.head_dim) + "), got " +
                    std::to_string(shape.value_dim));
    }
    const std::pair<const char*, const void*> pointers[] = {{"q", q}, {"k", k}, {"v", v}, {"out", out}};
    for (const auto& [name, pointer] : pointers) {
        not_null(name, pointer);
        if (reinterpret_cast<std::uintptr_t>(pointer) % 16 != 0) {
            throw Error(std::string(name) + " must be 16-byte aligned (vector loads)");
        }
    }
}

// Lets kKernel use `bytes` of dynamic shared memory: checked against the device's maximum, then
// opted into above the 48 KB default. The attribute persists, so it is set once per kernel
// (kKernel makes the static one per instantiation), by the first launch's thread-safe static
// initialisation.
template <auto kKernel>
void reserve_dynamic_shared_memory(const char* name, std::size_t bytes) {
    shared_memory_fits(name, bytes);
    static const cudaError_t opt_in =
        cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
    if (opt_in != cudaSuccess) {
        throw Error(std::string(name) + ": cannot reserve " + std::to_string(bytes) +
                    " bytes of shared memory: " + cudaGetErrorString(opt_in));
    }
}

}  // namespace attn::cuda::checks
