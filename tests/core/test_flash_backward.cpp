// flash_backward (recomputing FlashAttention backward) against the dense backward in double, the
// dense backward against finite differences, the exact HBM traffic, the recomputation trade and
// the trace.
#include <cmath>
#include <tuple>

#include "attn/attention/flash_backward.hpp"
#include "attn/attention/flash_forward.hpp"
#include "attn/attention/sdpa_backward.hpp"
#include "reference.hpp"
#include "trace_walk.hpp"

using namespace attn;

namespace {

// Double: both sides are exact chain rules summed in different orders; observed ~1e-14.
constexpr double kDoubleTol = 1e-11;
// Float run (float forward, float lse, float accumulation) against the double reference. Gradients
// here are O(1) and dK/dV sum up to 129 rows x 2 query heads; observed <= ~1e-5. 5e-5 still
// catches a missing scale or a wrong D (errors of order 1e-1).
constexpr double kFloatTol = 5e-5;

struct Problem {
    test::Qkv in;
    Tensor4<double> d_o;
};

Problem random_problem(Shape4 qs, std::size_t kv_heads, std::size_t kv_len, std::size_t value_dim,
                       std::uint64_t seed) {
    auto in = test::random_qkv(qs, kv_heads, kv_len, value_dim, seed);
    Problem p{{test::float_rounded(in.q), test::float_rounded(in.k), test::float_rounded(in.v)},
              test::float_rounded(test::randn({qs.batch, qs.heads, qs.seq, value_dim}, seed + 3))};
    return p;
}

FlashOptions forward_options(const AttentionOptions& a) {
    FlashOptions fo;
    static_cast<AttentionOptions&>(fo) = a;
    return fo;
}

// Runs the flash backward in double and float (each from its own precision's forward) and
// compares with the dense backward in double.
void check_against_dense(const Problem& pr, const FlashBackwardOptions& bo) {
    const auto& in = pr.in;
    const auto ref = sdpa_backward(in.q, in.k, in.v, pr.d_o, bo);

    const auto fwd = flash_forward(in.q, in.k, in.v, forward_options(bo));
    const auto g64 = flash_backward(in.q, in.k, in.v, fwd.output, pr.d_o, fwd.lse, bo);
    CHECK(test::max_abs_diff(g64.dq.data, ref.dq.data) < kDoubleTol);
    CHECK(test::max_abs_diff(g64.dk.data, ref.dk.data) < kDoubleTol);
    CHECK(test::max_abs_diff(g64.dv.data, ref.dv.data) < kDoubleTol);

    const auto q = tensor_cast<float>(in.q), k = tensor_cast<float>(in.k), v = tensor_cast<float>(in.v);
    const auto d_o = tensor_cast<float>(pr.d_o);
    const auto fwd32 = flash_forward(q, k, v, forward_options(bo));
    const auto g32 = flash_backward(q, k, v, fwd32.output, d_o, fwd32.lse, bo);
    CHECK(test::max_abs_diff(g32.dq.data, ref.dq.data) < kFloatTol);
    CHECK(test::max_abs_diff(g32.dk.data, ref.dk.data) < kFloatTol);
    CHECK(test::max_abs_diff(g32.dv.data, ref.dv.data) < kFloatTol);
}

}  // namespace

