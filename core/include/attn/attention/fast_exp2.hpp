#pragma once
// 2^x in float without a library call, written so that a loop over an array of x compiles to
// SIMD code (no branches, no errno): the optimised CPU attention applies it to every score, where
// a scalar std::exp per element would cost more than the two matrix products around it.
//
// Method (Cody & Waite range reduction): x = n + f with n = round(x) and f in [-1/2, 1/2];
// 2^x = 2^n * 2^f. 2^n is built directly in the exponent bits; 2^f = e^(f ln 2) is the Taylor
// polynomial of degree 7, whose truncation error on |f ln 2| <= ln(2)/2 is below
// (ln 2 / 2)^8 / 8! < 5e-9, under half a float ulp, so the result is within about 2 ulp of 2^x.
//
// Inputs below -126 (including -infinity, i.e. masked scores) return exactly 0 -- results that
// would be subnormal are flushed, which changes a softmax weight by less than 2^-126. Inputs
// above 127 return 2^127 * 2^f clamped to 2^127 (attention only evaluates x <= 0). NaN returns
// NaN: finite inputs can still produce one (scores that overflow to infinity, minus an infinite
// maximum), and it must reach the callers' finiteness checks -- and converting a NaN to an integer
// exponent, as the reduction below would, is undefined behaviour.
#include <cstdint>
#include <cstring>

#include "attn/host_device.hpp"

namespace attn {

namespace fast_exp2_detail {
// (ln 2)^k / k!, the Taylor coefficients of 2^f = e^(f ln 2), computed at compile time.
constexpr double kLn2 = 0.693147180559945309417232121458176568;
constexpr float taylor(int k) {
    double c = 1.0;
    for (int i = 1; i <= k; ++i) c = c * kLn2 / i;
    return static_cast<float>(c);
}
}  // namespace fast_exp2_detail

ATTN_HD inline float fast_exp2(float x) {
    using namespace fast_exp2_detail;
    const float input = x;
    const bool underflow = x < -126.0f, nan = x != x;
    x = underflow || nan ? -126.0f : (x > 127.0f ? 127.0f : x);
    // round-to-nearest by the float trick: adding 1.5 * 2^23 pushes the fraction bits out.
    constexpr float kShift = 12582912.0f;  // 1.5 * 2^23
    const float n = (x + kShift) - kShift;
    const float f = x - n;
    float p = taylor(7);
    p = p * f + taylor(6);
    p = p * f + taylor(5);
    p = p * f + taylor(4);
    p = p * f + taylor(3);
    p = p * f + taylor(2);
    p = p * f + taylor(1);
    p = p * f + 1.0f;
    const std::int32_t bits = (static_cast<std::int32_t>(n) + 127) << 23;
    float scale;  // the float with exponent field n + 127: 2^n (memcpy: Emscripten 3.1.6 lacks std::bit_cast)
    std::memcpy(&scale, &bits, sizeof scale);
    return underflow ? 0.0f : nan ? input : p * scale;
}

}  // namespace attn
