// Ring attention (Liu et al. 2023) simulated on P devices: equal to dense attention, the rotation
// schedule, whole-shard causal skipping, and the compute-vs-communication timing model.
#include <cmath>
#include <set>
#include <utility>

#include "attn/attention/causal.hpp"
#include "attn/attention/ring_attention.hpp"
#include "attn/attention/sdpa.hpp"
#include "attn/cost/gpu_presets.hpp"
#include "support.hpp"

using namespace attn;

namespace {

// Double, P <= 7 merges of online-softmax states: rounding of order 1e-15.
constexpr double kDoubleTol = 1e-12;
constexpr double kRel = 1e-12;  // timing: the same arithmetic in another order

}  // namespace

TEST_CASE("ring attention: equals sdpa for P devices, odd sizes, L != S, both causal alignments, GQA") {
    for (std::size_t P : {1u, 2u, 3u, 4u, 7u}) {
        for (auto [L, S] : {std::pair<std::size_t, std::size_t>{17, 17}, {113, 113}, {17, 129}, {129, 17}, {7, 7}}) {
            if (L < P || S < P) continue;
            for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right}) {
                const std::uint64_t seed = test::next_seed();
                INFO("seed=" << seed << " P=" << P << " L=" << L << " S=" << S << " causal=" << int(causal));
                const auto in = test::random_qkv({2, 4, L, 8}, 2, S, 5, seed);
                RingOptions o;
                o.devices = P;
                o.causal = causal;
                SdpaOptions so;
                so.causal = causal;
                const auto ref = sdpa(in.q, in.k, in.v, so);
                const auto r = ring_attention(in.q, in.k, in.v, o);
                CHECK(test::max_abs_diff(r.output.data, ref.output.data) < kDoubleTol);
                CHECK(test::max_abs_diff(r.lse, ref.lse) < kDoubleTol);
            }
        }
    }
}

TEST_CASE("ring attention trace: the traced run is the untraced one, and each step's running state is the merge of the shards so far") {
    for (std::size_t P : {1u, 3u, 4u, 7u}) {
        for (auto [L, S] : {std::pair<std::size_t, std::size_t>{17, 17}, {113, 113}, {17, 129}, {129, 17}}) {
            for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right}) {
                const std::uint64_t seed = test::next_seed();
                INFO("seed=" << seed << " P=" << P << " L=" << L << " S=" << S << " causal=" << int(causal));
                const std::size_t B = 2, Hq = 4, Dv = 5;
                const auto in = test::random_qkv({B, Hq, L, 8}, 2, S, Dv, seed);
                RingOptions o;
                o.devices = P;
                o.causal = causal;
                const auto plain = ring_attention(in.q, in.k, in.v, o);
                o.trace = true;
                o.trace_batch = 1;
                o.trace_head = 3;
                const auto traced = ring_attention(in.q, in.k, in.v, o);
                CHECK(traced.output.data == plain.output.data);  // tracing only observes
                CHECK(plain.trace.empty());
                REQUIRE(traced.trace.size() == P * P);
                SdpaOptions so;
                so.causal = causal;
                const auto ref = sdpa(in.q, in.k, in.v, so);
                for (std::size_t d = 0; d < P; ++d) {
                    std::vector<online_softmax::State<double>> seen;  // the blocks merged so far, per row
                    for (std::size_t t = 0; t < P; ++t) {
                        const auto& e = traced.trace[t * P + d];
                        const RingStep& s = traced.schedule[t * P + d];
                        CHECK(e.step == t);
                        CHECK(e.device == d);
                        CHECK(e.kv_shard == s.kv_shard);
                        CHECK(e.computed == s.computed);
                        CHECK(e.q_rows == traced.q_shards[d]);
                        CHECK(e.kv_keys == traced.kv_shards[s.kv_shard]);
                        REQUIRE(e.block.size() == e.q_rows.size());
                        REQUIRE(e.running.size() == e.q_rows.size());
                        REQUIRE(e.running_acc.size() == e.q_rows.size() * Dv);
                        if (t == 0) seen.assign(e.q_rows.size(), {});
                        for (std::size_t r = 0; r < e.q_rows.size(); ++r) {
                            if (!e.computed) CHECK(e.block[r].l == 0);
                            // Merging the states alone (no accumulators) reproduces the running (m, l).
                            online_softmax::merge(seen[r], static_cast<double*>(nullptr), e.block[r],
                                                  static_cast<const double*>(nullptr), 0);
                            CHECK(e.running[r].m == seen[r].m);
                            CHECK(std::abs(e.running[r].l - seen[r].l) <= kDoubleTol * std::max(1.0, seen[r].l));
                        }
                    }
                    // After the last step: acc / l of the traced head is the dense output of its rows.
                    const auto& last = traced.trace[(P - 1) * P + d];
                    for (std::size_t r = 0; r < last.q_rows.size(); ++r) {
                        const double* want = ref.output.row(1, 3, last.q_rows.begin + r);
                        for (std::size_t c = 0; c < Dv; ++c) {
                            const double got = last.running[r].l == 0 ? 0.0 : last.running_acc[r * Dv + c] / last.running[r].l;
                            CHECK(std::abs(got - want[c]) < kDoubleTol);
                        }
                    }
                }
            }
        }
    }
}