// The reference must itself be right: loss = sum(dO o O) has gradient (dQ, dK, dV); central
// differences with step 1e-6 in double have error ~1e-9 here, so 1e-6 separates a correct
// gradient from any wrong term.
TEST_CASE("the dense backward matches finite differences (GQA, both causal alignments, masks)") {
    struct Case {
        std::size_t L, S;
        Causal causal;
        bool masked;
    };
    for (const Case& c : {Case{5, 7, Causal::none, false}, Case{6, 4, Causal::bottom_right, false},
                          Case{4, 6, Causal::top_left, false}, Case{5, 6, Causal::none, true}}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " L=" << c.L << " S=" << c.S << " causal=" << static_cast<int>(c.causal));
        Problem pr = random_problem({1, 4, c.L, 3}, 2, c.S, 2, seed);
        AttentionOptions o;
        o.causal = c.causal;
        if (c.masked) {
            std::vector<std::uint8_t> allowed(c.L * c.S);
            for (std::size_t n = 0; n < allowed.size(); ++n) allowed[n] = n % 3 != 1;
            o.mask = AttentionMask::boolean({1, 1, c.L, c.S}, allowed);
        }
        const auto g = sdpa_backward(pr.in.q, pr.in.k, pr.in.v, pr.d_o, o);
        SdpaOptions so;
        static_cast<AttentionOptions&>(so) = o;
        auto loss = [&](const test::Qkv& x) {
            const auto out = sdpa(x.q, x.k, x.v, so).output;
            double sum = 0;
            for (std::size_t n = 0; n < out.data.size(); ++n) sum += out.data[n] * pr.d_o.data[n];
            return sum;
        };
        const double h = 1e-6;
        auto check_grad = [&](Tensor4<double> test::Qkv::*member, const Tensor4<double>& grad) {
            for (std::size_t n = 0; n < grad.data.size(); ++n) {
                test::Qkv plus = pr.in, minus = pr.in;
                (plus.*member).data[n] += h;
                (minus.*member).data[n] -= h;
                CHECK(grad.data[n] == doctest::Approx((loss(plus) - loss(minus)) / (2 * h)).epsilon(1e-6).scale(1));
            }
        };
        check_grad(&test::Qkv::q, g.dq);
        check_grad(&test::Qkv::k, g.dk);
        check_grad(&test::Qkv::v, g.dv);
    }
}

TEST_CASE("flash_backward equals the dense backward for odd sizes, L != S, both causal alignments and ragged blocks") {
    const std::pair<std::size_t, std::size_t> blocks[] = {{16, 16}, {7, 5}, {64, 32}, {1, 128}};
    test::for_each_odd_shape([&](std::size_t L, std::size_t S, Causal causal, std::uint64_t seed) {
        FlashBackwardOptions o;
        std::tie(o.block_q, o.block_k) = blocks[(L + S + static_cast<std::size_t>(causal)) % 4];
        INFO("Br=" << o.block_q << " Bc=" << o.block_k);
        o.causal = causal;
        check_against_dense(random_problem({1, 4, L, 16}, 2, S, 12, seed), o);  // GQA, groups of 2
    });
}

TEST_CASE("flash_backward with masks, fully masked rows give zero gradients, not NaN") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const Problem pr = random_problem({2, 6, 37, 24}, 2, 53, 9, seed);
    FlashBackwardOptions o;
    o.block_q = 8;
    o.block_k = 16;
    o.mask = test::sparse_mask(37, 53, 5);  // row 5 sees nothing
    check_against_dense(pr, o);
    o.mask = test::smooth_bias({1, 6, 1, 53});
    check_against_dense(pr, o);

    // Bottom-right causality with L = 40 > S = 9: rows 0..30 see no key.
    const Problem tall = random_problem({1, 2, 40, 8}, 1, 9, 5, test::next_seed());
    FlashBackwardOptions c;
    c.causal = Causal::bottom_right;
    c.block_q = 16;
    c.block_k = 4;
    check_against_dense(tall, c);
    const auto q = tensor_cast<float>(tall.in.q), k = tensor_cast<float>(tall.in.k), v = tensor_cast<float>(tall.in.v);
    const auto fwd = flash_forward(q, k, v, forward_options(c));
    const auto g = flash_backward(q, k, v, fwd.output, tensor_cast<float>(tall.d_o), fwd.lse, c);
    for (float x : g.dq.data) CHECK(std::isfinite(x));
    for (float x : g.dk.data) CHECK(std::isfinite(x));
    for (float x : g.dv.data) CHECK(std::isfinite(x));
    for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t i = 0; i < 31; ++i)
            for (std::size_t d = 0; d < 8; ++d) CHECK(g.dq.at(0, h, i, d) == 0.0f);
}

