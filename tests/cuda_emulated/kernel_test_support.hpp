#pragma once
// Shared by the emulated kernel tests: attention problems described once, random inputs rounded
// to the kernel's input type, the matching sdpa reference in double, and the mask in both forms.
// Under the emulation "device pointers" are host pointers, so buffers are std::vectors.
#include <cstdint>
#include <string>
#include <vector>

#include "attention_kernels.hpp"
#include "attn/attention/sdpa.hpp"
#include "support.hpp"

namespace attn::test {

// One attention problem. With `masked`, a boolean mask [batch, 1, q_len, kv_len] is used (no
// causal rule): every fifth row, row 0 included, allows no key at all, the other entries are
// allowed with probability 0.7.
struct KernelCase {
    int batch, q_heads, kv_heads, q_len, kv_len, head_dim, value_dim;
    Causal causal = Causal::none;
    bool masked = false;

    cuda::AttentionShape shape() const { return {batch, q_heads, kv_heads, q_len, kv_len, head_dim, value_dim}; }
    std::string str() const {
        return "B=" + std::to_string(batch) + " Hq=" + std::to_string(q_heads) + " Hkv=" + std::to_string(kv_heads) +
               " L=" + std::to_string(q_len) + " S=" + std::to_string(kv_len) + " d=" + std::to_string(head_dim) +
               " dv=" + std::to_string(value_dim) + " causal=" + std::to_string(static_cast<int>(causal)) +
               (masked ? " masked" : "");
    }
};

struct KernelProblem {
    Qkv inputs;                          // already rounded to the kernel's input type
    std::vector<std::uint8_t> allowed;   // the boolean mask, when the case has one
    SdpaOptions reference_options;
    cuda::KernelOptions kernel_options;
};

// Random Q, K, V passed through `round` (double -> the kernel's type -> double), so the double
// reference sees exactly the inputs the kernel sees.
template <class Round>
KernelProblem make_problem(const KernelCase& c, std::uint64_t seed, Round round) {
    KernelProblem p;
    p.inputs = random_qkv({std::size_t(c.batch), std::size_t(c.q_heads), std::size_t(c.q_len), std::size_t(c.head_dim)},
                          std::size_t(c.kv_heads), std::size_t(c.kv_len), std::size_t(c.value_dim), seed);
    for (auto* t : {&p.inputs.q, &p.inputs.k, &p.inputs.v}) {
        for (double& x : t->data) x = round(x);
    }
    p.reference_options.causal = c.causal;
    p.kernel_options.causal = c.causal;
    if (c.masked) {
        const std::size_t rows = std::size_t(c.q_len), cols = std::size_t(c.kv_len);
        p.allowed.resize(std::size_t(c.batch) * rows * cols);
        for (std::size_t n = 0; n < p.allowed.size(); ++n) {
            const bool empty_row = (n / cols) % rows % 5 == 0;
            p.allowed[n] = !empty_row && uniform_from_hash(seed + 3, n) < 0.7;
        }
        p.reference_options.mask = AttentionMask::boolean({std::size_t(c.batch), 1, rows, cols}, p.allowed);
        p.kernel_options.mask = {p.allowed.data(), static_cast<long long>(rows * cols), 0,
                                 static_cast<long long>(cols)};
    }
    return p;
}

template <class T, class Convert>
std::vector<T> converted(const std::vector<double>& values, Convert convert) {
    std::vector<T> out;
    out.reserve(values.size());
    for (double x : values) out.push_back(convert(x));
    return out;
}

inline std::vector<double> widened(const std::vector<float>& values) { return {values.begin(), values.end()}; }

inline double round_to_float(double x) { return static_cast<float>(x); }
inline double round_to_half(double x) { return __half2float(__float2half_rn(static_cast<float>(x))); }
inline double round_to_bfloat16(double x) { return __bfloat162float(__float2bfloat16_rn(static_cast<float>(x))); }

// The 16-bit input types of the tensor-core kernels, with their output tolerances against sdpa in
// double on inputs pre-rounded to the type. u is the unit roundoff (FP16 2^-11, BF16 2^-8): the
// kernels round the softmax weights to the input type before P V (error <= u * sum_j p_j |v_j| / l,
// and |v| < 5 here) and round the output (error <= u |O|, |O| < 5): 6u covers both with margin,
// 3e-3 for FP16 and 2.4e-2 for BF16. lse comes from FP32 scores of exactly representable inputs
// (products of 16-bit values are exact in FP32), so only FP32 summation error remains: 1e-4.
struct HalfType {
    using T = __half;
    static constexpr double kOutputTolerance = 3e-3;
    static T from_double(double x) { return __float2half_rn(static_cast<float>(x)); }
    static double to_double(T x) { return __half2float(x); }
    static double round(double x) { return round_to_half(x); }
};

struct Bfloat16Type {
    using T = __nv_bfloat16;
    static constexpr double kOutputTolerance = 2.4e-2;
    static T from_double(double x) { return __float2bfloat16_rn(static_cast<float>(x)); }
    static double to_double(T x) { return __bfloat162float(x); }
    static double round(double x) { return round_to_bfloat16(x); }
};

inline constexpr double kSixteenBitLseTolerance = 1e-4;

struct FlashErrors {
    double output, lse;  // max |kernel - sdpa| over the output and over lse
};

// Runs a 16-bit flash kernel, launch(q, k, v, out, lse, shape, options) (flash_forward_tensor_core
// or flash_forward_mma), on case c with inputs from `seed`, and measures it against sdpa. out and
// lse start as -1, so a row the kernel never writes is an error.
template <class Type, class Launch>
FlashErrors sixteen_bit_flash_errors(const KernelCase& c, std::uint64_t seed, Launch launch) {
    using T = typename Type::T;
    const KernelProblem p = make_problem(c, seed, Type::round);
    const auto q = converted<T>(p.inputs.q.data, Type::from_double);
    const auto k = converted<T>(p.inputs.k.data, Type::from_double);
    const auto v = converted<T>(p.inputs.v.data, Type::from_double);
    std::vector<T> out(std::size_t(c.batch) * c.q_heads * c.q_len * c.value_dim, Type::from_double(-1.0));
    std::vector<float> lse(std::size_t(c.batch) * c.q_heads * c.q_len, -1.0f);
    launch(q.data(), k.data(), v.data(), out.data(), lse.data(), c.shape(), p.kernel_options);
    const auto ref = sdpa(p.inputs.q, p.inputs.k, p.inputs.v, p.reference_options);
    std::vector<double> out_values;
    for (T x : out) out_values.push_back(Type::to_double(x));
    return {max_abs_diff(out_values, ref.output.data), max_abs_diff(widened(lse), ref.lse)};
}

// sixteen_bit_flash_errors within the stated tolerances, the seed and case printed on failure.
template <class Type, class Launch>
void check_sixteen_bit_flash_kernel(const KernelCase& c, Launch launch) {
    const std::uint64_t seed = next_seed();
    INFO("seed " << seed << ", " << c.str());
    const FlashErrors e = sixteen_bit_flash_errors<Type>(c, seed, launch);
    CHECK(e.output < Type::kOutputTolerance);
    CHECK(e.lse < kSixteenBitLseTolerance);
}

}  // namespace attn::test
