#include "gpu_device.hpp"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "attn/error.hpp"

namespace attn::bench {
namespace {

// cudaDeviceProp::name of the products a preset describes exactly (as nvidia-smi prints them).
// Names outside this list -- other memory sizes, PCIe or NVL variants with other clocks and
// bandwidth -- get no preset rather than a near miss.
constexpr std::pair<std::string_view, std::string_view> kDeviceNames[] = {
    {"Tesla V100-SXM2-32GB", "v100-sxm2-32gb"},
    {"Tesla T4", "t4"},
    {"NVIDIA A100-SXM4-40GB", "a100-sxm-40gb"},
    {"NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"},
    {"NVIDIA H100 80GB HBM3", "h100-sxm"},  // the SXM5 board; the PCIe card is "NVIDIA H100 PCIe"
    {"NVIDIA H100 PCIe", "h100-pcie"},
    {"NVIDIA H200", "h200-sxm"},  // the SXM board; the PCIe card is "NVIDIA H200 NVL"
    {"NVIDIA B200", "b200"},
    {"NVIDIA GeForce RTX 4090", "rtx-4090"},
    {"NVIDIA L40S", "l40s"},
};

// 80 from "Ampere (sm_80)"; -1 when the architecture names no sm_XY.
int preset_sm(const cost::GpuPreset& preset) {
    const auto at = preset.architecture.find("sm_");
    if (at == std::string_view::npos) return -1;
    int sm = 0;
    bool digits = false;
    for (std::size_t i = at + 3; i < preset.architecture.size() && preset.architecture[i] >= '0' &&
                                 preset.architecture[i] <= '9';
         ++i) {
        sm = sm * 10 + (preset.architecture[i] - '0');
        digits = true;
    }
    return digits ? sm : -1;
}

// The kernel driver's release ("550.54.15"), from the first line of /proc/driver/nvidia/version
// (Linux, driver loaded): its first token of digits and dots. Empty when unavailable.
std::string driver_release() {
    std::ifstream file("/proc/driver/nvidia/version");
    std::string line, token;
    std::getline(file, line);
    std::istringstream words(line);
    while (words >> token) {
        const bool version_like = token.find('.') != std::string::npos &&
                                  token.find_first_not_of("0123456789.") == std::string::npos;
        if (version_like) return token;
    }
    return {};
}

std::string error_text(const char* call, cudaError_t e) {
    return std::string(call) + " returned " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

CudaDevice detect() {
    CudaDevice d;
    cudaRuntimeGetVersion(&d.runtime_cuda_version);
    cudaDriverGetVersion(&d.driver_cuda_version);  // 0 when no driver is installed
    int count = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
        d.unavailable_reason = error_text("cudaGetDeviceCount", e);
        // Without an NVIDIA driver the runtime reports an "insufficient" driver; say what it means.
        if (d.driver_cuda_version == 0) d.unavailable_reason = "no NVIDIA driver installed; " + d.unavailable_reason;
        return d;
    }
    if (count == 0) {
        d.unavailable_reason = "cudaGetDeviceCount found no CUDA device";
        return d;
    }
    cudaDeviceProp props{};
    if (const cudaError_t e = cudaGetDeviceProperties(&props, 0); e != cudaSuccess) {
        d.unavailable_reason = error_text("cudaGetDeviceProperties", e);
        return d;
    }
    d.usable = true;
    d.driver_release = driver_release();
    d.name = props.name;
    d.compute_major = props.major;
    d.compute_minor = props.minor;
    d.memory_bytes = static_cast<double>(props.totalGlobalMem);
    d.sm_count = props.multiProcessorCount;
    // CUDA 13's cudaDeviceProp no longer carries the clocks; the attributes still do. A failed
    // query leaves 0 (unreadable), which the context reports as such.
    auto attribute = [](cudaDeviceAttr what) {
        int value = 0;
        return cudaDeviceGetAttribute(&value, what, 0) == cudaSuccess ? value : 0;
    };
    d.peak_sm_clock_khz = attribute(cudaDevAttrClockRate);
    d.peak_memory_clock_khz = attribute(cudaDevAttrMemoryClockRate);
    d.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
    d.preset = roofline_preset_for(d.name, d.compute_major, d.compute_minor, d.preset_note);
    return d;
}

}  // namespace

const cost::GpuPreset* roofline_preset_for(std::string_view device_name, int compute_major, int compute_minor,
                                           std::string& note) {
    for (const auto& [name, id] : kDeviceNames) {
        if (name != device_name) continue;
        const cost::GpuPreset* found = nullptr;
        try {
            found = &cost::gpu_preset(id);
        } catch (const Error& e) {  // an id this table names but core no longer has
            note = e.what();
            return nullptr;
        }
        const cost::GpuPreset& preset = *found;
        const int sm = compute_major * 10 + compute_minor;
        if (preset_sm(preset) != sm) {
            note = "device '" + std::string(device_name) + "' reports compute capability " +
                   std::to_string(compute_major) + "." + std::to_string(compute_minor) + ", but preset " +
                   std::string(id) + " is " + std::string(preset.architecture) + ": no roofline column";
            return nullptr;
        }
        note = "roofline preset " + std::string(id) + " (" + std::string(preset.name) + ")";
        return &preset;
    }
    note = "no roofline preset in core's gpu_presets describes device '" + std::string(device_name) +
           "': the CUDA benchmarks report no roofline_percent";
    return nullptr;
}

std::string gpu_peak_clocks_text(const CudaDevice& d) {
    auto mhz = [](int khz) { return khz > 0 ? std::to_string(khz / 1000) + " MHz" : std::string("unreadable"); };
    std::string text = "sm " + mhz(d.peak_sm_clock_khz) + ", memory " + mhz(d.peak_memory_clock_khz);
    if (d.memory_bus_bits > 0) text += ", memory bus " + std::to_string(d.memory_bus_bits) + " bits";
    return text + " (device-reported peaks via cudaDeviceGetAttribute, not the clocks the run saw)";
}

std::string cuda_version_string(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

const CudaDevice& cuda_device() {
    static const CudaDevice device = detect();
    return device;
}

void add_gpu_context() {
    const CudaDevice& d = cuda_device();
    benchmark::AddCustomContext("cuda_runtime_version", cuda_version_string(d.runtime_cuda_version));
    benchmark::AddCustomContext("cuda_driver_version",
                                d.driver_cuda_version ? cuda_version_string(d.driver_cuda_version) : "no driver");
    if (!d.usable) {
        benchmark::AddCustomContext("cuda_device_unavailable", d.unavailable_reason);
        return;
    }
    benchmark::AddCustomContext("gpu_name", d.name);
    benchmark::AddCustomContext("gpu_driver_release", d.driver_release.empty() ? "unknown" : d.driver_release);
    benchmark::AddCustomContext("gpu_compute_capability",
                                std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor));
    benchmark::AddCustomContext("gpu_memory_bytes", std::to_string(static_cast<long long>(d.memory_bytes)));
    benchmark::AddCustomContext("gpu_sm_count", std::to_string(d.sm_count));
    benchmark::AddCustomContext("gpu_roofline_preset", d.preset ? std::string(d.preset->id) : "none");
    benchmark::AddCustomContext("gpu_peak_clocks", gpu_peak_clocks_text(d));
}

}  // namespace attn::bench
