#pragma once
// What every attention benchmark shares: the problem shape, its inputs, the implementations under
// test, the correctness check each must pass before it is timed, and the counters it reports.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "attn/attention/causal.hpp"
#include "attn/cost/attention_cost.hpp"
#include "attn/tensor.hpp"

namespace attn::bench {

struct Problem {
    std::size_t batch = 1, heads = 8, kv_heads = 8, seq = 1024, head_dim = 64;
    // Keys and values when they are not as many as the queries (S != L: a prefill chunk against the
    // cache before it); 0 means seq.
    std::size_t kv_seq = 0;
    Causal causal = Causal::none;

    std::size_t kv_len() const { return kv_seq ? kv_seq : seq; }
    cost::AttentionShape cost_shape() const {
        return {batch, heads, seq, kv_len(), head_dim, head_dim, causal};
    }
    // L = S: FlashAttention's benchmark convention (FA2 Sec. 4.1), 4 B H N^2 d, halved when causal.
    // L != S has no such convention: the exact count, 4 d per query-key pair the mask leaves visible.
    double convention_flops() const {
        if (kv_len() != seq) return cost::attention_flops(cost_shape(), cost::Pass::forward);
        return cost::benchmark_flops(batch, heads, seq, head_dim, causal != Causal::none, cost::Pass::forward);
    }
};

struct Inputs {
    Tensor4<float> q, k, v;
};
Inputs make_inputs(const Problem& p, std::uint64_t seed);

// One implementation of the forward pass on float tensors (Q, K, V, causal) -> O.
using ForwardFn = std::function<Tensor4<float>(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&, Causal)>;

struct Implementation {
    std::string name;        // "flash_fast"
    std::string description;
    ForwardFn forward;
    // The traffic to and from main memory the cost model assigns to one call (bytes).
    std::function<double(const Problem&)> modelled_bytes;
};

// Every CPU implementation the binary benchmarks.
std::vector<Implementation> cpu_implementations();

// The check run before timing an implementation (and by --check): the implementation on a small
// problem with the benchmark's head_dim and causal flag -- GQA (4 query heads on 2 K/V heads),
// 257 queries against 301 keys -- against attn::sdpa in double on the same float inputs.
struct CheckResult {
    std::string implementation, problem;
    double max_abs_error = 0;
    bool passed = false;
};
// FP32 inputs and accumulation over at most 301 keys, d <= 128, N(0,1) data: errors are ~1e-6;
// 5e-5 still catches any wrong rescale, mask or head mapping (those give > 1e-2).
inline constexpr double kCheckTolerance = 5e-5;
CheckResult check_against_reference(const Implementation& impl, std::size_t head_dim, Causal causal);

// "none", "top_left", "bottom_right".
const char* causal_name(Causal c);

}  // namespace attn::bench
