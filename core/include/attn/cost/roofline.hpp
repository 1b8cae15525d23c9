#pragma once
// The roofline model (Williams, Waterman & Patterson, "Roofline: An Insightful Visual Performance
// Model for Multicore Architectures", CACM 2009): a kernel that performs F FLOPs and moves B bytes
// to and from device memory runs no faster than max(F / peak, B / bandwidth). Its arithmetic
// intensity I = F / B decides which term wins: below the ridge point peak / bandwidth the kernel
// is memory-bound, at or above it compute-bound. Attainable FLOP/s = min(peak, I x bandwidth).
#include <cstddef>
#include <string_view>

#include "attn/cost/gpu_presets.hpp"

namespace attn::cost {

// The arithmetic a kernel runs in. fp16 also stands for bf16: every preset's tensor cores run
// both at the same rate. tf32 is FP32 storage with TF32 tensor-core math.
enum class Precision { fp32, tf32, fp16, fp8 };

enum class Bound { memory, compute };

std::string_view precision_name(Precision p);  // "fp32", "tf32", "fp16", "fp8"
// The precision with this name; throws attn::Error listing the valid names otherwise.
Precision precision_from_name(std::string_view name);
// Bytes one element occupies in device memory: 4 (fp32, tf32), 2 (fp16/bf16), 1 (fp8).
std::size_t bytes_per_element(Precision p);

std::string_view bound_name(Bound b);  // "memory", "compute"

namespace roofline {

// Dense peak FLOP/s of `gpu` at `p`: the CUDA-core FP32 rate for fp32, the tensor-core rate
// otherwise. Throws attn::Error when the GPU does not support `p` (e.g. FP8 on an A100).
double peak_flops(const GpuPreset& gpu, Precision p);

// FLOPs per byte of device-memory traffic. flops >= 0 and bytes > 0, both finite.
double arithmetic_intensity(double flops, double bytes);

// peak / bandwidth in FLOP per byte: the intensity at which the two roofs meet.
double ridge_point(const GpuPreset& gpu, Precision p);

// min(peak, intensity x bandwidth) in FLOP/s, for an intensity >= 0 (may be +infinity).
double attainable_flops(const GpuPreset& gpu, Precision p, double intensity_flops_per_byte);

// memory when flops / bytes is below the ridge point, compute otherwise (ties are compute:
// both roofs then take the same time). flops >= 0, bytes > 0.
Bound bound(const GpuPreset& gpu, Precision p, double flops, double bytes);

}  // namespace roofline
}  // namespace attn::cost
