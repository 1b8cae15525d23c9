// flash_forward in FlashAttention-1's loop order (K/V blocks outer) next to FlashAttention-2's, the
// SRAM-derived block sizes, the exact HBM traffic of both orders, and the IO complexity of FA1
// paper Theorem 2 measured from the counters against standard attention's.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "attn/attention/flash_forward.hpp"
#include "attn/attention/sram_blocks.hpp"
#include "attn/attention/standard_attention.hpp"
#include "reference.hpp"
#include "trace_walk.hpp"

using namespace attn;

namespace {

// FA1 re-normalises O after every K/V block, so float rounding grows with the number of blocks:
// observed <= 1.5e-6 at 129 keys in blocks of 5; 3e-5 still catches a wrong rescale (> 1e-2).
constexpr double kFloatTol = 3e-5;
constexpr double kDoubleTol = 1e-12;

void check_against_reference(const test::Qkv& in, const FlashOptions& o) {
    test::check_against_sdpa([](const auto&... a) { return flash_forward(a...); }, in, o, kFloatTol, kDoubleTol);
}

// The blocks a causal rule leaves to compute, by brute force over every (row, key) of a block.
struct BlockCensus {
    std::size_t computed = 0;       // (Q block, K/V block) pairs with at least one allowed score
    std::size_t computed_rows = 0;  // sum of their Q block heights
    std::size_t computed_cols = 0;  // sum of their K/V block widths
    std::size_t computed_cells = 0;
    std::size_t kv_cols_needed = 0;  // keys of K/V blocks some query block needs
};

BlockCensus census(std::size_t L, std::size_t S, std::size_t br, std::size_t bc, Causal causal) {
    BlockCensus c;
    for (std::size_t kb = 0; kb < test::ceil_div(S, bc); ++kb) {
        const std::size_t cols = std::min(bc, S - kb * bc);
        bool kv_needed = false;
        for (std::size_t qb = 0; qb < test::ceil_div(L, br); ++qb) {
            const std::size_t rows = std::min(br, L - qb * br);
            bool any = false;
            for (std::size_t i = qb * br; i < qb * br + rows; ++i) any = any || causal_key_end(i, L, S, causal) > kb * bc;
            if (!any) continue;
            kv_needed = true;
            ++c.computed;
            c.computed_rows += rows;
            c.computed_cols += cols;
            c.computed_cells += rows * cols;
        }
        if (kv_needed) c.kv_cols_needed += cols;
    }
    return c;
}

// Exact HBM bytes of one head (eb bytes per Q/K/V/O element, 4 per statistic), derived from the
// algorithms' listings.
struct Traffic {
    std::uint64_t read, written;
};

// FA2 Algorithm 1: Q_i read once, K_j and V_j once per computed block, O_i and L_i written once.
Traffic fa2_traffic(std::size_t L, std::size_t D, std::size_t Dv, std::size_t eb, const BlockCensus& c) {
    return {L * D * eb + c.computed_cols * (D + Dv) * eb, L * Dv * eb + L * 4};
}

// FA1 Algorithm 1: line 2 writes O, l, m once; line 6 reads each needed K_j, V_j once; line 8
// reads Q_i, O_i, l_i, m_i and lines 12-13 write O_i, l_i, m_i for every computed block.
Traffic fa1_traffic(std::size_t L, std::size_t D, std::size_t Dv, std::size_t eb, const BlockCensus& c) {
    return {c.kv_cols_needed * (D + Dv) * eb + c.computed_rows * ((D + Dv) * eb + 8),
            L * (Dv * eb + 8) + c.computed_rows * (Dv * eb + 8)};
}

}  // namespace

