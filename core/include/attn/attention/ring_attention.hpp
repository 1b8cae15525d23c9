#pragma once
// Ring attention (Liu, Zaharia & Abbeel 2023, "Ring Attention with Blockwise Transformers for
// Near-Infinite Context", arXiv:2310.01889, Sec. 3 and Algorithm 1), simulated on one machine.
//
// P devices each hold one contiguous shard of the queries and one of the keys/values. In step
// t = 0 .. P-1 device p holds K/V shard (p - t) mod P: it runs blockwise attention of its query
// shard against that shard (attend_kv_range, split_kv.hpp) and merges the partial state into its
// running one (merge_partial: online_softmax::merge), while sending the shard to device p + 1 and
// receiving shard (p - t - 1) mod P from device p - 1. After P steps every device has merged every
// shard -- in a different order on each device, which merge's commutativity makes exact.
// Under a causal mask a (query shard, K/V shard) pair that no query may see is skipped (no
// compute; the shard still travels on). The simulated result equals dense attention.
//
// Timing model (ring_attention_timing). Compute of a (query shard, K/V shard) pair = its
// attention FLOPs 2 x B x Hq x pairs x (d + dv) (pairs = visible query-key pairs) / the GPU's
// dense peak; a step lasts as long as its slowest device (devices synchronise through the ring).
// Sending a K/V shard takes B x Hkv x shard_len x (d + dv) x element_bytes / link bandwidth, and
// runs concurrently with the step's compute: step time = max(compute, send). Communication is
// hidden when compute >= send; without a mask this is shard_len >= F x Hkv x e / (2 x Hq x B_link),
// which for Hq = Hkv and 2-byte elements is the paper's condition c >= F / B (block size at
// least FLOPs over bandwidth, Sec. 3).
// The naive alternative all-gathers K/V first (each device receives P - 1 shards, not
// overlapped) and then computes; it holds the whole K/V on every device, where the ring holds
// two shards (the resident one and the one arriving).
#include <cstddef>
#include <string>
#include <vector>

#include "attn/attention/options.hpp"
#include "attn/attention/split_kv.hpp"
#include "attn/cost/roofline.hpp"
#include "attn/tensor.hpp"

namespace attn {

// Contiguous shards of n positions over P devices: the first n % P get one more.
// devices in [1, 4096]; n >= devices.
std::vector<IndexRange> ring_shards(std::size_t n, std::size_t devices);

struct RingStep {
    std::size_t step, device;
    std::size_t q_shard, kv_shard;  // the device's query shard and the K/V shard in residence
    bool computed;                  // false: every pair of the two shards is causally masked
    std::uint64_t attended_pairs;   // visible (query, key) pairs per (batch, head) this step
    bool sends;                     // false in the last step: nothing left to forward
    std::size_t send_to, recv_from; // ring neighbours p + 1 and p - 1 (mod P)
    std::size_t received_kv_shard;  // the shard arriving for the next step (when sends)
};

// The schedule alone: P x P steps, step-major. Shard lengths from ring_shards(q_len) and
// ring_shards(kv_len); causal as in causal.hpp.
std::vector<RingStep> ring_schedule(std::size_t devices, std::size_t q_len, std::size_t kv_len, Causal causal);

struct RingOptions : AttentionOptions {
    std::size_t devices = 4;  // in [1, 4096], at most min(L, S)
    // Record the merge of one query head, (trace_batch, trace_head), at every schedule step
    // (RingAttentionResult::trace). trace_batch < B, trace_head < Hq.
    bool trace = false;
    std::size_t trace_batch = 0, trace_head = 0;
};

// One (step, device) of the schedule seen from the traced query head: the partial state the
// resident K/V shard gives each row of the device's query shard, and the device's running state
// after merging it. Rows are the device's query rows in order (global row q_rows.begin + r).
template <class T>
struct RingTraceEntry {
    std::size_t step, device, kv_shard;
    bool computed;                                  // false: the shard was skipped (all masked)
    IndexRange q_rows, kv_keys;
    std::vector<online_softmax::State<T>> block;    // the shard's (m, l) per row; (-inf, 0) when skipped
    std::vector<online_softmax::State<T>> running;  // merged (m, l) per row after this step
    std::vector<T> running_acc;                     // [rows, Dv], unnormalised (output = acc / l)
};

template <class T>
struct RingAttentionResult {
    Tensor4<T> output;                 // [B, Hq, L, Dv]
    std::vector<T> lse;                // [B, Hq, L]
    std::vector<IndexRange> q_shards, kv_shards;
    std::vector<RingStep> schedule;
    std::vector<RingTraceEntry<T>> trace;  // options.trace: one entry per schedule step, same order
};

template <class T>
RingAttentionResult<T> ring_attention(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                      const RingOptions& options = {});

struct RingTimingInput {
    std::size_t devices = 4;       // [1, 4096]
    std::size_t batch = 1;         // [1, 65536]
    std::size_t q_heads = 32;      // [1, 4096]
    std::size_t kv_heads = 32;     // divides q_heads
    std::size_t seq_len = 65536;   // L = S, [devices, 2^24]
    std::size_t head_dim = 128;    // [1, 1024]
    std::size_t value_dim = 128;   // [1, 1024]
    Causal causal = Causal::none;
    std::size_t element_bytes = 2;  // bytes per K/V element: 1, 2, 4 or 8
    std::string gpu = "h100-sxm";   // a gpu_preset id
    cost::Precision precision = cost::Precision::fp16;
    double link_bytes_per_s = 450e9;  // device-to-device bandwidth, one direction; > 0, finite
};

struct RingStepTiming {
    double compute_time_s;  // slowest device's compute this step
    double send_time_s;     // one K/V shard over the link (0 in the last step)
    double step_time_s;     // max of the two (overlapped)
    bool comm_hidden;       // compute_time_s >= send_time_s
};

struct RingTiming {
    double peak_flops;                 // FLOP/s of the preset at the precision
    double kv_shard_bytes;             // the largest K/V shard (all batches and KV heads)
    double flops_total;                // attention FLOPs of the whole problem
    std::vector<RingStepTiming> steps;
    double ring_time_s;                // sum of step times
    double ring_compute_time_s;        // sum of the steps' compute times (the floor)
    bool comm_hidden;                  // every step hides its send
    double min_shard_tokens_to_hide;   // unmasked condition: shard_len >= F Hkv e / (2 Hq B_link)
    double ring_kv_bytes_per_device;   // two shards: resident + arriving
    double allgather_comm_time_s;      // (P - 1) shards received per device, before any compute
    double allgather_compute_time_s;   // slowest device's compute over the whole K/V
    double allgather_time_s;           // comm + compute, not overlapped
    double allgather_kv_bytes_per_device;  // the whole K/V
};

RingTiming ring_attention_timing(const RingTimingInput& input);

}  // namespace attn
