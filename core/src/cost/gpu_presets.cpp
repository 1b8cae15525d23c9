#include "attn/cost/gpu_presets.hpp"

#include <array>
#include <limits>
#include <string>

#include "attn/error.hpp"

namespace attn::cost {
namespace {

// Units as the vendors print them (see Sourced): on-chip KB/MB are binary, the rest decimal.
constexpr double KiB = 1024.0;
constexpr double MiB = 1024.0 * 1024.0;
constexpr double GB = 1e9;
constexpr double TB = 1e12;
constexpr double TFLOPS = 1e12;
constexpr double kUnpublished = std::numeric_limits<double>::quiet_NaN();

// Documents every preset cites. NVIDIA's datasheets print tensor-core peaks "with sparsity"
// (marked *) next to, or instead of, the dense peak; a source that says "x / 2" halves the
// sparsity figure, as the datasheets' footnotes instruct.
constexpr std::array<GpuPreset, 10> kPresets{{
    {"v100-sxm2-32gb", "NVIDIA Tesla V100 SXM2 32GB", "Volta (sm_70)",
     {80, "NVIDIA Tesla V100 GPU Architecture whitepaper (2017), Table 1 'Comparison of NVIDIA Tesla GPUs', p. 10: 80 SMs"},
     {96 * KiB, "NVIDIA Tesla V100 GPU Architecture whitepaper (2017), Table 1, p. 10: shared memory size / SM "
                "configurable up to 96 KB (of 128 KB L1/shared); CUDA C++ Programming Guide, compute capability 7.0: 96 KB"},
     {6144 * KiB, "NVIDIA Tesla V100 GPU Architecture whitepaper (2017), Table 1, p. 10: L2 cache size 6144 KB"},
     {32 * GB, "NVIDIA Tesla V100 GPU Accelerator datasheet (2018), specifications, V100 SXM2 column: 32/16 GB HBM2"},
     {900 * GB, "NVIDIA Tesla V100 GPU Accelerator datasheet (2018), specifications, V100 SXM2 column: 900 GB/sec"},
     {15.7 * TFLOPS, "NVIDIA Tesla V100 GPU Accelerator datasheet (2018), V100 SXM2 column: single-precision 15.7 TFLOPS"},
     {0, "not supported: TF32 tensor cores arrive with Ampere (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020)"},
     {125 * TFLOPS, "NVIDIA Tesla V100 GPU Accelerator datasheet (2018), V100 SXM2 column: tensor performance 125 TFLOPS "
                    "(FP16 multiply, FP32 accumulate; Volta has no sparsity feature, so this is dense)"},
     {0, "not supported: FP8 tensor cores arrive with Hopper and Ada (NVIDIA H100 whitepaper, 2022)"},
     "HBM2"},

    {"t4", "NVIDIA T4", "Turing (sm_75)",
     {40, "derived: NVIDIA T4 Tensor Core GPU datasheet (2019): 2,560 CUDA cores; NVIDIA Turing GPU Architecture "
          "whitepaper (2018), section 'Turing Streaming Multiprocessor': 64 CUDA cores per SM; 2560 / 64 = 40"},
     {64 * KiB, "CUDA C++ Programming Guide, technical specifications, compute capability 7.5: 64 KB"},
     {kUnpublished, "not published: the NVIDIA T4 datasheet (2019) gives no L2 size"},
     {16 * GB, "NVIDIA T4 Tensor Core GPU datasheet (2019), specifications: GPU memory 16 GB GDDR6"},
     {320 * GB, "NVIDIA T4 Tensor Core GPU datasheet (2019), specifications: memory bandwidth 320+ GB/s"},
     {8.1 * TFLOPS, "NVIDIA T4 Tensor Core GPU datasheet (2019), specifications: single precision 8.1 TFLOPS"},
     {0, "not supported: TF32 tensor cores arrive with Ampere (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020)"},
     {65 * TFLOPS, "NVIDIA T4 Tensor Core GPU datasheet (2019), specifications: mixed precision (FP16/FP32) 65 TFLOPS "
                   "(Turing has no sparsity feature, so this is dense)"},
     {0, "not supported: FP8 tensor cores arrive with Hopper and Ada (NVIDIA H100 whitepaper, 2022)"},
     "GDDR6"},

    {"a100-sxm-40gb", "NVIDIA A100 40GB SXM", "Ampere (sm_80)",
     {108, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4 'Comparison of NVIDIA Data Center "
           "GPUs', p. 36: 108 SMs"},
     {164 * KiB, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4, p. 37: shared memory size / SM "
                 "configurable up to 164 KB (of 192 KB L1/shared); CUDA C++ Programming Guide, compute capability 8.0: 164 KB"},
     {40960 * KiB, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4, p. 37: L2 cache size 40960 KB"},
     {40 * GB, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table, A100 40GB SXM column: 40GB HBM2"},
     {1555 * GB, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table, A100 40GB SXM column: 1,555GB/s"},
     {19.5 * TFLOPS, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table: FP32 19.5 TFLOPS"},
     {156 * TFLOPS, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table: Tensor Float 32 (TF32) "
                    "156 TFLOPS | 312 TFLOPS* (* with sparsity; dense 156)"},
     {312 * TFLOPS, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table: FP16 / BFLOAT16 Tensor Core "
                    "312 TFLOPS | 624 TFLOPS* (* with sparsity; dense 312)"},
     {0, "not supported: the A100 datasheet lists no FP8 (FP8 tensor cores arrive with Hopper)"},
     "HBM2"},

    {"a100-sxm-80gb", "NVIDIA A100 80GB SXM", "Ampere (sm_80)",
     {108, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4 'Comparison of NVIDIA Data Center "
           "GPUs', p. 36: 108 SMs"},
     {164 * KiB, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4, p. 37: shared memory size / SM "
                 "configurable up to 164 KB (of 192 KB L1/shared); CUDA C++ Programming Guide, compute capability 8.0: 164 KB"},
     {40960 * KiB, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4, p. 37: L2 cache size 40960 KB"},
     {80 * GB, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table, A100 80GB SXM column: 80GB HBM2e"},
     {2039 * GB, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table, A100 80GB SXM column: 2,039GB/s"},
     {19.5 * TFLOPS, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table: FP32 19.5 TFLOPS"},
     {156 * TFLOPS, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table: Tensor Float 32 (TF32) "
                    "156 TFLOPS | 312 TFLOPS* (* with sparsity; dense 156)"},
     {312 * TFLOPS, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table: FP16 / BFLOAT16 Tensor Core "
                    "312 TFLOPS | 624 TFLOPS* (* with sparsity; dense 312)"},
     {0, "not supported: the A100 datasheet lists no FP8 (FP8 tensor cores arrive with Hopper)"},
     "HBM2e"},

    {"h100-sxm", "NVIDIA H100 SXM5 80GB", "Hopper (sm_90)",
     {132, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3 'Comparison of NVIDIA A100 and H100 "
           "Data Center GPUs', p. 39, H100 SXM5 column: 132 SMs"},
     {228 * KiB, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3, p. 40: shared memory size / SM "
                 "configurable up to 228 KB (of 256 KB L1/shared); CUDA C++ Programming Guide, compute capability 9.0: 228 KB"},
     {50 * MiB, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3, p. 40: L2 cache size 50 MB"},
     {80 * GB, "NVIDIA H100 Tensor Core GPU datasheet (2023), product specifications, H100 SXM column: GPU memory 80GB"},
     {3.35 * TB, "NVIDIA H100 Tensor Core GPU datasheet (2023), product specifications, H100 SXM column: "
                 "GPU memory bandwidth 3.35TB/s"},
     {67 * TFLOPS, "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 SXM column: FP32 67 teraFLOPS"},
     {494.5 * TFLOPS, "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 SXM column: TF32 Tensor Core 989 teraFLOPS* "
                      "(* with sparsity) / 2"},
     {989.5 * TFLOPS, "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 SXM column: FP16 / BFLOAT16 Tensor Core "
                      "1,979 teraFLOPS* (* with sparsity) / 2"},
     {1979 * TFLOPS, "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 SXM column: FP8 Tensor Core 3,958 teraFLOPS* "
                     "(* with sparsity) / 2"},
     "HBM3"},

    {"h100-pcie", "NVIDIA H100 PCIe 80GB", "Hopper (sm_90)",
     {114, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3, p. 39, H100 PCIe column: 114 SMs"},
     {228 * KiB, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3, p. 40: shared memory size / SM "
                 "configurable up to 228 KB; CUDA C++ Programming Guide, compute capability 9.0: 228 KB"},
     {50 * MiB, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3, p. 40, H100 PCIe column: "
                "L2 cache size 50 MB"},
     {80 * GB, "NVIDIA H100 Tensor Core GPU datasheet (2023), product specifications, H100 PCIe column: GPU memory 80GB"},
     {2.0 * TB, "NVIDIA H100 Tensor Core GPU datasheet (2023), product specifications, H100 PCIe column: "
                "GPU memory bandwidth 2TB/s"},
     {51 * TFLOPS, "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 PCIe column: FP32 51 teraFLOPS"},
     {378 * TFLOPS, "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 PCIe column: TF32 Tensor Core 756 teraFLOPS* "
                    "(* with sparsity) / 2"},
     {756.5 * TFLOPS, "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 PCIe column: FP16 / BFLOAT16 Tensor Core "
                      "1,513 teraFLOPS* (* with sparsity) / 2"},
     {1513 * TFLOPS, "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 PCIe column: FP8 Tensor Core 3,026 teraFLOPS* "
                     "(* with sparsity) / 2"},
     "HBM2e"},

    {"h200-sxm", "NVIDIA H200 SXM 141GB", "Hopper (sm_90)",
     {kUnpublished, "not published: the NVIDIA H200 Tensor Core GPU datasheet (2024) gives no SM count"},
     {228 * KiB, "CUDA C++ Programming Guide, technical specifications, compute capability 9.0 "
                                  "(H200 is Hopper, sm_90): 228 KB"},
     {kUnpublished, "not published: the NVIDIA H200 Tensor Core GPU datasheet (2024) gives no L2 size"},
     {141 * GB, "NVIDIA H200 Tensor Core GPU datasheet (2024), specifications, H200 SXM column: GPU memory 141GB"},
     {4.8 * TB, "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM column: GPU memory bandwidth 4.8TB/s"},
     {67 * TFLOPS, "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM column: FP32 67 TFLOPS"},
     {494.5 * TFLOPS, "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM column: TF32 Tensor Core 989 TFLOPS* "
                      "(* with sparsity) / 2"},
     {989.5 * TFLOPS, "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM column: FP16 / BFLOAT16 Tensor Core "
                      "1,979 TFLOPS* (* with sparsity) / 2"},
     {1979 * TFLOPS, "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM column: FP8 Tensor Core 3,958 TFLOPS* "
                     "(* with sparsity) / 2"},
     "HBM3e"},

    {"b200", "NVIDIA B200 (HGX B200)", "Blackwell (sm_100)",
     {kUnpublished, "not published: NVIDIA's HGX B200 / DGX B200 specifications give no SM count"},
     {228 * KiB, "CUDA C++ Programming Guide, technical specifications, compute capability 10.0: 228 KB"},
     {kUnpublished, "not published: NVIDIA's HGX B200 / DGX B200 specifications give no L2 size"},
     {180 * GB, "NVIDIA HGX platform specifications (2025), 'Individual Blackwell GPU Specifications', HGX B200 column: "
                "180GB HBM3E"},
     {7.7 * TB, "NVIDIA HGX platform specifications (2025), 'Individual Blackwell GPU Specifications', HGX B200 column: "
                "GPU memory bandwidth 7.7TB/s"},
     {75 * TFLOPS, "NVIDIA HGX platform specifications (2025), HGX B200 column: FP32 75 TFLOPS"},
     {1100 * TFLOPS, "NVIDIA HGX platform specifications (2025), HGX B200 column: TF32 Tensor Core 2.2 PFLOPS "
                     "(with sparsity) / 2"},
     {2250 * TFLOPS, "NVIDIA HGX platform specifications (2025), HGX B200 column: FP16/BF16 Tensor Core 4.5 PFLOPS "
                     "(with sparsity) / 2"},
     {4500 * TFLOPS, "NVIDIA HGX platform specifications (2025), HGX B200 column: FP8/FP6 Tensor Core 9 PFLOPS "
                     "(with sparsity) / 2"},
     "HBM3e"},

    {"rtx-4090", "NVIDIA GeForce RTX 4090", "Ada Lovelace (sm_89)",
     {128, "NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, Table 2 'GeForce RTX 4090 full "
           "specifications': 128 SMs"},
     {100 * KiB, "NVIDIA Ada GPU Architecture Tuning Guide, section 1.4.1.1 Occupancy: shared memory capacity per SM "
                 "is 100 KB; CUDA C++ Programming Guide, compute capability 8.9: 100 KB"},
     {73728 * KiB, "NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, Table 2: L2 cache size 73728 KB"},
     {24 * GB, "NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, Table 2: 24 GB GDDR6X"},
     {1008 * GB, "NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, Table 2: memory bandwidth 1008 GB/sec"},
     {82.6 * TFLOPS, "NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, Table 2: peak FP32 TFLOPS "
                     "(non-Tensor) 82.6"},
     {82.6 * TFLOPS, "NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, Table 2: peak TF32 Tensor TFLOPS "
                     "82.6/165.2 (dense/sparse)"},
     {165.2 * TFLOPS, "NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, Table 2: peak FP16 Tensor TFLOPS with "
                      "FP32 accumulate 165.2/330.4 (dense/sparse; FP16 accumulate is 330.3, but attention "
                      "accumulates in FP32)"},
     {330.3 * TFLOPS, "NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, Table 2: peak FP8 Tensor TFLOPS with "
                      "FP32 accumulate 330.3/660.6 (dense/sparse; value corrected in v2.02)"},
     "GDDR6X"},

    {"l40s", "NVIDIA L40S", "Ada Lovelace (sm_89)",
     {142, "derived: NVIDIA L40S datasheet (2023): 568 fourth-generation Tensor Cores; NVIDIA Ada GPU Architecture "
           "whitepaper: 4 Tensor Cores per SM; 568 / 4 = 142 (the datasheet's 142 RT Cores, one per SM, agree)"},
     {100 * KiB, "NVIDIA Ada GPU Architecture Tuning Guide, section 1.4.1.1 Occupancy: shared memory capacity per SM "
                 "is 100 KB; CUDA C++ Programming Guide, compute capability 8.9: 100 KB"},
     {kUnpublished, "not published: the NVIDIA L40S datasheet (2023) gives no L2 size"},
     {48 * GB, "NVIDIA L40S datasheet (2023), technical specifications: GPU memory 48GB GDDR6 with ECC"},
     {864 * GB, "NVIDIA L40S datasheet (2023), technical specifications: memory bandwidth 864GB/s"},
     {91.6 * TFLOPS, "NVIDIA L40S datasheet (2023), technical specifications: FP32 91.6 teraFLOPS"},
     {183 * TFLOPS, "NVIDIA L40S datasheet (2023), technical specifications: TF32 Tensor Core 183 | 366* teraFLOPS "
                    "(* with sparsity; dense 183)"},
     {362.05 * TFLOPS, "NVIDIA L40S datasheet (2023), technical specifications: FP16 / BF16 Tensor Core 362.05 | 733* "
                       "teraFLOPS (* with sparsity; dense 362.05; the datasheet does not state the accumulator)"},
     {733 * TFLOPS, "NVIDIA L40S datasheet (2023), technical specifications: FP8 Tensor Core 733 | 1,466* teraFLOPS "
                    "(* with sparsity; dense 733)"},
     "GDDR6"},
}};

}  // namespace

std::span<const GpuPreset> gpu_presets() { return kPresets; }

const GpuPreset& gpu_preset(std::string_view id) {
    for (const GpuPreset& p : kPresets) {
        if (p.id == id) return p;
    }
    std::string valid;
    for (const GpuPreset& p : kPresets) valid += (valid.empty() ? "" : ", ") + std::string(p.id);
    throw Error("gpu: unknown preset '" + std::string(id) + "'; valid ids are " + valid);
}

}  // namespace attn::cost