TEST_CASE("FA1 loop order equals sdpa for odd sizes, L != S, both causal alignments, GQA and masks") {
    const std::pair<std::size_t, std::size_t> blocks[] = {{16, 16}, {7, 5}, {64, 32}, {1, 128}};
    test::for_each_odd_shape([&](std::size_t L, std::size_t S, Causal causal, std::uint64_t seed) {
        FlashOptions o;
        o.loop_order = FlashLoopOrder::fa1_kv_outer;
        std::tie(o.block_q, o.block_k) = blocks[(L + S + static_cast<std::size_t>(causal)) % 4];
        INFO("Br=" << o.block_q << " Bc=" << o.block_k);
        o.causal = causal;
        check_against_reference(test::random_float_qkv({1, 2, L, 16}, 1, S, 12, seed), o);
    });
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const auto in = test::random_float_qkv({2, 6, 37, 24}, 2, 53, 9, seed);
    FlashOptions o;
    o.loop_order = FlashLoopOrder::fa1_kv_outer;
    o.block_q = 8;
    o.block_k = 16;
    o.mask = test::sparse_mask(37, 53, 5);  // row 5 sees nothing
    check_against_reference(in, o);
    test::check_blank_row(flash_forward(in.q, in.k, in.v, o), 5);
    o.mask = test::smooth_bias({1, 6, 1, 53});
    check_against_reference(in, o);
}

TEST_CASE("blocks from an SRAM budget follow FA1 Algorithm 1 line 1: Bc = ceil(M / 4d), Br = min(Bc, d)") {
    // Hand-computed: 4096 / (4 * 64) = 16 exactly; 100000 / 256 = 390.6 -> 391, capped at d for Br.
    CHECK(blocks_from_sram(4096, 64).block_k == 16);
    CHECK(blocks_from_sram(4096, 64).block_q == 16);
    CHECK(blocks_from_sram(100000, 64).block_k == 391);
    CHECK(blocks_from_sram(100000, 64).block_q == 64);
    CHECK(blocks_from_sram(1, 64).block_k == 1);  // below 4d: one key per block
    CHECK(blocks_from_sram(1, 64).block_q == 1);
    CHECK(blocks_from_sram(4096 * 4 * 8, 8).block_k == 4096);  // the largest allowed budget
    for (std::size_t d : {1u, 3u, 17u, 64u}) {
        for (std::size_t m : {1u, 5u, 255u, 256u, 257u, 9999u}) {
            const auto b = blocks_from_sram(m, d);
            CHECK(b.block_k * 4 * d >= m);          // ceil: the blocks cover M / 4d ...
            CHECK((b.block_k - 1) * 4 * d < m);     // ... by less than one row
            CHECK(b.block_q == std::min(b.block_k, d));
        }
    }

    // flash_forward uses them (d = the wider of head_dim and value_dim) and reports them.
    const auto in = test::random_float_qkv({1, 1, 40, 8}, 1, 50, 12, test::next_seed());
    FlashOptions o;
    o.sram_elements = 4 * 12 * 5;  // Bc = 5, Br = min(5, 12) = 5
    o.block_q = 1;                 // ignored when sram_elements is set
    for (auto order : {FlashLoopOrder::fa2_q_outer, FlashLoopOrder::fa1_kv_outer}) {
        o.loop_order = order;
        const auto r = flash_forward(in.q, in.k, in.v, o);
        CHECK(r.block_k == 5);
        CHECK(r.block_q == 5);
        CHECK(r.num_q_blocks == 8);
        CHECK(r.num_k_blocks == 10);
        check_against_reference(in, o);
    }
}

