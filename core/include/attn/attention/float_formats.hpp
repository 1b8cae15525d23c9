#pragma once
// Rounding to the low-precision formats attention kernels use, emulated in double so the CPU can
// measure what a GPU's FP16 and FP8 arithmetic does to attention (FlashAttention-3, §3.3, §4.3).
//
//   binary16 (IEEE 754-2008): 1 sign, 5 exponent bits (bias 15), 10 mantissa bits; normals from
//     2^-14, subnormals down to 2^-24, largest finite 65504; overflow rounds to +-infinity.
//   FP8 E4M3 (OCP 8-bit Floating Point Specification, v1.0, 2023): 1 sign, 4 exponent bits
//     (bias 7), 3 mantissa bits; normals from 2^-6, subnormals down to 2^-9, largest finite 448;
//     no infinities (S.1111.111 is NaN). Conversion here is the spec's saturating mode: anything
//     beyond +-448, infinities included, becomes +-448.
// Both round to nearest, ties to even, and keep the sign of zero; NaN stays NaN.
namespace attn {

inline constexpr double kFp16Max = 65504.0;
inline constexpr double kE4m3Max = 448.0;

double round_to_fp16(double x);
double round_to_e4m3(double x);

}  // namespace attn
