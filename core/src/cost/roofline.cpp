#include "attn/cost/roofline.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"

namespace attn::cost {
namespace {

constexpr Precision kPrecisions[] = {Precision::fp32, Precision::tf32, Precision::fp16, Precision::fp8};

std::string num(double x) { return std::to_string(x); }

void require_finite_nonnegative(const char* name, double x) {
    if (!(x >= 0) || !std::isfinite(x)) throw Error(std::string(name) + ": must be a finite number >= 0, got " + num(x));
}

}  // namespace

std::string_view precision_name(Precision p) {
    switch (p) {
        case Precision::fp32: return "fp32";
        case Precision::tf32: return "tf32";
        case Precision::fp16: return "fp16";
        case Precision::fp8: return "fp8";
    }
    throw Error("precision: unknown enumerator " + std::to_string(static_cast<int>(p)));
}

Precision precision_from_name(std::string_view name) {
    for (Precision p : kPrecisions) {
        if (precision_name(p) == name) return p;
    }
    // bf16 runs at the fp16 rate on every preset and has the same size.
    if (name == "bf16") return Precision::fp16;
    throw Error("precision: unknown name '" + std::string(name) + "'; valid names are fp32, tf32, fp16, bf16, fp8");
}

std::size_t bytes_per_element(Precision p) {
    switch (p) {
        case Precision::fp32:
        case Precision::tf32: return 4;
        case Precision::fp16: return 2;
        case Precision::fp8: return 1;
    }
    throw Error("precision: unknown enumerator " + std::to_string(static_cast<int>(p)));
}

std::string_view bound_name(Bound b) { return b == Bound::memory ? "memory" : "compute"; }

namespace roofline {

double peak_flops(const GpuPreset& gpu, Precision p) {
    const Sourced* peak = nullptr;
    switch (p) {
        case Precision::fp32: peak = &gpu.fp32_flops; break;
        case Precision::tf32: peak = &gpu.tf32_flops; break;
        case Precision::fp16: peak = &gpu.fp16_flops; break;
        case Precision::fp8: peak = &gpu.fp8_flops; break;
    }
    if (peak == nullptr) throw Error("precision: unknown enumerator " + std::to_string(static_cast<int>(p)));
    if (!(peak->value > 0)) {
        throw Error("precision: " + std::string(gpu.name) + " has no dense " + std::string(precision_name(p)) +
                    " peak (" + std::string(peak->source) + ")");
    }
    return peak->value;
}

double arithmetic_intensity(double flops, double bytes) {
    require_finite_nonnegative("flops", flops);
    if (!(bytes > 0) || !std::isfinite(bytes)) throw Error("bytes: must be a finite number > 0, got " + num(bytes));
    return flops / bytes;
}

double ridge_point(const GpuPreset& gpu, Precision p) {
    if (!(gpu.hbm_bytes_per_s.value > 0)) {
        throw Error("gpu: " + std::string(gpu.name) + " has no memory bandwidth (" +
                    std::string(gpu.hbm_bytes_per_s.source) + ")");
    }
    return peak_flops(gpu, p) / gpu.hbm_bytes_per_s.value;
}

double attainable_flops(const GpuPreset& gpu, Precision p, double intensity_flops_per_byte) {
    if (!(intensity_flops_per_byte >= 0)) {
        throw Error("intensity: must be a number >= 0 (FLOP per byte), got " + num(intensity_flops_per_byte));
    }
    const double peak = peak_flops(gpu, p);
    const double memory_roof = intensity_flops_per_byte * gpu.hbm_bytes_per_s.value;
    return memory_roof < peak ? memory_roof : peak;
}

Bound bound(const GpuPreset& gpu, Precision p, double flops, double bytes) {
    return arithmetic_intensity(flops, bytes) < ridge_point(gpu, p) ? Bound::memory : Bound::compute;
}

}  // namespace roofline
}  // namespace attn::cost