TEST_CASE("HBM traffic of both loop orders equals the closed forms, both compute the same tiles") {
    for (auto [L, S, br, bc, causal] : {std::tuple{100u, 100u, 16u, 32u, Causal::none},
                                         std::tuple{100u, 100u, 16u, 16u, Causal::top_left},
                                         std::tuple{37u, 130u, 8u, 32u, Causal::top_left},
                                         std::tuple{37u, 130u, 8u, 32u, Causal::bottom_right},
                                         std::tuple{130u, 37u, 32u, 8u, Causal::bottom_right},
                                         std::tuple{129u, 17u, 7u, 5u, Causal::top_left}}) {
        INFO("L=" << L << " S=" << S << " Br=" << br << " Bc=" << bc << " causal=" << static_cast<int>(causal));
        const std::size_t B = 2, H = 3, D = 16, Dv = 8, eb = 2, heads = B * H;
        const auto in = test::random_float_qkv({B, H, L, D}, H, S, Dv, test::next_seed());
        FlashOptions o;
        o.block_q = br;
        o.block_k = bc;
        o.causal = causal;
        o.element_bytes = eb;
        const auto fa2 = flash_forward(in.q, in.k, in.v, o);
        o.loop_order = FlashLoopOrder::fa1_kv_outer;
        const auto fa1 = flash_forward(in.q, in.k, in.v, o);
        const BlockCensus c = census(L, S, br, bc, causal);

        const Traffic t2 = fa2_traffic(L, D, Dv, eb, c), t1 = fa1_traffic(L, D, Dv, eb, c);
        CHECK(fa2.stats.hbm_bytes_read == heads * t2.read);
        CHECK(fa2.stats.hbm_bytes_written == heads * t2.written);
        CHECK(fa1.stats.hbm_bytes_read == heads * t1.read);
        CHECK(fa1.stats.hbm_bytes_written == heads * t1.written);
        for (const auto* r : {&fa1, &fa2}) {
            CHECK(r->stats.tiles_computed == heads * c.computed);
            CHECK(r->stats.tiles_computed + r->stats.tiles_skipped == heads * test::ceil_div(L, br) * test::ceil_div(S, bc));
            CHECK(r->stats.flops == heads * 2 * c.computed_cells * (D + Dv));
        }
        CHECK(test::max_abs_diff(fa1.output.data, fa2.output.data) < kDoubleTol);
        // FA1's peak: K_j, V_j, Q_i, O_i in the input dtype; m, l, the score tile, P~V, m~, l~ in fp32.
        CHECK(fa1.stats.peak_sram_bytes <= bc * (D + Dv) * eb + br * (D + Dv) * eb + br * 2 * 4 + br * bc * 4 +
                                               br * (Dv + 2) * 4);
    }
}

TEST_CASE("the FA1 trace: O, l, m initialised in HBM, then each K/V block loaded once and every Q block revisited") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::size_t L = 10, S = 23, D = 4, Dv = 3, br = 4, bc = 8, eb = 2;
    const auto in = test::random_float_qkv({2, 2, L, D}, 1, S, Dv, seed);
    FlashOptions o;
    o.loop_order = FlashLoopOrder::fa1_kv_outer;
    o.block_q = br;
    o.block_k = bc;
    o.element_bytes = eb;
    o.causal = Causal::top_left;  // keys 10..22 are seen by no row: the third K/V block is never loaded
    o.trace = true;
    o.trace_batch = 1;
    o.trace_head = 1;
    const auto r = flash_forward(in.q, in.k, in.v, o);
    const std::size_t tr = test::ceil_div(L, br), tc = test::ceil_div(S, bc);

    REQUIRE(r.trace.size() == 1 + 2 + tc * tr);  // init, two K/V loads, one step per (Q, K/V) block
    test::TraceWalk walk(r.trace);
    const auto& init = walk.next(FlashStepKind::init_o);
    CHECK(init.row_end == L);
    CHECK(init.hbm_bytes_written == L * (Dv * eb + 8));
    for (std::size_t kb = 0; kb < tc; ++kb) {
        if (kb < 2) {
            const auto& load = walk.next(FlashStepKind::load_kv);
            CHECK(load.k_block == kb);
            REQUIRE(load.transfers.size() == 2);
            CHECK(load.transfers[0].matrix == HbmMatrix::k);
            CHECK(load.transfers[1].matrix == HbmMatrix::v);
        }
        for (std::size_t qb = 0; qb < tr; ++qb) {
            const auto& s = walk.next();
            CHECK(s.q_block == qb);
            CHECK(s.k_block == kb);
            if (s.kind == FlashStepKind::skip) {
                CHECK(s.transfers.empty());
                continue;
            }
            const std::size_t rows = s.row_end - s.row_begin;
            // Line 8 reads Q_i, O_i, l_i, m_i; lines 12-13 write O_i, l_i, m_i.
            REQUIRE(s.transfers.size() == 7);
            CHECK(s.transfers[0].matrix == HbmMatrix::q);
            CHECK(s.transfers[1].matrix == HbmMatrix::o);
            CHECK(s.transfers[1].direction == HbmDirection::read);
            CHECK(s.transfers[4].matrix == HbmMatrix::o);
            CHECK(s.transfers[4].direction == HbmDirection::write);
            CHECK(s.transfers[4].bytes == rows * Dv * eb);
            for (std::size_t i = 0; i < rows; ++i) {
                // The O_i written after the last K/V block this row needs is its final output.
                for (std::size_t c = 0; c < Dv; ++c) {
                    CHECK(s.output[i * Dv + c] == doctest::Approx(s.acc[i * Dv + c] / s.l[i]).epsilon(1e-12));
                }
            }
        }
    }
    CHECK(walk.done());
    // The trace follows one head of four: a quarter of the launch's traffic.
    CHECK(walk.read() * 4 == r.stats.hbm_bytes_read);
    CHECK(walk.written() * 4 == r.stats.hbm_bytes_written);
    // Each row's last tile step carries the returned output.
    for (std::size_t qb = 0; qb < tr; ++qb) {
        const FlashTraceStep<double>* last = nullptr;
        for (const auto& s : r.trace)
            if (s.kind == FlashStepKind::tile && s.q_block == qb) last = &s;
        REQUIRE(last != nullptr);
        for (std::size_t i = 0; i < last->row_end - last->row_begin; ++i)
            for (std::size_t c = 0; c < Dv; ++c)
                CHECK(last->output[i * Dv + c] == r.output.at(1, 1, last->row_begin + i, c));
    }
}

