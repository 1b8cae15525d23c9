#include "attn/attention/ring_attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "attn/attention/causal.hpp"
#include "attn/cost/gpu_presets.hpp"

namespace attn {
namespace {

constexpr std::size_t kMaxDevices = 4096;

std::string str(std::size_t n) { return std::to_string(n); }

// Visible (query, key) pairs between query rows `rows` and keys `keys` of an L x S problem, in
// closed form: row i sees keys [0, clamp(i + offset, 0, S)) (causal.hpp), so within `keys` it sees
// clamp(i + offset, begin, end) - begin of them: none, then one more per row, then all. Summing
// that directly keeps a timing query over 2^24 tokens and 4,096 devices instantaneous.
std::uint64_t visible_pairs(IndexRange rows, IndexRange keys, std::size_t L, std::size_t S, Causal causal) {
    if (causal == Causal::none) return std::uint64_t{rows.size()} * keys.size();
    if (rows.size() == 0 || keys.size() == 0) return 0;
    using I = std::int64_t;
    const I offset = 1 + static_cast<I>(causal == Causal::bottom_right ? S : L) - static_cast<I>(L);
    const I a = static_cast<I>(rows.begin), b = static_cast<I>(rows.end);
    const I c = static_cast<I>(keys.begin), e = static_cast<I>(keys.end);
    const I rising = std::clamp(c - offset + 1, a, b);  // first row that sees a key of the range
    const I full = std::clamp(e - offset, a, b);        // first row that sees all of them
    const I n = full - rising;
    const I partial = n * ((rising + offset - c) + (full - 1 + offset - c)) / 2;  // 1, 2, ... more per row
    return static_cast<std::uint64_t>(partial + (b - full) * (e - c));
}

void require_in(const char* name, std::size_t x, std::size_t lo, std::size_t hi) {
    if (x < lo || x > hi) throw Error(std::string(name) + ": must be in [" + str(lo) + ", " + str(hi) + "], got " + str(x));
}

// The traced head's rows of a partial state: its (m, l) and, when `acc` is given, its accumulator.
template <class T>
void copy_traced_rows(const PartialAttention<T>& part, const RingOptions& o, std::vector<online_softmax::State<T>>& states,
                      std::vector<T>* acc) {
    const std::size_t rows = part.rows.size(), first = (o.trace_batch * part.q_heads + o.trace_head) * rows;
    states.assign(part.state.begin() + first, part.state.begin() + first + rows);
    if (acc) acc->assign(part.acc.begin() + first * part.value_dim, part.acc.begin() + (first + rows) * part.value_dim);
}

template <class T>
RingTraceEntry<T> trace_entry(const RingStep& s, IndexRange kv_keys, const std::optional<PartialAttention<T>>& block,
                              const PartialAttention<T>& running, const RingOptions& o) {
    RingTraceEntry<T> e{s.step, s.device, s.kv_shard, s.computed, running.rows, kv_keys, {}, {}, {}};
    if (block) {
        copy_traced_rows(*block, o, e.block, static_cast<std::vector<T>*>(nullptr));
    } else {
        e.block.assign(running.rows.size(), online_softmax::State<T>{});  // the merge identity
    }
    copy_traced_rows(running, o, e.running, &e.running_acc);
    return e;
}

}  // namespace

std::vector<IndexRange> ring_shards(std::size_t n, std::size_t devices) {
    require_in("devices", devices, 1, kMaxDevices);
    if (n < devices) {
        throw Error("devices: each device needs at least one position; " + str(devices) + " devices for length " + str(n));
    }
    return split_kv_partitions(n, devices);
}

std::vector<RingStep> ring_schedule(std::size_t devices, std::size_t q_len, std::size_t kv_len, Causal causal) {
    const std::vector<IndexRange> qs = ring_shards(q_len, devices), ks = ring_shards(kv_len, devices);
    const std::size_t P = devices;
    std::vector<RingStep> steps;
    for (std::size_t t = 0; t < P; ++t) {
        for (std::size_t p = 0; p < P; ++p) {
            const std::size_t kv = (p + P - t) % P;
            const std::uint64_t pairs = visible_pairs(qs[p], ks[kv], q_len, kv_len, causal);
            steps.push_back({t, p, p, kv, pairs > 0, pairs, t + 1 < P, (p + 1) % P, (p + P - 1) % P,
                             (p + 2 * P - t - 1) % P});
        }
    }
    return steps;
}

template <class T>
RingAttentionResult<T> ring_attention(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                      const RingOptions& options) {
    const AttentionProblem p = validate_attention(q, k, v, options);
    if (options.trace) {
        require_in("trace_batch", options.trace_batch, 0, p.batch - 1);
        require_in("trace_head", options.trace_head, 0, p.q_heads - 1);
    }
    RingAttentionResult<T> r;
    r.q_shards = ring_shards(p.q_len, options.devices);
    r.kv_shards = ring_shards(p.kv_len, options.devices);
    r.schedule = ring_schedule(options.devices, p.q_len, p.kv_len, options.causal);
    r.output = Tensor4<T>(p.output_shape());
    r.lse.assign(p.batch * p.q_heads * p.q_len, T(0));
    // Each device's running state, starting empty (the merge identity).
    std::vector<PartialAttention<T>> running;
    for (const IndexRange& rows : r.q_shards) running.push_back(attend_kv_range(q, k, v, IndexRange{0, 0}, rows, options));
    for (const RingStep& s : r.schedule) {  // step-major: all devices of step t, then t + 1
        std::optional<PartialAttention<T>> block;  // empty: whole-shard skip, nothing of it is visible
        if (s.computed) {
            block = attend_kv_range(q, k, v, r.kv_shards[s.kv_shard], r.q_shards[s.q_shard], options);
            merge_partial(running[s.device], *block);
        }
        if (options.trace) r.trace.push_back(trace_entry(s, r.kv_shards[s.kv_shard], block, running[s.device], options));
    }
    for (std::size_t d = 0; d < running.size(); ++d) {
        const NormalizedAttention<T> n = normalize(running[d]);
        const IndexRange rows = r.q_shards[d];
        for (std::size_t b = 0; b < p.batch; ++b) {
            for (std::size_t h = 0; h < p.q_heads; ++h) {
                const std::size_t src = (b * p.q_heads + h) * rows.size();
                std::copy_n(&n.output[src * p.value_dim], rows.size() * p.value_dim, r.output.row(b, h, rows.begin));
                std::copy_n(&n.lse[src], rows.size(), &r.lse[(b * p.q_heads + h) * p.q_len + rows.begin]);
            }
        }
    }
    return r;
}

RingTiming ring_attention_timing(const RingTimingInput& in) {
    require_in("devices", in.devices, 1, kMaxDevices);
    require_in("batch", in.batch, 1, 65536);
    require_in("q_heads", in.q_heads, 1, 4096);
    require_in("kv_heads", in.kv_heads, 1, in.q_heads);
    if (in.q_heads % in.kv_heads != 0) {
        throw Error("kv_heads: must divide q_heads (" + str(in.q_heads) + "), got " + str(in.kv_heads));
    }
    require_in("seq_len", in.seq_len, in.devices, std::size_t{1} << 24);
    require_in("head_dim", in.head_dim, 1, 1024);
    require_in("value_dim", in.value_dim, 1, 1024);
    if (in.element_bytes != 1 && in.element_bytes != 2 && in.element_bytes != 4 && in.element_bytes != 8) {
        throw Error("element_bytes: must be 1, 2, 4 or 8, got " + str(in.element_bytes));
    }
    if (!(std::isfinite(in.link_bytes_per_s) && in.link_bytes_per_s > 0)) {
        throw Error("link_bytes_per_s: must be a finite number > 0, got " + std::to_string(in.link_bytes_per_s));
    }
    const double F = cost::roofline::peak_flops(cost::gpu_preset(in.gpu), in.precision);
    const std::size_t P = in.devices, N = in.seq_len;
    const std::vector<IndexRange> shards = ring_shards(N, P);
    const std::vector<RingStep> schedule = ring_schedule(P, N, N, in.causal);
    const double flops_per_pair = 2.0 * static_cast<double>(in.batch * in.q_heads) * static_cast<double>(in.head_dim + in.value_dim);
    const auto shard_bytes = [&](std::size_t s) {
        return static_cast<double>(in.batch * in.kv_heads) * static_cast<double>(shards[s].size()) *
               static_cast<double>((in.head_dim + in.value_dim) * in.element_bytes);
    };

    RingTiming t{};
    t.peak_flops = F;
    t.kv_shard_bytes = shard_bytes(0);  // shard 0 is a largest one
    t.comm_hidden = true;
    std::vector<double> device_pairs(P, 0.0);
    for (std::size_t step = 0; step < P; ++step) {
        RingStepTiming st{0, 0, 0, true};
        for (std::size_t d = 0; d < P; ++d) {
            const RingStep& s = schedule[step * P + d];
            const double pairs = static_cast<double>(s.attended_pairs);
            device_pairs[d] += pairs;
            t.flops_total += pairs * flops_per_pair;
            st.compute_time_s = std::max(st.compute_time_s, pairs * flops_per_pair / F);
            if (s.sends) st.send_time_s = std::max(st.send_time_s, shard_bytes(s.kv_shard) / in.link_bytes_per_s);
        }
        st.step_time_s = std::max(st.compute_time_s, st.send_time_s);
        st.comm_hidden = st.compute_time_s >= st.send_time_s;
        t.ring_time_s += st.step_time_s;
        t.ring_compute_time_s += st.compute_time_s;
        t.comm_hidden = t.comm_hidden && st.comm_hidden;
        t.steps.push_back(st);
    }
    t.min_shard_tokens_to_hide = F * static_cast<double>(in.kv_heads * in.element_bytes) /
                                 (2.0 * static_cast<double>(in.q_heads) * in.link_bytes_per_s);
    t.ring_kv_bytes_per_device = 2.0 * t.kv_shard_bytes;
    t.allgather_comm_time_s = static_cast<double>(P - 1) * t.kv_shard_bytes / in.link_bytes_per_s;
    t.allgather_compute_time_s = *std::max_element(device_pairs.begin(), device_pairs.end()) * flops_per_pair / F;
    t.allgather_time_s = t.allgather_comm_time_s + t.allgather_compute_time_s;
    t.allgather_kv_bytes_per_device = static_cast<double>(in.batch * in.kv_heads) * static_cast<double>(N) *
                                      static_cast<double>((in.head_dim + in.value_dim) * in.element_bytes);
    return t;
}

template RingAttentionResult<float> ring_attention(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&,
                                                   const RingOptions&);
template RingAttentionResult<double> ring_attention(const Tensor4<double>&, const Tensor4<double>&,
                                                    const Tensor4<double>&, const RingOptions&);

}  // namespace attn