TEST_CASE("flash_backward's HBM traffic, FLOPs and the bytes it does not store match the closed forms") {
    for (auto [L, S, br, bc, causal] : {std::tuple{100u, 100u, 16u, 32u, Causal::none},
                                         std::tuple{37u, 130u, 8u, 32u, Causal::top_left},
                                         std::tuple{130u, 37u, 32u, 8u, Causal::bottom_right}}) {
        INFO("L=" << L << " S=" << S << " Br=" << br << " Bc=" << bc << " causal=" << static_cast<int>(causal));
        const std::size_t B = 2, H = 6, Hkv = 2, g = H / Hkv, D = 16, Dv = 8, eb = 2;
        const Problem pr = random_problem({B, H, L, D}, Hkv, S, Dv, test::next_seed());
        FlashBackwardOptions o;
        o.block_q = br;
        o.block_k = bc;
        o.causal = causal;
        o.element_bytes = eb;
        const auto fwd = flash_forward(pr.in.q, pr.in.k, pr.in.v, forward_options(o));
        const auto r = flash_backward(pr.in.q, pr.in.k, pr.in.v, fwd.output, pr.d_o, fwd.lse, o);

        // Brute-force census of the (Q block, K/V block) pairs the causal rule leaves.
        std::size_t computed = 0, rows_sum = 0, cells = 0, kv_cols = 0;
        for (std::size_t kb = 0; kb < test::ceil_div(S, bc); ++kb) {
            const std::size_t cols = std::min<std::size_t>(bc, S - kb * bc);
            bool needed = false;
            for (std::size_t qb = 0; qb < test::ceil_div(L, br); ++qb) {
                const std::size_t rows = std::min<std::size_t>(br, L - qb * br);
                bool any = false;
                for (std::size_t i = qb * br; i < qb * br + rows; ++i) any = any || causal_key_end(i, L, S, causal) > kb * bc;
                if (!any) continue;
                needed = true;
                ++computed;
                rows_sum += rows;
                cells += rows * cols;
            }
            if (needed) kv_cols += cols;
        }
        const std::size_t units = B * Hkv;  // one K/V loop per key/value head
        // Per unit: D pass reads O, dO and writes D (fp32) and dQ = 0 (fp32) for the g query heads;
        // each needed K_j, V_j is read once; each computed block reads Q_i, dO_i (eb), dQ_i (fp32),
        // L_i and D_i (fp32) and writes dQ_i (fp32); every dK_j, dV_j is written once.
        CHECK(r.stats.hbm_bytes_read ==
              units * (g * L * 2 * Dv * eb + kv_cols * (D + Dv) * eb + g * rows_sum * ((D + Dv) * eb + D * 4 + 8)));
        CHECK(r.stats.hbm_bytes_written == units * (g * L * 4 + g * L * D * 4 + g * rows_sum * D * 4 + S * (D + Dv) * eb));
        CHECK(r.stats.flops == units * g * (2 * L * Dv + 2 * cells * (3 * D + 2 * Dv)));
        CHECK(r.stats.recompute_flops == units * g * 2 * cells * D);
        CHECK(r.stats.tiles_computed == units * g * computed);
        CHECK(r.stats.tiles_computed + r.stats.tiles_skipped == B * H * test::ceil_div(L, br) * test::ceil_div(S, bc));
        CHECK(r.stats.bytes_not_stored == 2 * B * H * L * S * eb);
    }
}

