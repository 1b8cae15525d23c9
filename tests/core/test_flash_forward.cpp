// flash_forward: tiled exact attention against the dense reference in double, and its trace.
#include <cmath>
#include <tuple>

#include "attn/attention/flash_forward.hpp"
#include "reference.hpp"
#include "trace_walk.hpp"

using namespace attn;

namespace {

// float inputs, float accumulation, N(0,1) data with |O| <= max|V|: observed errors are ~1e-6;
// 2e-5 leaves room for long rows without hiding a wrong rescale (which shows up as >1e-2).
constexpr double kFloatTol = 2e-5;
constexpr double kDoubleTol = 1e-12;

using Inputs = test::Qkv;

void check_against_reference(const Inputs& in, const FlashOptions& o) {
    test::check_against_sdpa([](const auto&... a) { return flash_forward(a...); }, in, o, kFloatTol, kDoubleTol);
}

}  // namespace

TEST_CASE("flash_forward equals sdpa for odd sizes, L != S, both causal alignments and ragged blocks") {
    const std::pair<std::size_t, std::size_t> blocks[] = {{16, 16}, {7, 5}, {64, 32}, {1, 128}};
    test::for_each_odd_shape([&](std::size_t L, std::size_t S, Causal causal, std::uint64_t seed) {
        FlashOptions o;
        std::tie(o.block_q, o.block_k) = blocks[(L + S + static_cast<std::size_t>(causal)) % 4];
        INFO("Br=" << o.block_q << " Bc=" << o.block_k);
        o.causal = causal;
        check_against_reference(test::random_float_qkv({1, 2, L, 16}, 2, S, 16, seed), o);
    });
}

TEST_CASE("flash_forward handles GQA, a value width different from the key width, and masks") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const Inputs in = test::random_float_qkv({2, 6, 37, 24}, 2, 53, 9, seed);
    FlashOptions o;
    o.block_q = 8;
    o.block_k = 16;
    check_against_reference(in, o);
    o.causal = Causal::bottom_right;
    check_against_reference(in, o);
    o.causal = Causal::none;

    o.mask = test::sparse_mask(37, 53, 5);  // row 5 sees nothing
    check_against_reference(in, o);
    test::check_blank_row(flash_forward(in.q, in.k, in.v, o), 5);

    o.mask = test::smooth_bias({1, 6, 1, 53});  // per head, broadcast over batches and rows
    check_against_reference(in, o);
}

TEST_CASE("fully masked rows under bottom-right causality are zeros with lse = -inf") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const Inputs in = test::random_float_qkv({1, 1, 40, 8}, 1, 9, 8, seed);
    FlashOptions o;
    o.causal = Causal::bottom_right;
    o.block_q = 16;
    o.block_k = 4;
    check_against_reference(in, o);
    const auto r = flash_forward(tensor_cast<float>(in.q), tensor_cast<float>(in.k), tensor_cast<float>(in.v), o);
    for (std::size_t i = 0; i < 31; ++i) {
        CHECK(r.lse[i] == -INFINITY);
        for (std::size_t c = 0; c < 8; ++c) CHECK(r.output.at(0, 0, i, c) == 0.0f);
    }
    CHECK(std::isfinite(r.lse[31]));
}

TEST_CASE("HBM traffic and FLOPs match the closed forms, and causal skipping removes exactly the empty blocks") {
    for (auto [L, S, br, bc, causal] : {std::tuple{100u, 100u, 16u, 32u, Causal::none},
                                         std::tuple{100u, 100u, 16u, 16u, Causal::top_left},
                                         std::tuple{37u, 130u, 8u, 32u, Causal::bottom_right},
                                         std::tuple{130u, 37u, 32u, 8u, Causal::bottom_right}}) {
        INFO("L=" << L << " S=" << S << " Br=" << br << " Bc=" << bc);
        const std::size_t B = 2, H = 3, D = 16, Dv = 8, eb = 2;
        const Inputs in = test::random_float_qkv({B, H, L, D}, H, S, Dv, test::next_seed());
        FlashOptions o;
        o.block_q = br;
        o.block_k = bc;
        o.causal = causal;
        o.element_bytes = eb;
        const auto r = flash_forward(in.q, in.k, in.v, o);

        // Brute force: a block is skippable when no (row, key) in it is allowed by the causal rule.
        std::size_t computed = 0, computed_cols = 0, computed_cells = 0;
        for (std::size_t qb = 0; qb < test::ceil_div(L, br); ++qb) {
            for (std::size_t kb = 0; kb < test::ceil_div(S, bc); ++kb) {
                bool any = false;
                const std::size_t rows = std::min<std::size_t>(br, L - qb * br),
                                  cols = std::min<std::size_t>(bc, S - kb * bc);
                for (std::size_t i = qb * br; i < qb * br + rows; ++i)
                    any = any || causal_key_end(i, L, S, causal) > kb * bc;
                if (any) {
                    ++computed;
                    computed_cols += cols;
                    computed_cells += rows * cols;
                }
            }
        }
        const std::size_t heads = B * H;
        CHECK(r.stats.tiles_computed == heads * computed);
        CHECK(r.stats.tiles_computed + r.stats.tiles_skipped == heads * test::ceil_div(L, br) * test::ceil_div(S, bc));
        // Reads: every Q row once, K and V once per computed tile. Writes: O and the fp32 lse once.
        CHECK(r.stats.hbm_bytes_read == heads * (L * D * eb + computed_cols * (D + Dv) * eb));
        CHECK(r.stats.hbm_bytes_written == heads * (L * Dv * eb + L * 4));
        CHECK(r.stats.flops == heads * 2 * computed_cells * (D + Dv));
        // Never holds the L x S matrix: peak on-chip bytes depend on the blocks only.
        CHECK(r.stats.peak_sram_bytes <= br * D * eb + br * (Dv + 2) * 4 + bc * (D + Dv) * eb + br * bc * 4);
    }
}

