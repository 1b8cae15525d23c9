#pragma once
// The element types the CUDA kernels read and write, converted on the host: the CUDA benchmarks
// upload converted inputs and widen outputs with these, and the emulated tests of the benchmarks'
// checks do the same (cuda_fp16.h and cuda_bf16.h compile in host code).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <vector>

namespace attn::bench {

template <class T>
struct ElementTraits;
template <>
struct ElementTraits<float> {
    static float from_float(float x) { return x; }
    static double to_double(float x) { return x; }
};
template <>
struct ElementTraits<__half> {
    static __half from_float(float x) { return __float2half_rn(x); }
    static double to_double(__half x) { return __half2float(x); }
};
template <>
struct ElementTraits<__nv_bfloat16> {
    static __nv_bfloat16 from_float(float x) { return __float2bfloat16_rn(x); }
    static double to_double(__nv_bfloat16 x) { return __bfloat162float(x); }
};

// Each value rounded to nearest (even) in T.
template <class T>
std::vector<T> converted(const std::vector<float>& values) {
    std::vector<T> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = ElementTraits<T>::from_float(values[i]);
    return out;
}

}  // namespace attn::bench
