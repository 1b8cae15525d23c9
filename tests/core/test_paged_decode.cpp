// Paged-attention decode (vLLM paged_attention_v1 semantics): equal to dense attention over the
// sequence gathered through the block table, with partial last blocks, masked leading blocks
// (m = -inf), GQA, several sequences sharing one pool.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "attn/attention/paged_decode.hpp"
#include "attn/attention/sdpa.hpp"
#include "paged_tables.hpp"
#include "support.hpp"

using namespace attn;

namespace {

// Double: one online-softmax pass over <= 129 keys; rounding of order 1e-15.
constexpr double kDoubleTol = 1e-12;
constexpr double kFloatTol = 2e-5;  // float accumulation over <= 129 keys

}  // namespace

TEST_CASE("paged decode: equals dense attention over the gathered sequence, odd lengths and block sizes, GQA") {
    for (std::size_t block_size : {1u, 3u, 16u}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " block_size=" << block_size);
        std::mt19937_64 rng(seed);
        const std::vector<std::size_t> lens{1, 3, 17, 113, 127, 129};  // partial last blocks included
        std::size_t blocks = 0;
        for (auto l : lens) blocks += (l + block_size - 1) / block_size;
        blocks += 5;  // unused blocks in the pool
        const std::size_t Hq = 6, Hkv = 2, D = 16, Dv = 7;
        const auto kp = test::randn({blocks, Hkv, block_size, D}, seed + 1);
        const auto vp = test::randn({blocks, Hkv, block_size, Dv}, seed + 2);
        const auto q = test::randn({lens.size(), Hq, 1, D}, seed + 3);
        const auto seqs = test::random_tables(lens, block_size, blocks, rng);
        const double scale = 0.3;
        PagedDecodeOptions o;
        o.scale = scale;
        const auto r = paged_decode(q, kp, vp, seqs, o);
        for (std::size_t s = 0; s < lens.size(); ++s) {
            const auto ref = test::dense_paged_reference(q, s, kp, vp, seqs[s], scale);
            const std::vector<double> out(r.output.row(s, 0, 0), r.output.row(s, 0, 0) + Hq * Dv);
            const std::vector<double> lse(&r.lse[s * Hq], &r.lse[s * Hq] + Hq);
            CHECK(test::max_abs_diff(out, ref.output.data) < kDoubleTol);
            CHECK(test::max_abs_diff(lse, ref.lse) < kDoubleTol);
        }
        const auto rf = paged_decode(tensor_cast<float>(test::float_rounded(q)), tensor_cast<float>(test::float_rounded(kp)),
                                     tensor_cast<float>(test::float_rounded(vp)), seqs, o);
        const auto r64 = paged_decode(test::float_rounded(q), test::float_rounded(kp), test::float_rounded(vp), seqs, o);
        CHECK(test::max_abs_diff(rf.output.data, r64.output.data) < kFloatTol);
    }
}

