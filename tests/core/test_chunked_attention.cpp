// chunked_attention (Rabe & Staats 2021): exact against the dense reference, and its peak
// intermediate memory, exactly and as O(sqrt(N)) across N.
#include <cmath>
#include <tuple>

#include "attn/attention/chunked_attention.hpp"
#include "reference.hpp"

using namespace attn;

namespace {

// float inputs and accumulation, merges of up to 129 chunks: observed <= 6e-7; 2e-5 catches a
// wrong merge (errors of order 1e-1).
constexpr double kFloatTol = 2e-5;
constexpr double kDoubleTol = 1e-12;

void check_against_reference(const test::Qkv& in, const ChunkedAttentionOptions& o) {
    test::check_against_sdpa([](const auto&... a) { return chunked_attention(a...); }, in, o, kFloatTol, kDoubleTol);
}

// The largest live intermediate storage of one query chunk of `rows` rows: while key chunk t is
// summarised, t + 1 summaries of rows x (Dv + 2) and one rows x cols_t chunk of scores are alive.
std::uint64_t expected_peak(std::size_t rows, std::size_t S, std::size_t ck, std::size_t Dv) {
    std::uint64_t peak = 0;
    for (std::size_t t = 0; t < test::ceil_div(S, ck); ++t) {
        const std::size_t cols = std::min(ck, S - t * ck);
        peak = std::max<std::uint64_t>(peak, (t + 1) * rows * (Dv + 2) + rows * cols);
    }
    return peak;
}

}  // namespace

TEST_CASE("chunked attention equals sdpa for odd sizes, L != S, both causal alignments and chunk sizes") {
    const std::pair<std::size_t, std::size_t> chunks[] = {{0, 0}, {7, 5}, {1, 128}, {64, 1}};  // 0: default
    test::for_each_odd_shape([&](std::size_t L, std::size_t S, Causal causal, std::uint64_t seed) {
        const auto [cq, ck] = chunks[(L + S + static_cast<std::size_t>(causal)) % 4];
        INFO("cq=" << cq << " ck=" << ck);
        ChunkedAttentionOptions o;
        if (cq) o.query_chunk = cq;
        if (ck) o.key_chunk = ck;
        o.causal = causal;
        check_against_reference(test::random_float_qkv({1, 4, L, 16}, 2, S, 11, seed), o);
    });
}

TEST_CASE("chunked attention with masks, fully masked rows are zeros with lse = -inf") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const auto in = test::random_float_qkv({2, 6, 37, 24}, 2, 53, 9, seed);
    ChunkedAttentionOptions o;
    o.query_chunk = 5;
    o.mask = test::sparse_mask(37, 53, 5);  // row 5 sees nothing
    check_against_reference(in, o);
    test::check_blank_row(chunked_attention(in.q, in.k, in.v, o), 5);
    o.mask = test::smooth_bias({1, 6, 1, 53});
    check_against_reference(in, o);
}

TEST_CASE("default chunks: queries in chunks of 1024 (the paper's code), keys in chunks of ceil(sqrt(S))") {
    const auto in = test::random_float_qkv({1, 1, 30, 4}, 1, 50, 3, test::next_seed());
    const auto r = chunked_attention(in.q, in.k, in.v);
    CHECK(r.query_chunk == 30);  // min(1024, L)
    CHECK(r.key_chunk == 8);     // ceil(sqrt(50)) = 8 (7^2 = 49 < 50)
    CHECK(r.num_k_chunks == 7);
    ChunkedAttentionOptions o;
    o.key_chunk = 1000;  // clamped to S
    CHECK(chunked_attention(in.q, in.k, in.v, o).key_chunk == 50);
    // chunk_sizes answers without running: the bindings size their trace caps with it.
    CHECK(chunk_sizes(30, 50, {}).key_chunk == 8);
    CHECK(chunk_sizes(2000, 49, {}).key_chunk == 7);     // 7^2 = 49 exactly
    CHECK(chunk_sizes(2000, 49, {}).query_chunk == 1024);
    CHECK(chunk_sizes(1, 1, {}).key_chunk == 1);
}

