#include "attn/cost/decode_roofline.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"

namespace attn::cost {
namespace {

using kvcache::KvDtype;
using kvcache::KvScheme;

constexpr std::uint64_t kMaxWeightParameters = std::uint64_t{1} << 50;

Precision precision_of(KvDtype t) {
    switch (t) {
        case KvDtype::fp32: return Precision::fp32;
        case KvDtype::fp16:
        case KvDtype::bf16: return Precision::fp16;
        case KvDtype::fp8: return Precision::fp8;
    }
    throw Error("dtype: unknown enumerator " + std::to_string(static_cast<int>(t)));
}

// FLOPs of one step's attention over the cached tokens of every request (see the header).
double attention_flops(const kvcache::KvBytes& kv) {
    const kvcache::KvConfig& c = kv.config;
    const double per_head_per_token =
        c.scheme == KvScheme::mla ? 2.0 * static_cast<double>(2 * c.latent_dim + c.rope_dim)
                                  : 4.0 * static_cast<double>(c.head_dim);
    return per_head_per_token * static_cast<double>(c.layers) * static_cast<double>(c.q_heads) *
           static_cast<double>(kv.cached_tokens) * static_cast<double>(kv.batch);
}

void require_published(const char* field, const Sourced& s, const GpuPreset& gpu) {
    if (!std::isfinite(s.value) || !(s.value > 0)) {
        throw Error("gpu: " + std::string(gpu.name) + " has no published " + field + " (" + std::string(s.source) + ")");
    }
}

}  // namespace

DecodeRoofline decode_roofline(const DecodeProblem& problem, const GpuPreset& gpu) {
    if (problem.weight_parameters > kMaxWeightParameters) {
        throw Error("weight_parameters: must be in [0, " + std::to_string(kMaxWeightParameters) + "], got " +
                    std::to_string(problem.weight_parameters));
    }
    require_published("memory bandwidth", gpu.hbm_bytes_per_s, gpu);
    require_published("memory size", gpu.hbm_bytes, gpu);

    DecodeRoofline r{};
    r.kv = kvcache::kv_cache_bytes(problem.cache, problem.dtype, problem.context_tokens, problem.batch);
    r.precision = precision_of(problem.dtype);
    r.peak_flops_per_s = roofline::peak_flops(gpu, r.precision);  // throws for an unsupported precision
    r.hbm_bytes_per_s = gpu.hbm_bytes_per_s.value;
    r.ridge_point = roofline::ridge_point(gpu, r.precision);

    const kvcache::KvConfig& c = r.kv.config;
    r.group_size = c.scheme == KvScheme::mla ? static_cast<double>(c.q_heads)
                                             : static_cast<double>(c.q_heads) / static_cast<double>(c.kv_heads);

    const std::uint64_t element_bytes = kvcache::kv_dtype_bytes(problem.dtype);
    const std::uint64_t weight_bytes = problem.weight_parameters * element_bytes;  // <= 2^52: no overflow
    r.attention_flops = attention_flops(r.kv);
    r.weight_flops = 2.0 * static_cast<double>(problem.weight_parameters) * static_cast<double>(problem.batch);
    r.flops = r.attention_flops + r.weight_flops;
    r.kv_bytes_read = static_cast<double>(r.kv.total_bytes);
    r.weight_bytes_read = static_cast<double>(weight_bytes);
    r.bytes_read = r.kv_bytes_read + r.weight_bytes_read;
    r.attention_intensity = roofline::arithmetic_intensity(r.attention_flops, r.kv_bytes_read);
    r.arithmetic_intensity = roofline::arithmetic_intensity(r.flops, r.bytes_read);
    r.attainable_flops_per_s = roofline::attainable_flops(gpu, r.precision, r.arithmetic_intensity);
    r.bound = roofline::bound(gpu, r.precision, r.flops, r.bytes_read);

    r.memory_time_s = r.bytes_read / r.hbm_bytes_per_s;
    r.kv_memory_time_s = r.kv_bytes_read / r.hbm_bytes_per_s;
    r.compute_time_s = r.flops / r.peak_flops_per_s;
    r.tpot_lower_bound_s = std::max(r.memory_time_s, r.compute_time_s);

    r.hbm_capacity_bytes = gpu.hbm_bytes.value;
    r.footprint_bytes = r.bytes_read;  // the cache and the weights, each stored once
    r.fits = r.footprint_bytes <= r.hbm_capacity_bytes;
    // Capacities are whole bytes (decimal GB) below 2^53, so the budget is exact in integers.
    const auto capacity = static_cast<std::uint64_t>(r.hbm_capacity_bytes);
    const std::uint64_t budget = capacity > weight_bytes ? capacity - weight_bytes : 0;
    const std::uint64_t tokens = budget / (r.kv.bytes_per_token * problem.batch);  // both >= 1, product checked
    if (c.sliding_window != 0 && tokens >= c.sliding_window) {
        r.max_context_fitting = std::nullopt;  // the rolling cache stops growing before memory runs out
    } else {
        r.max_context_fitting = tokens;
    }
    return r;
}

}  // namespace attn::cost
