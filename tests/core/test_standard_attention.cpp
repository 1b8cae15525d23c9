// standard_attention: FlashAttention paper Algorithm 0 (S and P round-trip through HBM) against the
// dense reference, its exact HBM traffic, and its trace.
#include <cmath>
#include <numeric>
#include <tuple>

#include "attn/attention/standard_attention.hpp"
#include "reference.hpp"
#include "trace_walk.hpp"

using namespace attn;

namespace {

// float inputs and accumulation over at most 129 keys: observed ~1e-6; 2e-5 catches any wrong
// normalisation or misplaced block (errors of order 1e-1).
constexpr double kFloatTol = 2e-5;
constexpr double kDoubleTol = 1e-12;

void check_against_reference(const test::Qkv& in, const StandardAttentionOptions& o) {
    test::check_against_sdpa([](const auto&... a) { return standard_attention(a...); }, in, o, kFloatTol, kDoubleTol);
}

}  // namespace

TEST_CASE("standard attention equals sdpa for odd sizes, L != S, both causal alignments and ragged blocks") {
    const std::pair<std::size_t, std::size_t> blocks[] = {{16, 16}, {7, 5}, {64, 32}, {1, 128}};
    test::for_each_odd_shape([&](std::size_t L, std::size_t S, Causal causal, std::uint64_t seed) {
        StandardAttentionOptions o;
        std::tie(o.block_q, o.block_k) = blocks[(L + 2 * S + static_cast<std::size_t>(causal)) % 4];
        INFO("Br=" << o.block_q << " Bc=" << o.block_k);
        o.causal = causal;
        check_against_reference(test::random_float_qkv({1, 2, L, 16}, 2, S, 11, seed), o);
    });
}

TEST_CASE("standard attention handles GQA, masks and fully masked rows (zeros, lse = -inf)") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const auto in = test::random_float_qkv({2, 6, 37, 24}, 3, 53, 9, seed);
    StandardAttentionOptions o;
    o.block_q = 8;
    o.block_k = 16;
    o.mask = test::sparse_mask(37, 53, 11);  // row 11 sees nothing
    check_against_reference(in, o);
    test::check_blank_row(standard_attention(in.q, in.k, in.v, o), 11);

    o.mask = test::smooth_bias({2, 1, 1, 53});  // per batch, broadcast over heads and rows
    check_against_reference(in, o);

    o.mask = {};
    o.causal = Causal::bottom_right;  // L = 37 < S = 53: every row sees at least 17 keys
    check_against_reference(in, o);
}

TEST_CASE("standard attention's HBM traffic and FLOPs match Algorithm 0's closed form") {
    for (auto [L, S, br, bc, causal] : {std::tuple{100u, 100u, 16u, 32u, Causal::none},
                                         std::tuple{37u, 130u, 8u, 32u, Causal::top_left},
                                         std::tuple{129u, 17u, 7u, 5u, Causal::bottom_right}}) {
        INFO("L=" << L << " S=" << S << " Br=" << br << " Bc=" << bc);
        const std::size_t B = 2, H = 4, Hkv = 2, D = 16, Dv = 8, eb = 2, heads = B * H;
        const auto in = test::random_float_qkv({B, H, L, D}, Hkv, S, Dv, test::next_seed());
        StandardAttentionOptions o;
        o.block_q = br;
        o.block_k = bc;
        o.causal = causal;
        o.element_bytes = eb;
        const auto r = standard_attention(in.q, in.k, in.v, o);
        const std::size_t tr = test::ceil_div(L, br);
        // Pass 1 reads Q once and K once per Q block and writes S; pass 2 reads S and writes P;
        // pass 3 reads P and V once per Q block and writes O. Causal masking skips nothing.
        CHECK(r.stats.hbm_bytes_read == heads * (L * D * eb + tr * S * D * eb + 2 * L * S * eb + tr * S * Dv * eb));
        CHECK(r.stats.hbm_bytes_written == heads * (2 * L * S * eb + L * Dv * eb));
        CHECK(r.stats.flops == heads * 2 * L * S * (D + Dv));
        CHECK(r.stats.hbm_intermediate_bytes == heads * 2 * L * S * eb);
        // Pass 2 holds Br whole rows of S and P (fp32): the on-chip need grows with S.
        CHECK(r.stats.peak_sram_bytes >= std::min<std::size_t>(br, L) * S * 2 * 4);
    }
}