TEST_CASE("peak intermediate memory equals its closed form and grows as sqrt(N) with a constant query chunk") {
    for (auto [L, S, cq, ck] : {std::tuple{37u, 53u, 5u, 7u}, std::tuple{10u, 129u, 16u, 12u}, std::tuple{3u, 1u, 1u, 1u}}) {
        INFO("L=" << L << " S=" << S << " cq=" << cq << " ck=" << ck);
        const std::size_t Dv = 9;
        const auto in = test::random_float_qkv({2, 3, L, 4}, 3, S, Dv, test::next_seed());
        ChunkedAttentionOptions o;
        o.query_chunk = cq;
        o.key_chunk = ck;
        o.element_bytes = 2;
        const auto r = chunked_attention(in.q, in.k, in.v, o);
        const std::size_t rows = std::min<std::size_t>(cq, L), cols = std::min<std::size_t>(ck, S);
        CHECK(r.stats.peak_intermediate_elements == expected_peak(rows, S, cols, Dv));
        CHECK(r.stats.peak_intermediate_bytes == 2 * r.stats.peak_intermediate_elements);
        CHECK(r.stats.dense_score_elements == L * S);
        CHECK(r.stats.flops == 2 * 2 * 3 * L * S * (4 + Dv));
    }

    // N a perfect square: c_k = sqrt(N) chunks of sqrt(N) keys, so the peak is exactly
    // c_q (sqrt(N) (Dv + 2) + sqrt(N)) = c_q (Dv + 3) sqrt(N), while dense scores are N^2.
    const std::size_t cq = 16, Dv = 4;
    double previous_saving = 0;
    for (std::size_t root : {8u, 16u, 24u, 32u}) {
        const std::size_t N = root * root;
        INFO("N=" << N);
        const auto in = test::random_float_qkv({1, 1, N, 4}, 1, N, Dv, test::next_seed());
        ChunkedAttentionOptions o;
        o.query_chunk = cq;
        const auto r = chunked_attention(in.q, in.k, in.v, o);
        CHECK(r.key_chunk == root);
        CHECK(r.stats.peak_intermediate_elements == cq * (Dv + 3) * root);
        const double saving = static_cast<double>(r.stats.dense_score_elements) / r.stats.peak_intermediate_elements;
        CHECK(saving > 2 * previous_saving);  // N^2 / sqrt(N) = root^3: x2.4 or more per step here
        previous_saving = saving;

        // Query chunks of sqrt(N) instead: the score chunk alone is N elements, the peak linear in N.
        o.query_chunk = root;
        CHECK(chunked_attention(in.q, in.k, in.v, o).stats.peak_intermediate_elements == (Dv + 3) * N);
    }
}

TEST_CASE("the chunked trace: one summary per (query chunk, key chunk), then the merge") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::size_t L = 10, S = 23, Dv = 3;
    const auto in = test::random_float_qkv({1, 2, L, 4}, 1, S, Dv, seed);
    ChunkedAttentionOptions o;
    o.query_chunk = 4;
    o.key_chunk = 6;
    o.causal = Causal::bottom_right;
    o.trace = true;
    o.trace_head = 1;
    const auto r = chunked_attention(in.q, in.k, in.v, o);
    const std::size_t nq = test::ceil_div(L, 4), nk = test::ceil_div(S, 6);
    REQUIRE(r.trace.size() == nq * (nk + 1));
    std::uint64_t max_live = 0;
    for (std::size_t qc = 0; qc < nq; ++qc) {
        for (std::size_t kc = 0; kc < nk; ++kc) {
            const auto& s = r.trace[qc * (nk + 1) + kc];
            CHECK(s.kind == ChunkedStepKind::summarize);
            CHECK(s.k_chunk == kc);
            CHECK(s.col_begin == kc * 6);
            max_live = std::max(max_live, s.live_elements);
        }
        const auto& c = r.trace[qc * (nk + 1) + nk];
        CHECK(c.kind == ChunkedStepKind::combine);
        for (std::size_t i = 0; i < c.row_end - c.row_begin; ++i) {
            CHECK(c.m[i] + std::log(c.l[i]) == doctest::Approx(r.lse[L + c.row_begin + i]).epsilon(1e-12));
            for (std::size_t d = 0; d < Dv; ++d) CHECK(c.output[i * Dv + d] == r.output.at(0, 1, c.row_begin + i, d));
        }
    }
    CHECK(max_live == r.stats.peak_intermediate_elements);
}

TEST_CASE("chunked attention validates its options") {
    const Tensor4<double> q(Shape4{1, 2, 5, 8}, 0.1), k(Shape4{1, 1, 7, 8}, 0.2), v(Shape4{1, 1, 7, 3}, 0.3);
    ChunkedAttentionOptions o;
    o.query_chunk = 0;
    test::check_error([&] { chunked_attention(q, k, v, o); }, "query_chunk: must be >= 1, got 0");
    o.query_chunk = 2;
    o.key_chunk = 0;
    test::check_error([&] { chunked_attention(q, k, v, o); }, "key_chunk: must be >= 1, got 0");
    o.key_chunk = 2;
    o.element_bytes = 0;
    test::check_error([&] { chunked_attention(q, k, v, o); }, "element_bytes: must be 1, 2, 4 or 8, got 0");
    o.element_bytes = 4;
    o.trace = true;
    o.trace_head = 5;
    test::check_error([&] { chunked_attention(q, k, v, o); }, "trace_batch/trace_head: must be < (1, 2)");
}