// FA1 paper, Theorem 2: standard attention makes Theta(N d + N^2) HBM accesses, FlashAttention
// Theta(N^2 d^2 / M), for d <= M <= N d. Measured here from the counters (element_bytes = 4, so
// bytes / 4 = elements, statistics included) over a grid with 4 d^2 <= M <= N d, where both
// algorithms use Br = d (from Br = min(ceil(M / 4d), d)).
//
// FA1 (closed form above, in elements): 3Nd + 2N + Tc N (3d + 4), Tc = ceil(N / Bc), Bc = ceil(M / 4d).
//   Tc <= 4Nd/M + 1 and M <= Nd give  traffic * M / (N^2 d^2) <= 5 (3 + 4/d) + 3 + 2/d = 18 + 22/d;
//   Tc >= 4Nd / (M + 4d) and M >= 4d^2 give  traffic * M / (N^2 d^2) >= 12 d / (d + 1).
// Standard (standard_attention.hpp): Nd (Q) + 2 Tr N d (K, V) + 4 N^2 (S, P written and read) + N d (O),
//   Tr = ceil(N / d), so N <= Tr d < N + d and  2 <= traffic / (N d + N^2) <= 6.
TEST_CASE("IO complexity: FA1 traffic is Theta(N^2 d^2 / M), standard attention's Theta(N d + N^2)") {
    double fa1_lo = INFINITY, fa1_hi = 0, std_lo = INFINITY, std_hi = 0;
    for (std::size_t N : {128u, 256u, 512u}) {
        for (std::size_t d : {8u, 16u, 32u}) {
            const auto in = test::random_float_qkv({1, 1, N, d}, 1, N, d, test::next_seed());
            for (std::size_t M = 4 * d * d; M <= N * d; M *= 2) {
                INFO("N=" << N << " d=" << d << " M=" << M);
                FlashOptions fo;
                fo.loop_order = FlashLoopOrder::fa1_kv_outer;
                fo.sram_elements = M;
                const auto fa1 = flash_forward(in.q, in.k, in.v, fo);
                StandardAttentionOptions so;
                so.sram_elements = M;
                const auto st = standard_attention(in.q, in.k, in.v, so);
                REQUIRE(st.block_q == d);

                const double n = static_cast<double>(N), dd = static_cast<double>(d), m = static_cast<double>(M);
                const double fa1_elements = static_cast<double>(fa1.stats.hbm_bytes_read + fa1.stats.hbm_bytes_written) / 4;
                const double std_elements = static_cast<double>(st.stats.hbm_bytes_read + st.stats.hbm_bytes_written) / 4;
                const double fa1_ratio = fa1_elements * m / (n * n * dd * dd);
                const double std_ratio = std_elements / (n * dd + n * n);
                CHECK(fa1_ratio >= 12 * dd / (dd + 1));
                CHECK(fa1_ratio <= 18 + 22 / dd);
                CHECK(std_ratio >= 2);
                CHECK(std_ratio <= 6);
                // In this range of M FlashAttention always moves fewer bytes (see the crossover case).
                CHECK(fa1_elements < std_elements);
                fa1_lo = std::min(fa1_lo, fa1_ratio);
                fa1_hi = std::max(fa1_hi, fa1_ratio);
                std_lo = std::min(std_lo, std_ratio);
                std_hi = std::max(std_hi, std_ratio);
            }
        }
    }
    INFO("FA1 ratio in [" << fa1_lo << ", " << fa1_hi << "], standard in [" << std_lo << ", " << std_hi << "]");
    // Over a 64x range of N d and 8x range of M the normalised traffic stays within a factor of 2.
    CHECK(fa1_hi / fa1_lo < 2);
    CHECK(std_hi / std_lo < 2);
}

