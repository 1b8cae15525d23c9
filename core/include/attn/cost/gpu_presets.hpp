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
    Sourced sram_per_sm_bytes;  // largest shared memory one SM can give its thread blocks
    Sourced l2_bytes;
    Sourced hbm_bytes;
    Sourced hbm_bytes_per_s;
    Sourced fp32_flops;  // dense FP32 on CUDA cores (the "non-matmul" rate)
    Sourced tf32_flops;  // dense TF32 tensor-core peak
    Sourced fp16_flops;  // dense FP16/BF16 tensor-core peak with FP32 accumulation
    Sourced fp8_flops;   // dense FP8 tensor-core peak
    std::string_view memory_type;  // "HBM2e", "GDDR6X": hbm_bytes is the device memory, whatever its kind
};

// Every preset, in a stable order (oldest architecture first).
std::span<const GpuPreset> gpu_presets();

// The preset with this id; throws attn::Error listing the valid ids otherwise.
const GpuPreset& gpu_preset(std::string_view id);

}  // namespace attn::cost
