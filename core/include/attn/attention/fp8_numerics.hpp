#pragma once
// FlashAttention-3's numerical-error experiment (Shah et al. 2024, arXiv:2407.08608, §4.3, Table 3),
// emulated on the CPU: attention computed with the roundings of FP16 and FP8 (e4m3) kernels,
// compared by RMSE with the same attention in double.
//
// Inputs, as FA3 §4.3: every entry of Q, K, V is N(0, 1) + N(0, 100) * Bernoulli(0.001) -- a 0.1%
// chance of an extra term of standard deviation 10, imitating LLM outlier features. §4.3 does not
// state the sequence length or head dimension; the defaults take those of FA3's ablation (Table 2:
// sequence length 8448, head dim 128) for one head, and compare the first 512 query rows (rows are
// independent, so a subset estimates the same RMSE).
//
// Methods (accumulation is FP32 in every GEMM, as on tensor cores; outputs are rounded to FP16):
//   fp32_standard             everything in FP32: the floor of the table
//   fp16_standard             "Baseline FP16": FP16 Q, K, V; S = QK^T and the scaled S stored in
//                             FP16; softmax computed in FP32 and P stored in FP16; O = PV
//   fp16_flash                FlashAttention-2/3 FP16: tiles of S and the online softmax kept in FP32;
//                             only P (for the PV GEMM) is rounded to FP16
//   fp8_standard_per_tensor   "Baseline FP8": Q, K, V in e4m3 with one scale each (amax / 448);
//                             S and P stored in FP16 as in the FP16 baseline; P quantised to e4m3
//                             with the scale of its known range [0, 1] (P * 448)
//   fp8_flash_*               FA3 FP8: the FlashAttention loop with FP32 softmax state; Q, K, V in
//                             e4m3, scaled per tensor or per block of `block_rows` rows ("block
//                             quantization"), with or without Q and K rotated by the same random
//                             Hadamard transform first ("incoherent processing", hadamard.hpp);
//                             the unnormalised P~ = exp(S - m) in [0, 1] is multiplied by 2^8 before
//                             e4m3 so its largest entries sit near the top of e4m3's range (448)
//                             instead of underflowing below 2^-9 (an exact power-of-two scale,
//                             divided out with the row sum at the end).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "attn/tensor.hpp"

namespace attn {

struct Fp8ExperimentOptions {
    std::size_t seq_len = 8448;          // N queries and N keys, in [1, 65536]
    std::size_t head_dim = 128;          // d, a power of two in [1, 1024] (Hadamard transform)
    std::size_t eval_rows = 512;         // the first eval_rows query rows are compared, in [1, seq_len]
    std::size_t block_rows = 64;         // rows per quantisation block and per K/V tile, in [1, seq_len]
    double outlier_probability = 0.001;  // in [0, 1]
    double outlier_stddev = 10.0;        // finite, > 0
    std::uint64_t seed = 0;              // inputs and the Hadamard signs
};

enum class NumericsMethod {
    fp32_standard,
    fp16_standard,
    fp16_flash,
    fp8_standard_per_tensor,
    fp8_flash_per_tensor,
    fp8_flash_per_block,
    fp8_flash_per_tensor_hadamard,
    fp8_flash_per_block_hadamard,
};

inline constexpr std::array<NumericsMethod, 8> kNumericsMethods = {
    NumericsMethod::fp32_standard,           NumericsMethod::fp16_standard,
    NumericsMethod::fp16_flash,              NumericsMethod::fp8_standard_per_tensor,
    NumericsMethod::fp8_flash_per_tensor,    NumericsMethod::fp8_flash_per_block,
    NumericsMethod::fp8_flash_per_tensor_hadamard, NumericsMethod::fp8_flash_per_block_hadamard,
};

std::string_view numerics_method_name(NumericsMethod method);  // e.g. "fp8_flash_per_block_hadamard"

// A published RMSE for the method's configuration, with the column label of FA3 Table 3.
struct PublishedRmse {
    std::string_view label;  // "FlashAttention-3 FP8"
    double rmse;
};
inline constexpr std::string_view kFa3Table3Source =
    "Shah et al. 2024, FlashAttention-3 (arXiv:2407.08608), Table 3";
std::optional<PublishedRmse> fa3_table3_rmse(NumericsMethod method);

// Q, K, V of shape [1, 1, seq_len, head_dim] drawn as FA3 §4.3 describes. Throws attn::Error for
// options out of range.
struct OutlierQkv {
    Tensor4<double> q, k, v;
};
OutlierQkv outlier_qkv(const Fp8ExperimentOptions& options);

// The outputs of the first options.eval_rows query rows under `method`, row-major
// [eval_rows, head_dim]. q, k, v must all have shape [1, 1, seq_len, head_dim] as in `options`.
std::vector<double> emulated_attention(const OutlierQkv& qkv, NumericsMethod method,
                                       const Fp8ExperimentOptions& options);

struct NumericsResult {
    NumericsMethod method;
    double rmse;  // sqrt(mean((O - O_ref)^2)) over eval_rows x head_dim outputs; O_ref = sdpa in double
};

// Every method of kNumericsMethods on one draw of outlier_qkv(options).
std::vector<NumericsResult> fp8_experiment(const Fp8ExperimentOptions& options);

}  // namespace attn