TEST_CASE("paged decode: masked leading blocks keep m = -inf without NaN, slots past context_len are never read") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    const std::size_t bs = 4, ctx = 17;  // 5 blocks, the last holding 1 token
    auto kp = test::randn({8, 1, bs, 8}, seed + 1);
    auto vp = test::randn({8, 1, bs, 5}, seed + 2);
    const auto q = test::randn({1, 2, 1, 8}, seed + 3);
    auto seqs = test::random_tables({ctx}, bs, 8, rng);
    // A sliding window of 6: the first 11 tokens (two whole blocks and part of the third) masked.
    seqs[0].key_allowed.assign(ctx, 1);
    std::fill_n(seqs[0].key_allowed.begin(), 11, 0);
    // Poison the unused slots of the last block: a read past context_len would turn into NaN.
    const std::size_t last = seqs[0].block_table[4];
    for (std::size_t slot = 1; slot < bs; ++slot) {
        for (std::size_t c = 0; c < 8; ++c) kp.at(last, 0, slot, c) = NAN;
        for (std::size_t c = 0; c < 5; ++c) vp.at(last, 0, slot, c) = NAN;
    }
    PagedDecodeOptions o;
    o.trace = true;
    o.trace_head = 1;
    const auto r = paged_decode(q, kp, vp, seqs, o);
    const auto ref = test::dense_paged_reference(q, 0, kp, vp, seqs[0], 1.0 / std::sqrt(8.0));
    CHECK(test::max_abs_diff(r.output.data, ref.output.data) < kDoubleTol);
    CHECK(test::max_abs_diff(r.lse, ref.lse) < kDoubleTol);
    REQUIRE(r.trace.size() == 5);
    CHECK(r.trace[0].m == -INFINITY);  // first blocks: every key masked, state stays empty
    CHECK(r.trace[1].m == -INFINITY);
    CHECK(r.trace[1].l == 0.0);
    CHECK(std::isfinite(r.trace[2].m));
    CHECK(r.trace[2].rescale == 0.0);  // nothing accumulated before: the factor is 0, not NaN
    CHECK(r.trace[4].token_begin == 16);
    CHECK(r.trace[4].token_end == 17);  // the partial last block
    CHECK(r.trace[4].physical_block == last);
    for (const auto& step : r.trace) {
        for (double a : step.acc) CHECK(std::isfinite(a));
    }
    // Every key masked: zeros and lse = -inf, as sdpa.
    seqs[0].key_allowed.assign(ctx, 0);
    const auto none = paged_decode(q, kp, vp, seqs);
    for (double x : none.output.data) CHECK(x == 0.0);
    for (double x : none.lse) CHECK(x == -INFINITY);
}

TEST_CASE("paged decode: argument errors name the argument") {
    const auto kp = test::randn({4, 2, 4, 8}, test::next_seed());
    const auto vp = test::randn({4, 2, 4, 3}, test::next_seed());
    const auto q = test::randn({1, 4, 1, 8}, test::next_seed());
    PagedSequence s{{2, 0}, 7, {}};
    CHECK_NOTHROW(paged_decode(q, kp, vp, {s}));
    test::check_error([&] { paged_decode(test::randn({1, 4, 2, 8}, 1), kp, vp, {s}); }, "query");
    test::check_error([&] { paged_decode(test::randn({1, 4, 1, 6}, 1), kp, vp, {s}); }, "head_dim");
    test::check_error([&] { paged_decode(test::randn({1, 3, 1, 8}, 1), kp, vp, {s}); }, "kv_heads");
    test::check_error([&] { paged_decode(q, kp, test::randn({4, 2, 5, 3}, 1), {s}); }, "value_pool");
    test::check_error([&] { paged_decode(q, kp, vp, {s, s}); }, "sequences");
    test::check_error([&] { paged_decode(q, kp, vp, {PagedSequence{{2, 0}, 0, {}}}); }, "context_len");
    test::check_error([&] { paged_decode(q, kp, vp, {PagedSequence{{2}, 7, {}}}); }, "block_table");
    test::check_error([&] { paged_decode(q, kp, vp, {PagedSequence{{2, 4}, 7, {}}}); }, "num_blocks");
    test::check_error([&] { paged_decode(q, kp, vp, {PagedSequence{{2, 0}, 7, {1, 1}}}); }, "key_allowed");
    PagedDecodeOptions o;
    o.scale = INFINITY;
    test::check_error([&] { paged_decode(q, kp, vp, {s}, o); }, "scale");
    o = {};
    o.trace = true;
    o.trace_head = 4;
    test::check_error([&] { paged_decode(q, kp, vp, {s}, o); }, "trace_seq/trace_head");
    auto bad = kp;
    bad.at(0, 1, 2, 0) = NAN;  // block 0 slot 2 = token 6 of the sequence
    test::check_error([&] { paged_decode(q, bad, vp, {s}); }, "key_pool");
    test::check_error([&] { gather_paged_kv(bad, vp, s); }, "key_pool");
}