TEST_CASE("the flash_backward trace: D pass, then per K/V block the group's query blocks, P recomputed") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::size_t L = 10, S = 13, D = 4, Dv = 3, br = 4, bc = 5, H = 4, Hkv = 2;
    const Problem pr = random_problem({1, H, L, D}, Hkv, S, Dv, seed);
    FlashBackwardOptions o;
    o.block_q = br;
    o.block_k = bc;
    o.causal = Causal::bottom_right;
    o.trace = true;
    o.trace_head = 3;  // key/value head 1, with query heads 2 and 3
    const auto fwd = flash_forward(pr.in.q, pr.in.k, pr.in.v, forward_options(o));
    const auto r = flash_backward(pr.in.q, pr.in.k, pr.in.v, fwd.output, pr.d_o, fwd.lse, o);
    SdpaOptions so;
    so.causal = o.causal;
    so.return_probs = true;
    const auto probs = sdpa(pr.in.q, pr.in.k, pr.in.v, so).probs;
    const std::size_t tr = test::ceil_div(L, br), tc = test::ceil_div(S, bc);
    REQUIRE(r.trace.size() == 2 * tr + tc * (1 + 2 * tr + 1));

    test::TraceWalk walk(r.trace);
    for (std::size_t h = 2; h < 4; ++h) {
        for (std::size_t qb = 0; qb < tr; ++qb) {
            const auto& s = walk.next(FlashBackwardStepKind::compute_delta);
            CHECK(s.q_head == h);
            for (std::size_t i = 0; i < s.row_end - s.row_begin; ++i) {
                double dot = 0;
                for (std::size_t c = 0; c < Dv; ++c)
                    dot += pr.d_o.at(0, h, s.row_begin + i, c) * fwd.output.at(0, h, s.row_begin + i, c);
                CHECK(s.delta[i] == doctest::Approx(dot).epsilon(1e-12));
            }
        }
    }
    for (std::size_t kb = 0; kb < tc; ++kb) {
        walk.next(FlashBackwardStepKind::load_kv);  // bottom-right with L < S: the last query row sees every key
        for (std::size_t h = 2; h < 4; ++h) {
            for (std::size_t qb = 0; qb < tr; ++qb) {
                const auto& s = walk.next();
                CHECK((s.kind == FlashBackwardStepKind::tile || s.kind == FlashBackwardStepKind::skip));
                CHECK(s.q_head == h);
                if (s.kind == FlashBackwardStepKind::skip) continue;
                const std::size_t cols = s.col_end - s.col_begin;
                // The recomputed P tile is the forward's probabilities.
                for (std::size_t i = s.row_begin; i < s.row_end; ++i)
                    for (std::size_t j = s.col_begin; j < s.col_end; ++j)
                        CHECK(s.probs[(i - s.row_begin) * cols + j - s.col_begin] ==
                              doctest::Approx(probs[((h * L) + i) * S + j]).epsilon(1e-12));
            }
        }
        walk.next(FlashBackwardStepKind::write_dkdv);
    }
    CHECK(walk.done());
    CHECK(walk.read() * 2 == r.stats.hbm_bytes_read);  // one key/value head of two
    CHECK(walk.written() * 2 == r.stats.hbm_bytes_written);
}

TEST_CASE("flash_backward validates O, dO, the log-sum-exp and its options") {
    const Tensor4<double> q(Shape4{1, 2, 5, 8}, 0.1), k(Shape4{1, 1, 7, 8}, 0.2), v(Shape4{1, 1, 7, 3}, 0.3);
    const Tensor4<double> o(Shape4{1, 2, 5, 3}, 0.3), d_o(Shape4{1, 2, 5, 3}, 1.0);
    const std::vector<double> lse(10, 1.0);
    test::check_error([&] { flash_backward(q, k, v, Tensor4<double>(Shape4{1, 2, 5, 4}), d_o, lse); },
                "o: must have the output's shape [1, 2, 5, 3]");
    test::check_error([&] { flash_backward(q, k, v, o, Tensor4<double>(Shape4{1, 1, 5, 3}), lse); }, "d_o: must have");
    Tensor4<double> bad = d_o;
    bad.data[4] = INFINITY;
    test::check_error([&] { flash_backward(q, k, v, o, bad, lse); }, "d_o: element 4 is not finite");
    test::check_error([&] { flash_backward(q, k, v, o, d_o, std::vector<double>(9, 0.0)); },
                "lse: expected B * Hq * L = 10 entries, got 9");
    std::vector<double> nan_lse = lse;
    nan_lse[2] = NAN;
    test::check_error([&] { flash_backward(q, k, v, o, d_o, nan_lse); }, "lse: entry 2 is NaN or +inf");
    nan_lse[2] = -INFINITY;  // allowed: a row with no key
    CHECK_NOTHROW(flash_backward(q, k, v, o, d_o, nan_lse));
    FlashBackwardOptions opt;
    opt.block_k = 0;
    test::check_error([&] { flash_backward(q, k, v, o, d_o, lse, opt); }, "block_k: must be in [1, 4096], got 0");
    opt.block_k = 4;
    opt.trace = true;
    opt.trace_batch = 1;
    test::check_error([&] { flash_backward(q, k, v, o, d_o, lse, opt); }, "trace_batch/trace_head");
    test::check_error([&] { sdpa_backward(q, k, v, Tensor4<double>(Shape4{1, 2, 5, 2})); }, "d_o: must have the output's shape");
}