TEST_CASE("ring attention: schedule rotates every K/V shard past every device once") {
    for (std::size_t P : {1u, 2u, 5u}) {
        const auto steps = ring_schedule(P, 20, 20, Causal::none);
        REQUIRE(steps.size() == P * P);
        for (std::size_t d = 0; d < P; ++d) {
            std::set<std::size_t> seen;
            for (std::size_t t = 0; t < P; ++t) {
                const RingStep& s = steps[t * P + d];
                CHECK(s.step == t);
                CHECK(s.device == d);
                CHECK(s.q_shard == d);
                CHECK(s.kv_shard == (d + P - t) % P);  // step 0: its own shard
                CHECK(s.send_to == (d + 1) % P);
                CHECK(s.recv_from == (d + P - 1) % P);
                CHECK(s.sends == (t + 1 < P));
                if (s.sends) {
                    // What arrives is what the left neighbour held, and what this device computes next.
                    CHECK(s.received_kv_shard == steps[t * P + s.recv_from].kv_shard);
                    CHECK(s.received_kv_shard == steps[(t + 1) * P + d].kv_shard);
                }
                seen.insert(s.kv_shard);
            }
            CHECK(seen.size() == P);
        }
    }
    // Causal, L == S: device p needs shards 0..p only; P (P + 1) / 2 pairs computed, and the
    // visible pairs sum to the causal triangle N (N + 1) / 2.
    const std::size_t P = 4, N = 22;
    const auto steps = ring_schedule(P, N, N, Causal::top_left);
    std::size_t computed = 0;
    std::uint64_t pairs = 0;
    for (const auto& s : steps) {
        CHECK(s.computed == (s.kv_shard <= s.q_shard));
        computed += s.computed;
        pairs += s.attended_pairs;
    }
    CHECK(computed == P * (P + 1) / 2);
    CHECK(pairs == N * (N + 1) / 2);
    CHECK(ring_shards(10, 4) == std::vector<IndexRange>{{0, 3}, {3, 6}, {6, 8}, {8, 10}});
}

TEST_CASE("ring attention: visible pairs per step equal a row-by-row count, L and S unequal, both alignments") {
    // The schedule counts pairs in closed form; count them here row by row through causal_key_end.
    for (Causal causal : {Causal::top_left, Causal::bottom_right, Causal::none}) {
        for (auto [L, S] : {std::pair<std::size_t, std::size_t>{23, 23}, {17, 41}, {41, 17}, {7, 7}, {9, 13}}) {
            for (std::size_t P : {1u, 2u, 3u, 7u}) {
                const auto qs = ring_shards(L, P), ks = ring_shards(S, P);
                for (const RingStep& s : ring_schedule(P, L, S, causal)) {
                    std::uint64_t want = 0;
                    for (std::size_t i = qs[s.q_shard].begin; i < qs[s.q_shard].end; ++i) {
                        const std::size_t end = std::min(causal_key_end(i, L, S, causal), ks[s.kv_shard].end);
                        if (end > ks[s.kv_shard].begin) want += end - ks[s.kv_shard].begin;
                    }
                    CHECK(s.attended_pairs == want);
                    CHECK(s.computed == (want > 0));
                }
            }
        }
    }
}

