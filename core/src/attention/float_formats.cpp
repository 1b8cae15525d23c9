#include "attn/attention/float_formats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {
namespace {

// Rounds x to a binary floating-point grid with `mantissa_bits` stored fraction bits and smallest
// normal exponent `min_exponent` (below it the spacing stays 2^(min_exponent - mantissa_bits):
// subnormals). The division by a power of two is exact in double, and nearbyint rounds to nearest
// with ties to even under the default rounding mode.
double round_to_grid(double x, int mantissa_bits, int min_exponent) {
    int e = 0;
    std::frexp(x, &e);  // |x| = f * 2^e with f in [0.5, 1), so floor(log2 |x|) = e - 1
    const int exponent = std::max(e - 1, min_exponent);
    const double spacing = std::ldexp(1.0, exponent - mantissa_bits);
    return std::nearbyint(x / spacing) * spacing;
}

}  // namespace

double round_to_fp16(double x) {
    if (std::isnan(x) || std::isinf(x) || x == 0) return x;
    const double r = round_to_grid(x, 10, -14);
    // A value that rounds past 65504 (i.e. |x| >= 65520) overflows to infinity.
    return std::abs(r) > kFp16Max ? std::copysign(std::numeric_limits<double>::infinity(), x) : r;
}

double round_to_e4m3(double x) {
    if (std::isnan(x) || x == 0) return x;
    if (std::isinf(x)) return std::copysign(kE4m3Max, x);
    const double r = round_to_grid(x, 3, -6);
    return std::abs(r) > kE4m3Max ? std::copysign(kE4m3Max, x) : r;
}

}  // namespace attn
