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

}  // namespace attn::test