TEST_CASE("ring attention timing: step times, overlap condition c >= F/B, all-gather comparison") {
    RingTimingInput in;
    in.devices = 4;
    in.batch = 1;
    in.q_heads = in.kv_heads = 8;
    in.head_dim = in.value_dim = 128;
    in.element_bytes = 2;
    in.gpu = "h100-sxm";
    in.link_bytes_per_s = 450e9;
    const double F = cost::roofline::peak_flops(cost::gpu_preset("h100-sxm"), cost::Precision::fp16);
    // Hq = Hkv, 2-byte elements: the paper's condition, shard length >= F / B.
    const RingTiming probe = ring_attention_timing(in);
    CHECK(std::abs(probe.min_shard_tokens_to_hide - F / 450e9) <= kRel * F / 450e9);
    for (std::size_t c : {256u, 1024u, 4096u, 16384u}) {
        in.seq_len = 4 * c;
        const RingTiming t = ring_attention_timing(in);
        const double compute = 2.0 * 8 * double(c) * double(c) * 256 / F;
        const double send = 8.0 * double(c) * 256 * 2 / 450e9;
        REQUIRE(t.steps.size() == 4);
        for (std::size_t s = 0; s < 4; ++s) {
            CHECK(std::abs(t.steps[s].compute_time_s - compute) <= kRel * compute);
            CHECK(std::abs(t.steps[s].send_time_s - (s < 3 ? send : 0.0)) <= kRel * send);
        }
        CHECK(t.comm_hidden == (double(c) >= t.min_shard_tokens_to_hide));
        CHECK(std::abs(t.ring_time_s - (3 * std::max(compute, send) + compute)) <= kRel * t.ring_time_s);
        CHECK(std::abs(t.allgather_time_s - (3 * send + 4 * compute)) <= kRel * t.allgather_time_s);
        CHECK(t.ring_kv_bytes_per_device == 2 * 8.0 * c * 256 * 2);
        CHECK(t.allgather_kv_bytes_per_device == 4 * 8.0 * c * 256 * 2);
        CHECK(std::abs(t.flops_total - 4.0 * 4 * compute * F) <= kRel * t.flops_total);
        CHECK(t.ring_time_s <= t.allgather_time_s);  // ring overlaps what all-gather serialises
    }
    // Causal: every step lasts as long as its busiest device (an unmasked pair after step 0).
    in.seq_len = 4 * 4096;
    in.causal = Causal::top_left;
    const RingTiming causal = ring_attention_timing(in);
    const double full_pair = 2.0 * 8 * 4096.0 * 4096 * 256 / F;
    CHECK(causal.steps[1].compute_time_s == doctest::Approx(full_pair).epsilon(1e-12));
    CHECK(causal.steps[0].compute_time_s == doctest::Approx(2.0 * 8 * (4096.0 * 4097 / 2) * 256 / F).epsilon(1e-12));
    // GQA shrinks the shard, so less compute per byte is needed to hide it.
    in.kv_heads = 1;
    CHECK(ring_attention_timing(in).min_shard_tokens_to_hide == doctest::Approx(probe.min_shard_tokens_to_hide / 8));
}

TEST_CASE("ring attention: argument errors name the argument") {
    const auto in = test::random_qkv({1, 2, 5, 4}, 1, 5, 4, test::next_seed());
    RingOptions o;
    o.devices = 6;
    test::check_error([&] { ring_attention(in.q, in.k, in.v, o); }, "devices");
    o.devices = 0;
    test::check_error([&] { ring_attention(in.q, in.k, in.v, o); }, "devices");
    test::check_error([&] { ring_shards(3, 4); }, "devices");
    o.devices = 2;
    o.trace = true;
    o.trace_batch = 1;
    test::check_error([&] { ring_attention(in.q, in.k, in.v, o); }, "trace_batch");
    o.trace_batch = 0;
    o.trace_head = 2;
    test::check_error([&] { ring_attention(in.q, in.k, in.v, o); }, "trace_head");
    RingTimingInput t;
    t.link_bytes_per_s = 0;
    test::check_error([&] { ring_attention_timing(t); }, "link_bytes_per_s");
    t = {};
    t.kv_heads = 5;
    test::check_error([&] { ring_attention_timing(t); }, "kv_heads");
    t = {};
    t.gpu = "tpu";
    test::check_error([&] { ring_attention_timing(t); }, "gpu");
    t = {};
    t.gpu = "a100-sxm-80gb";
    t.precision = cost::Precision::fp8;  // no FP8 on Ampere
    test::check_error([&] { ring_attention_timing(t); }, "fp8");
    t = {};
    t.element_bytes = 3;
    test::check_error([&] { ring_attention_timing(t); }, "element_bytes");
    t = {};
    t.seq_len = 3;
    test::check_error([&] { ring_attention_timing(t); }, "seq_len");
}
