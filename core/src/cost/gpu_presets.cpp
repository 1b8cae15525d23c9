#include "attn/cost/gpu_presets.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "attn/error.hpp"

namespace attn::cost {
namespace {

// Units as the vendors print them (see Sourced): on-chip KB/MB are binary, the rest decimal.
constexpr double KiB = 1024.0;
constexpr double MHz = 1e6;
constexpr double MiB = 1024.0 * 1024.0;
constexpr double GB = 1e9;
constexpr double TB = 1e12;
constexpr double TFLOPS = 1e12;
constexpr double kUnpublished = std::numeric_limits<double>::quiet_NaN();

// NVIDIA computes its peak rates at the boost clock ("Peak rates are based on GPU Boost Clock",
// A100 whitepaper, Table 4 notes): FP32 peak = SMs x FP32 cores per SM x 2 FLOP per FMA x clock.
// Where no document prints the clock, it follows from the printed FP32 peak.
constexpr double clock_from_fp32_peak(double fp32_flops, double sms, double fp32_cores_per_sm) {
    return fp32_flops / (sms * fp32_cores_per_sm * 2);
}

// 64 K 32-bit registers per SM (CUDA C++ Programming Guide, technical specifications, "maximum
// number of 32-bit registers per SM", the same for every compute capability here), in bytes.
constexpr double kRegisterFile64K = 64 * 1024 * 4.0;

// Shared memory delivers 32 banks x 32 bits = 128 bytes per clock per SM (CUDA C++ Programming
// Guide, compute capabilities, "Shared Memory": "Shared memory has 32 banks ... Each bank has a
// bandwidth of 32 bits per clock cycle"; the later capabilities refer back to this description).
constexpr double kSharedMemoryBytesPerClockPerSm = 32 * 4.0;

constexpr std::string_view kNoL2Bandwidth =
    "not published: none of the documents cited for this preset gives an L2 bandwidth";

// Documents every preset cites. NVIDIA's datasheets print tensor-core peaks "with sparsity"
// (marked *) next to, or instead of, the dense peak; a source that says "x / 2" halves the
// sparsity figure, as the datasheets' footnotes instruct.
constexpr std::array<GpuPreset, 10> kPresets{{
    {"v100-sxm2-32gb", "NVIDIA Tesla V100 SXM2 32GB", "Volta (sm_70)",
     {80, "NVIDIA Tesla V100 GPU Architecture whitepaper (2017), Table 1 'Comparison of NVIDIA Tesla GPUs', p. 10: 80 SMs"},
     {1530 * MHz, "NVIDIA Tesla V100 GPU Architecture whitepaper (2017), Table 1, p. 10: GPU Boost Clock 1530 MHz"},
     {256 * KiB, "NVIDIA Tesla V100 GPU Architecture whitepaper (2017), Table 1, p. 10: Register File Size / SM 256 KB"},
     {96 * KiB, "NVIDIA Tesla V100 GPU Architecture whitepaper (2017), Table 1, p. 10: shared memory size / SM "
                "configurable up to 96 KB (of 128 KB L1/shared); CUDA C++ Programming Guide, compute capability 7.0: 96 KB"},
     {6144 * KiB, "NVIDIA Tesla V100 GPU Architecture whitepaper (2017), Table 1, p. 10: L2 cache size 6144 KB"},
     {kUnpublished, kNoL2Bandwidth},
     {32 * GB, "NVIDIA Tesla V100 GPU Accelerator datasheet (2018), specifications, V100 SXM2 column: 32/16 GB HBM2"},
     {900 * GB, "NVIDIA Tesla V100 GPU Accelerator datasheet (2018), specifications, V100 SXM2 column: 900 GB/sec"},
     {kUnpublished, "not published in the documents cited for this preset: the V100 datasheet's interconnect row could not be checked against the document"},
     {15.7 * TFLOPS, "NVIDIA Tesla V100 GPU Accelerator datasheet (2018), V100 SXM2 column: single-precision 15.7 TFLOPS"},
     {0, "not supported: TF32 tensor cores arrive with Ampere (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020)"},
     {125 * TFLOPS, "NVIDIA Tesla V100 GPU Accelerator datasheet (2018), V100 SXM2 column: tensor performance 125 TFLOPS "
                    "(FP16 multiply, FP32 accumulate; Volta has no sparsity feature, so this is dense)"},
     {0, "not supported: FP8 tensor cores arrive with Hopper and Ada (NVIDIA H100 whitepaper, 2022)"},
     "HBM2"},

    {"t4", "NVIDIA T4", "Turing (sm_75)",
     {40, "derived: NVIDIA T4 Tensor Core GPU datasheet (2019): 2,560 CUDA cores; NVIDIA Turing GPU Architecture "
          "whitepaper (2018), section 'Turing Streaming Multiprocessor': 64 CUDA cores per SM; 2560 / 64 = 40"},
     {clock_from_fp32_peak(8.1 * TFLOPS, 40, 64), "derived: NVIDIA T4 datasheet (2019): single precision 8.1 TFLOPS / (40 SMs x 64 FP32 cores per SM (Turing whitepaper) x 2 FLOP per FMA)"},
     {kRegisterFile64K, "CUDA C++ Programming Guide, technical specifications, compute capability 7.5: 64 K 32-bit registers per SM = 256 KB"},
     {64 * KiB, "CUDA C++ Programming Guide, technical specifications, compute capability 7.5: 64 KB"},
     {kUnpublished, "not published: the NVIDIA T4 datasheet (2019) gives no L2 size"},
     {kUnpublished, kNoL2Bandwidth},
     {16 * GB, "NVIDIA T4 Tensor Core GPU datasheet (2019), specifications: GPU memory 16 GB GDDR6"},
     {320 * GB, "NVIDIA T4 Tensor Core GPU datasheet (2019), specifications: memory bandwidth 320+ GB/s"},
     {kUnpublished, "not published in the documents cited for this preset: the T4 datasheet names an x16 PCIe Gen3 interface; no bandwidth figure was checked"},
     {8.1 * TFLOPS, "NVIDIA T4 Tensor Core GPU datasheet (2019), specifications: single precision 8.1 TFLOPS"},
     {0, "not supported: TF32 tensor cores arrive with Ampere (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020)"},
     {65 * TFLOPS, "NVIDIA T4 Tensor Core GPU datasheet (2019), specifications: mixed precision (FP16/FP32) 65 TFLOPS "
                   "(Turing has no sparsity feature, so this is dense)"},
     {0, "not supported: FP8 tensor cores arrive with Hopper and Ada (NVIDIA H100 whitepaper, 2022)"},
     "GDDR6"},

    {"a100-sxm-40gb", "NVIDIA A100 40GB SXM", "Ampere (sm_80)",
     {108, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4 'Comparison of NVIDIA Data Center "
           "GPUs', p. 36: 108 SMs"},
     {1410 * MHz, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4: GPU Boost Clock 1410 MHz "
                  "(also the A100 column of the H100 whitepaper's Table 3)"},
     {256 * KiB, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4: Register File Size / SM 256 KB"},
     {164 * KiB, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4, p. 37: shared memory size / SM "
                 "configurable up to 164 KB (of 192 KB L1/shared); CUDA C++ Programming Guide, compute capability 8.0: 164 KB"},
     {40960 * KiB, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4, p. 37: L2 cache size 40960 KB"},
     {kUnpublished, "not published: the A100 whitepaper (2020) gives only a ratio, 'the A100 L2 cache provides 2.3x "
                    "the L2 cache read bandwidth of V100', and no V100 figure to apply it to"},
     {40 * GB, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table, A100 40GB SXM column: 40GB HBM2"},
     {1555 * GB, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table, A100 40GB SXM column: 1,555GB/s"},
     {64 * GB, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table, A100 40GB SXM column: interconnect 'PCIe Gen4: 64GB/s' (the datasheet does not say per direction; the H100 whitepaper (2022), section 'PCIe Gen 5', gives A100's Gen 4 PCIe as 64 GB/sec total bandwidth, 32 GB/sec in each direction)"},
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
     {1410 * MHz, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4: GPU Boost Clock 1410 MHz "
                  "(also the A100 column of the H100 whitepaper's Table 3)"},
     {256 * KiB, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4: Register File Size / SM 256 KB"},
     {164 * KiB, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4, p. 37: shared memory size / SM "
                 "configurable up to 164 KB (of 192 KB L1/shared); CUDA C++ Programming Guide, compute capability 8.0: 164 KB"},
     {40960 * KiB, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 4, p. 37: L2 cache size 40960 KB"},
     {kUnpublished, "not published: the A100 whitepaper (2020) gives only a ratio, 'the A100 L2 cache provides 2.3x "
                    "the L2 cache read bandwidth of V100', and no V100 figure to apply it to"},
     {80 * GB, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table, A100 80GB SXM column: 80GB HBM2e"},
     {2039 * GB, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table, A100 80GB SXM column: 2,039GB/s"},
     {64 * GB, "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table, A100 80GB SXM column: interconnect 'PCIe Gen4: 64GB/s' (the datasheet does not say per direction; the H100 whitepaper (2022), section 'PCIe Gen 5', gives A100's Gen 4 PCIe as 64 GB/sec total bandwidth, 32 GB/sec in each direction)"},
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
     {clock_from_fp32_peak(67 * TFLOPS, 132, 128), "derived: the H100 whitepaper (2022), Table 3, prints the GPU Boost Clock as 'Not finalized'; NVIDIA H100 datasheet (2023), H100 SXM column: FP32 67 teraFLOPS / (132 SMs x 128 FP32 cores per SM (whitepaper Table 3) x 2 FLOP per FMA)"},
     {256 * KiB, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3, p. 40: Register File Size / SM 256 KB"},
     {228 * KiB, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3, p. 40: shared memory size / SM "
                 "configurable up to 228 KB (of 256 KB L1/shared); CUDA C++ Programming Guide, compute capability 9.0: 228 KB"},
     {50 * MiB, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3, p. 40: L2 cache size 50 MB"},
     {kUnpublished, kNoL2Bandwidth},
     {80 * GB, "NVIDIA H100 Tensor Core GPU datasheet (2023), product specifications, H100 SXM column: GPU memory 80GB"},
     {3.35 * TB, "NVIDIA H100 Tensor Core GPU datasheet (2023), product specifications, H100 SXM column: "
                 "GPU memory bandwidth 3.35TB/s"},
     {128 * GB, "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 SXM column: interconnect 'PCIe Gen5: 128GB/s'; NVIDIA H100 whitepaper (2022), section 'PCIe Gen 5': an x16 interface with 128 GB/sec total bandwidth, 64 GB/sec in each direction"},
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
     {clock_from_fp32_peak(51 * TFLOPS, 114, 128), "derived: the H100 whitepaper (2022), Table 3, prints the GPU Boost Clock as 'Not finalized'; NVIDIA H100 datasheet (2023), H100 PCIe column: FP32 51 teraFLOPS / (114 SMs x 128 FP32 cores per SM (whitepaper Table 3) x 2 FLOP per FMA)"},
     {256 * KiB, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3, p. 40: Register File Size / SM 256 KB"},
     {228 * KiB, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3, p. 40: shared memory size / SM "
                 "configurable up to 228 KB; CUDA C++ Programming Guide, compute capability 9.0: 228 KB"},
     {50 * MiB, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 3, p. 40, H100 PCIe column: "
                "L2 cache size 50 MB"},
     {kUnpublished, kNoL2Bandwidth},
     {80 * GB, "NVIDIA H100 Tensor Core GPU datasheet (2023), product specifications, H100 PCIe column: GPU memory 80GB"},
     {2.0 * TB, "NVIDIA H100 Tensor Core GPU datasheet (2023), product specifications, H100 PCIe column: "
                "GPU memory bandwidth 2TB/s"},
     {128 * GB, "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 PCIe column: interconnect 'PCIe Gen5: 128GB/s'; NVIDIA H100 whitepaper (2022), section 'PCIe Gen 5': an x16 interface with 128 GB/sec total bandwidth, 64 GB/sec in each direction"},
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
     {kUnpublished, "not published: the NVIDIA H200 datasheet (2024) gives no clock, nor an SM count to derive one from its FP32 peak"},
     {kRegisterFile64K, "CUDA C++ Programming Guide, technical specifications, compute capability 9.0 (H200 is Hopper, sm_90): 64 K 32-bit registers per SM = 256 KB"},
     {228 * KiB, "CUDA C++ Programming Guide, technical specifications, compute capability 9.0 "
                                  "(H200 is Hopper, sm_90): 228 KB"},
     {kUnpublished, "not published: the NVIDIA H200 Tensor Core GPU datasheet (2024) gives no L2 size"},
     {kUnpublished, kNoL2Bandwidth},
     {141 * GB, "NVIDIA H200 Tensor Core GPU datasheet (2024), specifications, H200 SXM column: GPU memory 141GB"},
     {4.8 * TB, "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM column: GPU memory bandwidth 4.8TB/s"},
     {128 * GB, "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM column: interconnect 'NVIDIA NVLink: 900GB/s, PCIe Gen5: 128GB/s' (an x16 Gen5 link as on H100: both directions together)"},
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
     {kUnpublished, "not published: NVIDIA's HGX B200 specifications give no clock, nor an SM count to derive one"},
     {kRegisterFile64K, "CUDA C++ Programming Guide, technical specifications, compute capability 10.0: 64 K 32-bit registers per SM = 256 KB"},
     {228 * KiB, "CUDA C++ Programming Guide, technical specifications, compute capability 10.0: 228 KB"},
     {kUnpublished, "not published: NVIDIA's HGX B200 / DGX B200 specifications give no L2 size"},
     {kUnpublished, kNoL2Bandwidth},
     {180 * GB, "NVIDIA HGX platform specifications (2025), 'Individual Blackwell GPU Specifications', HGX B200 column: "
                "180GB HBM3E"},
     {7.7 * TB, "NVIDIA HGX platform specifications (2025), 'Individual Blackwell GPU Specifications', HGX B200 column: "
                "GPU memory bandwidth 7.7TB/s"},
     {kUnpublished, "not published in the documents cited for this preset: no per-GPU host-link figure for HGX B200 was checked"},
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
     {clock_from_fp32_peak(82.6 * TFLOPS, 128, 128), "derived: NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, Table 2: peak FP32 82.6 TFLOPS / (128 SMs x 128 FP32 cores per SM x 2 FLOP per FMA)"},
     {kRegisterFile64K, "CUDA C++ Programming Guide, technical specifications, compute capability 8.9: 64 K 32-bit registers per SM = 256 KB"},
     {100 * KiB, "NVIDIA Ada GPU Architecture Tuning Guide, section 1.4.1.1 Occupancy: shared memory capacity per SM "
                 "is 100 KB; CUDA C++ Programming Guide, compute capability 8.9: 100 KB"},
     {73728 * KiB, "NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, Table 2: L2 cache size 73728 KB"},
     {kUnpublished, kNoL2Bandwidth},
     {24 * GB, "NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, Table 2: 24 GB GDDR6X"},
     {1008 * GB, "NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, Table 2: memory bandwidth 1008 GB/sec"},
     {kUnpublished, "not published in the documents cited for this preset: the Ada whitepaper's Table 2 was not checked for a host-link figure"},
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
     {clock_from_fp32_peak(91.6 * TFLOPS, 142, 128), "derived: NVIDIA L40S datasheet (2023): FP32 91.6 teraFLOPS / (142 SMs (see sm_count) x 128 FP32 cores per SM (Ada whitepaper) x 2 FLOP per FMA)"},
     {kRegisterFile64K, "CUDA C++ Programming Guide, technical specifications, compute capability 8.9: 64 K 32-bit registers per SM = 256 KB"},
     {100 * KiB, "NVIDIA Ada GPU Architecture Tuning Guide, section 1.4.1.1 Occupancy: shared memory capacity per SM "
                 "is 100 KB; CUDA C++ Programming Guide, compute capability 8.9: 100 KB"},
     {kUnpublished, "not published: the NVIDIA L40S datasheet (2023) gives no L2 size"},
     {kUnpublished, kNoL2Bandwidth},
     {48 * GB, "NVIDIA L40S datasheet (2023), technical specifications: GPU memory 48GB GDDR6 with ECC"},
     {864 * GB, "NVIDIA L40S datasheet (2023), technical specifications: memory bandwidth 864GB/s"},
     {kUnpublished, "not published in the documents cited for this preset: the L40S datasheet's interconnect row could not be checked against the document"},
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

Sourced sram_bytes_per_s(const GpuPreset& gpu) {
    for (auto [name, s] : {std::pair{"sm_count", gpu.sm_count}, std::pair{"boost_clock_hz", gpu.boost_clock_hz}}) {
        if (!std::isnan(s.value) && !(std::isfinite(s.value) && s.value > 0)) {
            throw Error(std::string("gpu.") + name + " must be a finite number > 0 or NaN (not published), got " +
                        std::to_string(s.value) + " for preset '" + std::string(gpu.id) + "'");
        }
    }
    if (std::isnan(gpu.sm_count.value)) {
        return {kUnpublished, "not published: the SM count is not published (see sm_count), so the aggregate "
                              "shared-memory bandwidth cannot be derived"};
    }
    if (std::isnan(gpu.boost_clock_hz.value)) {
        return {kUnpublished, "not published: the boost clock is not published (see boost_clock_hz), so the aggregate "
                              "shared-memory bandwidth cannot be derived"};
    }
    return {kSharedMemoryBytesPerClockPerSm * gpu.sm_count.value * gpu.boost_clock_hz.value,
            "derived: CUDA C++ Programming Guide, compute capabilities, 'Shared Memory': 32 banks, each 32 bits per "
            "clock cycle = 128 bytes per clock per SM; x sm_count x boost_clock_hz (sources in those fields)"};
}

const GpuPreset& gpu_preset(std::string_view id) {
    for (const GpuPreset& p : kPresets) {
        if (p.id == id) return p;
    }
    std::string valid;
    for (const GpuPreset& p : kPresets) valid += (valid.empty() ? "" : ", ") + std::string(p.id);
    throw Error("gpu: unknown preset '" + std::string(id) + "'; valid ids are " + valid);
}

}  // namespace attn::cost