TEST_CASE("the trace follows FlashAttention-2's loop and ends in the returned output") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::size_t L = 10, S = 23, D = 4, Dv = 3, br = 4, bc = 8;
    const Inputs in = test::random_float_qkv({2, 2, L, D}, 1, S, Dv, seed);
    FlashOptions o;
    o.block_q = br;
    o.block_k = bc;
    o.causal = Causal::bottom_right;
    o.trace = true;
    o.trace_batch = 1;
    o.trace_head = 1;
    const auto r = flash_forward(in.q, in.k, in.v, o);
    const std::size_t tr = test::ceil_div(L, br), tc = test::ceil_div(S, bc);
    REQUIRE(r.trace.size() == tr * (tc + 2));

    std::uint64_t last_read = 0;
    for (std::size_t qb = 0; qb < tr; ++qb) {
        const auto* steps = &r.trace[qb * (tc + 2)];
        CHECK(steps[0].kind == FlashStepKind::load_q);
        CHECK(steps[tc + 1].kind == FlashStepKind::write_o);
        const std::size_t rows = steps[0].row_end - steps[0].row_begin;
        for (std::size_t kb = 0; kb < tc; ++kb) {
            const auto& prev = steps[kb];
            const auto& s = steps[kb + 1];
            CHECK(s.k_block == kb);
            CHECK(s.hbm_bytes_read >= last_read);
            last_read = s.hbm_bytes_read;
            if (s.kind != FlashStepKind::tile) continue;
            CHECK(s.scores.size() == rows * (s.col_end - s.col_begin));
            for (std::size_t i = 0; i < rows; ++i) {
                CHECK(s.m[i] >= prev.m[i]);  // the running max never decreases
                if (std::isfinite(prev.m[i])) CHECK(s.rescale[i] == doctest::Approx(std::exp(prev.m[i] - s.m[i])));
            }
        }
        // The last step's partial output is the final output of those rows.
        const auto& last = steps[tc + 1];
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t c = 0; c < Dv; ++c)
                CHECK(last.output[i * Dv + c] == r.output.at(1, 1, last.row_begin + i, c));
    }
    // Counters cover the traced head only: a quarter of the launch's reads.
    CHECK(r.trace.back().hbm_bytes_read * 4 == r.stats.hbm_bytes_read);
}

TEST_CASE("each FA2 trace step lists its HBM transfers, and they add up to the counters") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::size_t L = 11, S = 19, D = 4, Dv = 3, br = 4, bc = 8, eb = 2;
    const Inputs in = test::random_float_qkv({1, 1, L, D}, 1, S, Dv, seed);
    FlashOptions o;
    o.block_q = br;
    o.block_k = bc;
    o.element_bytes = eb;
    o.causal = Causal::top_left;
    o.trace = true;
    const auto r = flash_forward(in.q, in.k, in.v, o);
    CHECK(r.block_q == br);
    CHECK(r.block_k == bc);
    test::TraceWalk walk(r.trace);
    while (!walk.done()) {
        const auto& s = walk.next();
        const std::size_t rows = s.row_end - s.row_begin, cols = s.col_end - s.col_begin;
        switch (s.kind) {
            case FlashStepKind::load_q:
                REQUIRE(s.transfers.size() == 1);
                CHECK(s.transfers[0].matrix == HbmMatrix::q);
                CHECK(s.transfers[0].bytes == rows * D * eb);
                break;
            case FlashStepKind::tile:
                REQUIRE(s.transfers.size() == 2);
                CHECK(s.transfers[0].matrix == HbmMatrix::k);
                CHECK(s.transfers[1].matrix == HbmMatrix::v);
                CHECK(s.transfers[1].row_begin == s.col_begin);
                CHECK(s.transfers[1].bytes == cols * Dv * eb);
                break;
            case FlashStepKind::skip: CHECK(s.transfers.empty()); break;
            case FlashStepKind::write_o:
                REQUIRE(s.transfers.size() == 2);
                CHECK(s.transfers[0].matrix == HbmMatrix::o);
                CHECK(s.transfers[0].direction == HbmDirection::write);
                CHECK(s.transfers[1].matrix == HbmMatrix::lse);
                CHECK(s.transfers[1].bytes == rows * 4);
                break;
            default: FAIL("FA2 order emits no init_o or load_kv steps");
        }
    }
    CHECK(walk.read() == r.stats.hbm_bytes_read);
    CHECK(walk.written() == r.stats.hbm_bytes_written);
}