// Where FA1's loop order starts to beat standard attention. Below M = 4d^2 both use
// Br = Bc = c = ceil(M / 4d) < d, so Tr = Tc = T = ceil(N / c) and, in elements (closed forms above):
//   standard = 2Nd + 2 T N d + 4 N^2,   FA1 = 3Nd + 2N + T N (3d + 4),
// FA1 < standard  <=>  T (d + 4) + d + 2 < 4N  <=>  roughly c > (d + 4) / 4, i.e. M > d (d + 4)
// elements. For d = 64, N = 1024 that is c = 18, M = 4608 elements (9 KB in fp16), far below the
// 164 KB (A100) to 228 KB (H100) of shared memory per SM (gpu_presets.hpp): FlashAttention wins
// there even though its loop order re-reads Q and O once per K/V block.
TEST_CASE("the crossover: FA1 moves fewer bytes than standard attention once M exceeds about d(d + 4)") {
    for (std::size_t N : {128u, 256u}) {
        for (std::size_t d : {16u, 32u, 64u}) {
            const auto in = test::random_float_qkv({1, 1, N, d}, 1, N, d, test::next_seed());
            std::size_t first_win = 0;  // smallest Bc = c at which FA1 moves fewer bytes
            for (std::size_t c = 1; c <= d && first_win == 0; ++c) {
                FlashOptions fo;
                fo.loop_order = FlashLoopOrder::fa1_kv_outer;
                fo.sram_elements = 4 * d * c;
                StandardAttentionOptions so;
                so.sram_elements = 4 * d * c;
                const auto fa1 = flash_forward(in.q, in.k, in.v, fo).stats;
                const auto st = standard_attention(in.q, in.k, in.v, so).stats;
                if (fa1.hbm_bytes_read + fa1.hbm_bytes_written < st.hbm_bytes_read + st.hbm_bytes_written) first_win = c;
            }
            std::size_t predicted = 0;
            for (std::size_t c = 1; c <= d && predicted == 0; ++c) {
                if (test::ceil_div(N, c) * (d + 4) + d + 2 < 4 * N) predicted = c;
            }
            INFO("N=" << N << " d=" << d << " crossover Bc=" << first_win << " (M=" << 4 * d * first_win << ")");
            CHECK(first_win == predicted);
            CHECK(first_win > 0);
            // Below the crossover FA1 moves more bytes; at twice d (d + 4) it is clearly ahead.
            CHECK(4 * d * first_win > d * (d + 4) / 2);
            CHECK(4 * d * first_win <= 2 * d * (d + 4));
        }
    }
}

TEST_CASE("flash options: loop order and SRAM budget are validated") {
    const Tensor4<double> q(Shape4{1, 1, 4, 8}, 0.1), k(Shape4{1, 1, 4, 8}, 0.2), v(Shape4{1, 1, 4, 8}, 0.3);
    using test::check_error;
    FlashOptions o;
    o.sram_elements = 0;
    check_error([&] { flash_forward(q, k, v, o); }, "sram_elements: must be in [1, 131072] for head_dim 8");
    o.sram_elements = 4 * 8 * 4096 + 1;
    check_error([&] { flash_forward(q, k, v, o); }, "sram_elements");
    o.sram_elements.reset();
    o.loop_order = static_cast<FlashLoopOrder>(7);
    check_error([&] { flash_forward(q, k, v, o); }, "loop_order: must be fa2_q_outer or fa1_kv_outer");
    check_error([] { blocks_from_sram(16, 0); }, "head_dim: must be >= 1");
}
