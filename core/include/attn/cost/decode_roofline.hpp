#pragma once
// Why decoding is memory-bound: one autoregressive decode step of a batch of requests, as the
// roofline model sees it (Williams, Waterman & Patterson 2009; see roofline.hpp).
//
// A step generates one token for each of B requests. It reads every request's KV cache once and,
// if the model's weights are counted, every weight once for the whole batch (batching shares the
// weight read, not the cache read). Per step:
//
//   attention FLOPs, MHA / MQA / GQA   4 x L x H_q x d_h x T x B     (q.K^T and p.V, 2 FLOPs per
//                                                                    multiply-add, T cached tokens)
//   attention FLOPs, MLA (absorbed)    2 x L x H_q x (2 d_c + d_R) x T x B
//       DeepSeek-V2 Sec. 2.1.3: with W_UK absorbed into the query and W_UV into the output, each
//       head scores the cached latent c_KV (d_c) and the shared RoPE key (d_R), and mixes the
//       latents (d_c) -- the form attention/mla.hpp computes as mla_absorbed. Decoding with the
//       explicit form would rebuild every cached token's K and V each step.
//   weight FLOPs                       2 x P x B                      (P active parameters)
//   bytes read                         KV cache (kv_cache_bytes) + P x bytes per element
//
// Attention alone has intensity 4 L H_q d_h T B / (2 L H_kv d_h T B e) = 2 (H_q / H_kv) / e: the
// group size G = H_q / H_kv at 2-byte elements, whatever the context or batch. MLA's is
// 2 H_q (2 d_c + d_R) / ((d_c + d_R) e): all H_q heads share one latent, so it is high. Only the
// weights' share grows with the batch, which is how batching moves a step toward the ridge.
//
// Not counted: writing the new token's K/V (bytes_per_token x B, one token against T read), the
// softmax's exponentials, and the input embedding lookup's sparsity (the whole table is counted in P
// for a dense model, though a step reads only B of its rows). A Mixture-of-Experts model's P is its
// activated parameters per token, so the weight read is a lower bound when a batch's tokens route to
// different experts.
#include <cstdint>
#include <optional>

#include "attn/cost/gpu_presets.hpp"
#include "attn/cost/roofline.hpp"
#include "attn/kvcache/kv_schemes.hpp"

namespace attn::cost {

struct DecodeProblem {
    kvcache::KvConfig cache;                            // validated by kv_cache_bytes
    kvcache::KvDtype dtype = kvcache::KvDtype::fp16;    // of the cache and the weights
    std::uint64_t context_tokens = 1;                   // [1, 2^32] per request
    std::uint64_t batch = 1;                            // requests decoded together, [1, 2^20]
    std::uint64_t weight_parameters = 0;                // P read once per step; 0 = KV cache only, [0, 2^50]
};

struct DecodeRoofline {
    kvcache::KvBytes kv;       // the cache read (kv.total_bytes)
    Precision precision;       // the dtype's arithmetic: fp32, fp16 (fp16 and bf16), fp8
    double group_size;         // query heads per cached K/V head (MLA: H_q, all heads share the latent)

    double attention_flops;
    double weight_flops;
    double flops;
    double kv_bytes_read;
    double weight_bytes_read;
    double bytes_read;
    double attention_intensity;   // attention_flops / kv_bytes_read, FLOP per byte
    double arithmetic_intensity;  // flops / bytes_read

    double peak_flops_per_s;
    double hbm_bytes_per_s;
    double ridge_point;           // peak / bandwidth, FLOP per byte
    double attainable_flops_per_s;  // min(peak, intensity x bandwidth)
    Bound bound;

    double memory_time_s;         // bytes_read / bandwidth: the time-per-output-token floor from memory
    double kv_memory_time_s;      // kv_bytes_read / bandwidth: the cache's share of it
    double compute_time_s;        // flops / peak
    double tpot_lower_bound_s;    // max(memory_time_s, compute_time_s): the roofline's bound on one step

    // Does the batch fit in the GPU's memory next to the weights?
    double footprint_bytes;       // kv.total_bytes + weight_bytes_read (the weights are stored once)
    double hbm_capacity_bytes;
    bool fits;
    // The longest context per request that fits at this batch (whole tokens); 0 when the weights
    // alone fill the memory; empty when any context fits (a sliding window whose cache fits).
    std::optional<std::uint64_t> max_context_fitting;
};

// Throws attn::Error naming the argument for an invalid cache, context, batch or parameter count, a
// GPU without published bandwidth or memory size, or a precision the GPU does not support (fp8 before
// Hopper/Ada).
DecodeRoofline decode_roofline(const DecodeProblem& problem, const GpuPreset& gpu);

}  // namespace attn::cost
