// Unfused standard attention, kernel by kernel: the per-operation bytes add up to the traffic
// model's forward count, the optional passes appear only when asked for, each time follows the
// roofline, and bad arguments are rejected with the argument named.
#include <algorithm>
#include <string>
#include <tuple>

#include "attn/cost/attention_cost.hpp"
#include "attn/cost/gpu_presets.hpp"
#include "attn/cost/standard_breakdown.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::cost;

namespace {

std::string names_of(const std::vector<OperationCost>& ops) {
    std::string out;
    for (const auto& op : ops) out += std::string(op.name) + " ";
    return out;
}

}  // namespace

TEST_CASE("standard breakdown: bytes add up to the traffic model's forward count, odd sizes included") {
    const GpuPreset& a100 = gpu_preset("a100-sxm-80gb");
    for (const auto& [L, S, d, dv, bq] : {std::tuple{1024, 1024, 64, 64, 64}, std::tuple{777, 1301, 40, 72, 96},
                                          std::tuple{1, 5, 3, 7, 1}, std::tuple{4096, 4096, 128, 128, 8192}}) {
        AttentionShape s;
        s.batch = 3, s.heads = 5, s.q_len = L, s.kv_len = S, s.head_dim = d, s.value_dim = dv;
        const auto ops = standard_attention_forward_breakdown(s, a100, Precision::fp16, bq, false);
        CHECK(names_of(ops) == "matmul_qk softmax matmul_pv ");
        double bytes = 0, flops = 0;
        for (const auto& op : ops) bytes += op.hbm_bytes, flops += op.flops;
        const HbmTraffic io = standard_attention_io(s, Pass::forward, 2, bq);
        CHECK(bytes == doctest::Approx(io.bytes()).epsilon(1e-12));
        CHECK(flops == doctest::Approx(attention_flops(s, Pass::forward)).epsilon(1e-12));
    }
}

TEST_CASE("standard breakdown: mask and dropout each add one read and one write of the score matrix") {
    const GpuPreset& a100 = gpu_preset("a100-sxm-80gb");
    AttentionShape s;
    s.batch = 8, s.heads = 16, s.q_len = 1024, s.kv_len = 1024, s.head_dim = 64, s.value_dim = 64;
    s.causal = Causal::top_left;
    const auto ops = standard_attention_forward_breakdown(s, a100, Precision::fp16, 64, true);
    REQUIRE(names_of(ops) == "matmul_qk mask softmax dropout matmul_pv ");
    const double score_pass_bytes = 2.0 * 1024 * 1024 * 2 * 8 * 16;  // read + write, FP16, all heads
    for (const auto& op : ops) {
        INFO(op.name);
        if (op.kind == OperationKind::elementwise) {
            CHECK(op.flops == 0);
            CHECK(op.hbm_bytes == score_pass_bytes);
            CHECK(op.time_s == doctest::Approx(op.hbm_bytes / a100.hbm_bytes_per_s.value));
        } else {
            const double compute = op.flops / roofline::peak_flops(a100, Precision::fp16);
            const double memory = op.hbm_bytes / a100.hbm_bytes_per_s.value;
            CHECK(op.time_s == doctest::Approx(std::max(compute, memory)));
            // The products write or read the whole N x N matrix too: both are memory-bound at d = 64.
            CHECK(memory > compute);
        }
    }
    // The causal mask does not shrink an unfused product: every entry is computed.
    s.causal = Causal::none;
    const auto unmasked = standard_attention_forward_breakdown(s, a100, Precision::fp16, 64, true);
    CHECK(unmasked.front().flops == ops.front().flops);
    CHECK(names_of(unmasked) == "matmul_qk softmax dropout matmul_pv ");
}

TEST_CASE("standard breakdown: arguments are checked and named") {
    const GpuPreset& a100 = gpu_preset("a100-sxm-80gb");
    AttentionShape s;
    test::check_error([&] { standard_attention_forward_breakdown(s, a100, Precision::fp16, 0, false); }, "block_q");
    test::check_error([&] { standard_attention_forward_breakdown(s, a100, Precision::fp16, (1u << 24) + 1, false); },
                      "block_q");
    test::check_error([&] { standard_attention_forward_breakdown(s, a100, Precision::fp8, 64, false); }, "fp8");
    s.head_dim = 0;
    test::check_error([&] { standard_attention_forward_breakdown(s, a100, Precision::fp16, 64, false); }, "head_dim");
    CHECK(operation_kind_name(OperationKind::matmul) == "matmul");
    CHECK(operation_kind_name(OperationKind::elementwise) == "elementwise");
}
