#pragma once
// GPU presets for the roofline cost model: the hardware numbers a post's tables and figures use,
// each with the vendor document (name and page) it comes from. FLOP/s are DENSE peaks: NVIDIA's
// datasheets also print "with sparsity" figures, twice as large, which attention cannot use.
#include <span>
#include <string_view>

namespace attn::cost {

// A number from a primary source, in the unit the field's name states. Byte sizes follow the
// vendor's units: KB and MB of on-chip memory are binary (the whitepapers print 40 MB of L2 as
// 40960 KB), GB of device memory and GB/s or TB/s of bandwidth are decimal, as printed.
struct Sourced {
    double value;             // 0 when the GPU does not support the feature (e.g. FP8 before Hopper/Ada);
                              // NaN when no primary source publishes the number (source says which)
    std::string_view source;  // "NVIDIA A100 Tensor Core GPU Datasheet (2021), p. 2"
};

struct GpuPreset {
    std::string_view id;            // stable key used by bindings and URLs: "a100-sxm-80gb"
    std::string_view name;          // "NVIDIA A100 80GB SXM"
    std::string_view architecture;  // "Ampere (sm_80)"
    Sourced sm_count;
    Sourced boost_clock_hz;              // the clock NVIDIA computes peak rates at ("GPU Boost Clock")
    Sourced register_file_per_sm_bytes;  // 32-bit registers of one SM, in bytes
    Sourced sram_per_sm_bytes;  // largest shared memory one SM can give its thread blocks
    Sourced l2_bytes;
    Sourced l2_bytes_per_s;  // aggregate L2 bandwidth: no document cited here prints it (NaN throughout)
    Sourced hbm_bytes;
    Sourced hbm_bytes_per_s;
    Sourced host_link_bytes_per_s;  // the GPU's link to host memory (PCIe), as the datasheet prints it:
                                    // both directions together
    Sourced fp32_flops;  // dense FP32 on CUDA cores (the "non-matmul" rate)
    Sourced tf32_flops;  // dense TF32 tensor-core peak
    Sourced fp16_flops;  // dense FP16/BF16 tensor-core peak with FP32 accumulation
    Sourced fp8_flops;   // dense FP8 tensor-core peak
    std::string_view memory_type;  // "HBM2e", "GDDR6X": hbm_bytes is the device memory, whatever its kind
};

// Aggregate shared-memory (SRAM) bandwidth of all SMs, bytes per second: the CUDA C++ Programming
// Guide's 32 banks of 32 bits per clock (128 bytes per clock per SM) x sm_count x boost_clock_hz.
// NaN, with a "not published" source naming the missing input, when either is unpublished. On the
// A100 this gives the "SRAM: 19 TB/s" of the FlashAttention paper (Dao et al. 2022, Fig. 1 left).
Sourced sram_bytes_per_s(const GpuPreset& gpu);

// Every preset, in a stable order (oldest architecture first).
std::span<const GpuPreset> gpu_presets();

// The preset with this id; throws attn::Error listing the valid ids otherwise.
const GpuPreset& gpu_preset(std::string_view id);

}  // namespace attn::cost
