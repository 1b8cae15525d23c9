#include "attn/cost/standard_breakdown.hpp"

#include <algorithm>
#include <string>

#include "attn/error.hpp"

namespace attn::cost {

std::string_view operation_kind_name(OperationKind kind) {
    switch (kind) {
        case OperationKind::matmul: return "matmul";
        case OperationKind::elementwise: return "elementwise";
    }
    throw Error("kind: unknown enumerator " + std::to_string(static_cast<int>(kind)));
}

std::vector<OperationCost> standard_attention_forward_breakdown(const AttentionShape& s, const GpuPreset& gpu,
                                                                Precision precision, std::size_t block_q,
                                                                bool dropout) {
    validate(s);
    constexpr std::size_t kMaxBlock = std::size_t{1} << 24;
    if (block_q < 1 || block_q > kMaxBlock) {
        throw Error("block_q: must be in [1, 16777216] (query rows per block of the products), got " +
                    std::to_string(block_q));
    }
    const double peak = roofline::peak_flops(gpu, precision);  // throws for an unsupported precision
    const double bandwidth = gpu.hbm_bytes_per_s.value;
    if (!(bandwidth > 0)) throw Error("gpu: " + std::string(gpu.name) + " has no published memory bandwidth");

    const double heads = static_cast<double>(s.batch) * static_cast<double>(s.heads);
    const double eb = static_cast<double>(bytes_per_element(precision)) * heads;  // bytes per element, all heads
    const double L = static_cast<double>(s.q_len), S = static_cast<double>(s.kv_len);
    const double d = static_cast<double>(s.head_dim), dv = static_cast<double>(s.value_dim);
    const double q_blocks = static_cast<double>((s.q_len + block_q - 1) / block_q);
    const double LS = L * S;

    std::vector<OperationCost> ops;
    const auto matmul = [&](std::string_view name, double flops, double elements) {
        const double bytes = elements * eb;
        ops.push_back({name, OperationKind::matmul, flops, bytes, std::max(flops / peak, bytes / bandwidth)});
    };
    const auto pass = [&](std::string_view name) {  // one read and one write of an L x S matrix
        const double bytes = 2 * LS * eb;
        ops.push_back({name, OperationKind::elementwise, 0, bytes, bytes / bandwidth});
    };
    // Matmul FLOPs count every entry, masked or not: an unfused product computes them all.
    matmul("matmul_qk", 2 * LS * d * heads, L * d + q_blocks * S * d + LS);
    if (s.causal != Causal::none) pass("mask");
    pass("softmax");
    if (dropout) pass("dropout");
    matmul("matmul_pv", 2 * LS * dv * heads, LS + q_blocks * S * dv + L * dv);
    return ops;
}

}  // namespace attn::cost