TEST_CASE("the standard-attention trace: three passes, S and P stored in HBM, counters from the transfers") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::size_t L = 10, S = 13, D = 4, Dv = 3, br = 4, bc = 5, eb = 2;
    const auto in = test::random_float_qkv({1, 2, L, D}, 2, S, Dv, seed);
    StandardAttentionOptions o;
    o.block_q = br;
    o.block_k = bc;
    o.element_bytes = eb;
    o.causal = Causal::top_left;
    o.trace = true;
    o.trace_head = 1;
    const auto r = standard_attention(in.q, in.k, in.v, o);
    const std::size_t tr = test::ceil_div(L, br), tc = test::ceil_div(S, bc);
    REQUIRE(r.trace.size() == tr * (1 + tc) + tr + tr * (tc + 1));

    test::TraceWalk walk(r.trace);
    for (std::size_t qb = 0; qb < tr; ++qb) {
        walk.next(StandardStepKind::load_q);
        for (std::size_t kb = 0; kb < tc; ++kb) {
            const auto& s = walk.next(StandardStepKind::score_tile);
            REQUIRE(s.transfers.size() == 2);
            CHECK(s.transfers[1].matrix == HbmMatrix::s);
            CHECK(s.transfers[1].direction == HbmDirection::write);
            CHECK(s.transfers[1].col_begin == kb * bc);
            CHECK(s.scores.size() == (s.row_end - s.row_begin) * (s.col_end - s.col_begin));
        }
    }
    CHECK(walk.last().hbm_bytes_stored == L * S * eb);  // all of S is in HBM now
    for (std::size_t qb = 0; qb < tr; ++qb) {
        const auto& s = walk.next(StandardStepKind::softmax_rows);
        const std::size_t rows = s.row_end - s.row_begin;
        for (std::size_t i = 0; i < rows; ++i) {
            const double sum = std::accumulate(&s.probs[i * S], &s.probs[(i + 1) * S], 0.0);
            CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
            CHECK(std::log(s.l[i]) + s.m[i] == doctest::Approx(r.lse[L + s.row_begin + i]).epsilon(1e-12));
        }
    }
    CHECK(walk.last().hbm_bytes_stored == 2 * L * S * eb);  // and all of P
    for (std::size_t qb = 0; qb < tr; ++qb) {
        for (std::size_t kb = 0; kb < tc; ++kb) walk.next(StandardStepKind::pv_tile);
        const auto& w = walk.next(StandardStepKind::write_o);
        for (std::size_t i = 0; i < w.row_end - w.row_begin; ++i)
            for (std::size_t c = 0; c < Dv; ++c) CHECK(w.output[i * Dv + c] == r.output.at(0, 1, w.row_begin + i, c));
    }
    CHECK(walk.done());
    CHECK(walk.read() * 2 == r.stats.hbm_bytes_read);  // the traced head is one of two
    CHECK(walk.written() * 2 == r.stats.hbm_bytes_written);
}

TEST_CASE("standard attention validates its options") {
    const Tensor4<double> q(Shape4{1, 2, 5, 8}, 0.1), k(Shape4{1, 1, 7, 8}, 0.2), v(Shape4{1, 1, 7, 3}, 0.3);
    StandardAttentionOptions o;
    o.block_q = 0;
    test::check_error([&] { standard_attention(q, k, v, o); }, "block_q: must be in [1, 4096], got 0");
    o.block_q = 4;
    o.block_k = 4097;
    test::check_error([&] { standard_attention(q, k, v, o); }, "block_k: must be in [1, 4096], got 4097");
    o.block_k = 4;
    o.element_bytes = 3;
    test::check_error([&] { standard_attention(q, k, v, o); }, "element_bytes: must be 1, 2, 4 or 8, got 3");
    o.element_bytes = 2;
    o.trace = true;
    o.trace_head = 2;
    test::check_error([&] { standard_attention(q, k, v, o); }, "trace_batch/trace_head: must be < (1, 2)");
    o.trace_head = 0;
    o.sram_elements = 0;
    test::check_error([&] { standard_attention(q, k, v, o); }, "sram_elements: must be in [1,");
    o.sram_elements.reset();
    o.scale = NAN;
    test::check_error([&] { standard_attention(q, k, v, o); }, "scale: must be a finite number");
}
