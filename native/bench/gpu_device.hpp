#pragma once
// The GPU the CUDA benchmarks run on (device 0), and the roofline preset of core's gpu_presets
// that describes it, so a measured time can be put next to the model's prediction for the same
// hardware. Compiled only when the benchmark is built with CUDA (ATTN_ENABLE_CUDA).
#include <string>
#include <string_view>

#include "attn/cost/gpu_presets.hpp"

namespace attn::bench {

struct CudaDevice {
    bool usable = false;
    std::string unavailable_reason;  // why not, when !usable ("cudaGetDeviceCount: ...")
    std::string name;                // cudaDeviceProp::name, "NVIDIA A100-SXM4-80GB"
    int compute_major = 0, compute_minor = 0;
    double memory_bytes = 0;
    int sm_count = 0;
    // Peak clocks the device reports (cudaDeviceGetAttribute: cudaDevAttrClockRate and
    // cudaDevAttrMemoryClockRate, kHz), 0 when unreadable. NVML is not linked, so the clocks the GPU
    // actually ran at are not known to the binary; scripts/bench.sh records nvidia-smi's current
    // and maximum clocks before the run.
    int peak_sm_clock_khz = 0, peak_memory_clock_khz = 0;
    int memory_bus_bits = 0;  // cudaDevAttrGlobalMemoryBusWidth
    std::string driver_release;    // "550.54.15" (/proc/driver/nvidia/version); empty when unknown
    int driver_cuda_version = 0;   // cudaDriverGetVersion: the newest CUDA the driver supports, 12040 = 12.4
    int runtime_cuda_version = 0;  // cudaRuntimeGetVersion: the CUDA runtime linked in
    const cost::GpuPreset* preset = nullptr;  // null: no preset describes this device
    std::string preset_note;                   // why there is none, or which one was chosen
};

// Device 0, detected on first use.
const CudaDevice& cuda_device();

// The preset for a device with this name (cudaDeviceProp::name) and compute capability, or null
// with `note` saying why. Only names known to denote exactly a preset's product match (an A100
// PCIe has other clocks and bandwidth than the A100 SXM preset), and the compute capability must
// equal the sm_XY in the preset's architecture.
const cost::GpuPreset* roofline_preset_for(std::string_view device_name, int compute_major, int compute_minor,
                                           std::string& note);

// "sm 1980 MHz, memory 2619 MHz, memory bus 5120 bits (device-reported peaks ...)"; an
// unreadable clock (0) is written "unreadable".
std::string gpu_peak_clocks_text(const CudaDevice& d);

// "12.4" from 12040.
std::string cuda_version_string(int version);

// Adds the device to the benchmark context: cuda_runtime_version, cuda_driver_version (the CUDA
// version the driver supports) and, with a usable device, gpu_name, gpu_driver_release,
// gpu_compute_capability, gpu_memory_bytes, gpu_sm_count, gpu_roofline_preset, gpu_peak_clocks
// (the device-reported peak SM and memory clocks and bus width, where readable); without one,
// cuda_device_unavailable (the reason).
void add_gpu_context();

}  // namespace attn::bench
