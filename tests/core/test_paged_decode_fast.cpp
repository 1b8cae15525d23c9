// The optimised CPU paged decode (GQA-packed, split-KV, threaded, vectorised): equal to dense
// attention in double over each sequence gathered through its block table -- odd context lengths,
// partial last blocks, block sizes 1/3/16/32 and one block holding the whole context, MHA/GQA/MQA
// with odd group sizes, head sizes that exercise the vector paths' remainders, contexts long enough
// to be split across partitions -- with masked prefixes and windows (partitions that see no key),
// poisoned unused slots that never leak, the same bits on every thread count, and its error paths.
#include <cmath>
#include <random>

#include "attn/attention/paged_decode_fast.hpp"
#include "paged_tables.hpp"
#include "support.hpp"

using namespace attn;

namespace {

// FP32 dot products over <= 128 dims, fast_exp2 (about 2 ulp) and FP32 accumulation over <= 5,003
// keys of N(0,1) data against double: observed errors are ~1e-6; a wrong rescale, head mapping,
// block walk, lane sum or partition merge gives > 1e-2.
constexpr double kTol = 5e-5;

struct Case {
    std::size_t q_heads, kv_heads, d, dv, block_size;
};

// `window` > 0 masks all but the last `window` keys of every sequence (a sliding window).
void check_against_dense(const Case& c, const std::vector<std::size_t>& lens, std::size_t threads,
                         std::size_t window = 0) {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed << " Hq=" << c.q_heads << " Hkv=" << c.kv_heads << " d=" << c.d << " dv=" << c.dv
                 << " block_size=" << c.block_size << " threads=" << threads << " window=" << window);
    std::mt19937_64 rng(seed);
    std::size_t blocks = 3;  // unused blocks in the pool
    for (auto l : lens) blocks += test::ceil_div(l, c.block_size);
    const auto kp = test::float_rounded(test::randn({blocks, c.kv_heads, c.block_size, c.d}, seed + 1));
    const auto vp = test::float_rounded(test::randn({blocks, c.kv_heads, c.block_size, c.dv}, seed + 2));
    const auto q = test::float_rounded(test::randn({lens.size(), c.q_heads, 1, c.d}, seed + 3));
    auto seqs = test::random_tables(lens, c.block_size, blocks, rng);
    for (PagedSequence& seq : seqs) {
        if (window == 0) continue;
        seq.key_allowed.assign(seq.context_len, 1);
        std::fill_n(seq.key_allowed.begin(), seq.context_len - std::min(window, seq.context_len), 0);
    }
    FastPagedDecodeOptions o;
    o.scale = 0.7 / std::sqrt(static_cast<double>(c.d));
    o.num_threads = threads;
    const auto r = paged_decode_fast(tensor_cast<float>(q), tensor_cast<float>(kp), tensor_cast<float>(vp), seqs, o);
    for (std::size_t s = 0; s < lens.size(); ++s) {
        const auto ref = test::dense_paged_reference(q, s, kp, vp, seqs[s], *o.scale);
        const std::vector<double> out(r.output.row(s, 0, 0), r.output.row(s, 0, 0) + c.q_heads * c.dv);
        const std::vector<double> lse(&r.lse[s * c.q_heads], &r.lse[s * c.q_heads] + c.q_heads);
        INFO("sequence " << s << " of length " << lens[s]);
        CHECK(test::max_abs_diff(out, ref.output.data) < kTol);
        CHECK(test::max_abs_diff(lse, ref.lse) < kTol);
    }
}

}  // namespace

TEST_CASE("paged decode fast: equals dense attention in double, odd lengths, block sizes, MHA/GQA/MQA") {
    const std::vector<std::size_t> lens{1, 3, 15, 16, 17, 113, 129, 1037};
    for (const Case& c : {Case{6, 2, 16, 7, 1}, Case{6, 2, 16, 7, 3}, Case{4, 4, 33, 17, 16}, Case{8, 1, 64, 64, 16},
                          Case{8, 2, 128, 128, 32}, Case{5, 5, 127, 129, 16}}) {
        check_against_dense(c, lens, 0);
    }
}

TEST_CASE("paged decode fast: Llama-like GQA groups and odd ones at long contexts split across partitions") {
    // 5,003 tokens of one KV head: the context is cut into partitions of >= 4,096 (token, KV head)
    // steps whose states are merged (a contiguous cache's heads are walked one per task, a paged one's together). Group sizes 4 (Llama 3 8B) and 8 (70B) at head_dim 128, and odd ones.
    const std::vector<std::size_t> lens{1, 16, 1000, 5003};
    for (const Case& c : {Case{4, 1, 128, 128, 16}, Case{8, 1, 128, 128, 16}, Case{8, 1, 128, 128, 5003},
                          Case{7, 1, 64, 64, 16}, Case{5, 1, 96, 80, 32}, Case{3, 1, 128, 128, 1}}) {
        check_against_dense(c, lens, 0);
    }
    // A contiguous cache (one block per sequence, the last token of the longest in its last slot).
    check_against_dense(Case{6, 2, 128, 128, 1037}, {15, 17, 1037}, 2);
}

TEST_CASE("paged decode fast: sliding windows leave whole partitions without a visible key") {
    // 4,099 tokens of two KV heads in partitions of 2,048 with only the last 700 visible: the first
    // partition's state stays empty and merges as the identity; a window of 1 sees one key.
    for (std::size_t window : {std::size_t{700}, std::size_t{1}}) {
        check_against_dense(Case{8, 2, 128, 128, 16}, {4099, 17}, 0, window);
        check_against_dense(Case{5, 1, 33, 17, 3}, {4099, 1}, 3, window);
    }
}

TEST_CASE("paged decode fast: the same result on 1, 2, 3 and 8 threads, bit for bit") {
    // The partitions depend on the problem only, so the merge order is the same on every thread count.
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    const std::vector<std::size_t> lens{17, 3000, 1, 64};
    const std::size_t blocks = 3 + 2 + 188 + 1 + 4;
    const auto kp = tensor_cast<float>(test::randn({blocks, 2, 16, 64}, seed + 1));
    const auto vp = tensor_cast<float>(test::randn({blocks, 2, 16, 48}, seed + 2));
    const auto q = tensor_cast<float>(test::randn({4, 8, 1, 64}, seed + 3));
    const auto seqs = test::random_tables(lens, 16, blocks, rng);
    FastPagedDecodeOptions one;
    one.num_threads = 1;
    const auto a = paged_decode_fast(q, kp, vp, seqs, one);
    for (std::size_t threads : {2, 3, 8}) {
        INFO("threads=" << threads);
        FastPagedDecodeOptions o;
        o.num_threads = threads;
        const auto b = paged_decode_fast(q, kp, vp, seqs, o);
        CHECK(a.output.data == b.output.data);
        CHECK(a.lse == b.lse);
    }
}

TEST_CASE("paged decode fast: masked prefixes stay empty, poisoned unused slots never leak, all-masked gives zeros") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    const std::size_t bs = 16, ctx = 35;  // 3 blocks, the last holding 3 tokens
    auto kp = test::float_rounded(test::randn({6, 1, bs, 40}, seed + 1));
    auto vp = test::float_rounded(test::randn({6, 1, bs, 36}, seed + 2));
    const auto q = test::float_rounded(test::randn({1, 4, 1, 40}, seed + 3));
    auto seqs = test::random_tables({ctx}, bs, 6, rng);
    seqs[0].key_allowed.assign(ctx, 1);
    std::fill_n(seqs[0].key_allowed.begin(), 20, 0);  // a window: the first block and a part of the second masked
    const std::size_t last = seqs[0].block_table[2];
    for (std::size_t slot = 3; slot < bs; ++slot) {
        for (std::size_t c = 0; c < 40; ++c) kp.at(last, 0, slot, c) = NAN;
        for (std::size_t c = 0; c < 36; ++c) vp.at(last, 0, slot, c) = NAN;
    }
    // Masked keys are not read either: poison one.
    const std::size_t first = seqs[0].block_table[0];
    kp.at(first, 0, 5, 0) = NAN;
    const auto qf = tensor_cast<float>(q), kf = tensor_cast<float>(kp), vf = tensor_cast<float>(vp);
    const auto r = paged_decode_fast(qf, kf, vf, seqs);
    auto unpoisoned = kp;
    unpoisoned.at(first, 0, 5, 0) = 0;
    const auto ref = test::dense_paged_reference(q, 0, unpoisoned, vp, seqs[0], 1.0 / std::sqrt(40.0));
    CHECK(test::max_abs_diff(r.output.data, ref.output.data) < kTol);
    CHECK(test::max_abs_diff(r.lse, ref.lse) < kTol);
    seqs[0].key_allowed.assign(ctx, 0);
    const auto none = paged_decode_fast(qf, kf, vf, seqs);
    for (float x : none.output.data) CHECK(x == 0.0f);
    for (float x : none.lse) CHECK(x == -INFINITY);
}

TEST_CASE("paged decode fast: argument errors name the argument, and a non-finite row read is reported") {
    const auto kp = tensor_cast<float>(test::randn({4, 2, 4, 8}, test::next_seed()));
    const auto vp = tensor_cast<float>(test::randn({4, 2, 4, 3}, test::next_seed()));
    const auto q = tensor_cast<float>(test::randn({2, 4, 1, 8}, test::next_seed()));
    const PagedSequence ok{{2, 0}, 7, {}}, other{{1}, 3, {}};
    CHECK_NOTHROW(paged_decode_fast(q, kp, vp, {ok, other}));
    test::check_error([&] { paged_decode_fast(q, kp, vp, {ok}); }, "sequences");
    test::check_error([&] { paged_decode_fast(q, kp, vp, {ok, PagedSequence{{2, 4}, 7, {}}}); }, "num_blocks");
    FastPagedDecodeOptions o;
    o.num_threads = 1025;
    test::check_error([&] { paged_decode_fast(q, kp, vp, {ok, other}, o); }, "num_threads");
    auto bad_k = kp;
    bad_k.at(1, 0, 2, 3) = INFINITY;  // block 1 slot 2 = token 2 of sequence 1
    test::check_error([&] { paged_decode_fast(q, bad_k, vp, {ok, other}); }, "sequences[1]");
    auto bad_v = vp;
    bad_v.at(0, 1, 2, 0) = NAN;  // block 0 slot 2 = token 6 of sequence 0, read by KV head 1
    test::check_error([&] { paged_decode_fast(q, kp, bad_v, {ok, other}); }, "sequences[0]");
    // The same in a split context: a NaN key row in the middle of three partitions of 10,000 tokens
    // ([0, 3392), [3392, 6784), [6784, 10000)), and an infinite value row in the last (the merge
    // must not hide either).
    const auto long_k = tensor_cast<float>(test::randn({630, 1, 16, 8}, test::next_seed()));
    const auto long_v = tensor_cast<float>(test::randn({630, 1, 16, 8}, test::next_seed()));
    const auto long_q = tensor_cast<float>(test::randn({1, 2, 1, 8}, test::next_seed()));
    PagedSequence long_seq{{}, 10000, {}};
    for (std::size_t b = 0; b < 625; ++b) long_seq.block_table.push_back(b);
    CHECK_NOTHROW(paged_decode_fast(long_q, long_k, long_v, {long_seq}));
    auto bad_long_k = long_k;
    bad_long_k.at(312, 0, 8, 5) = NAN;  // token 5000
    test::check_error([&] { paged_decode_fast(long_q, bad_long_k, long_v, {long_seq}); }, "sequences[0]");
    auto bad_long_v = long_v;
    bad_long_v.at(562, 0, 8, 1) = -INFINITY;  // token 9000
    test::check_error([&] { paged_decode_fast(long_q, long_k, bad_long_v, {long_seq}); }, "sequences[0]");
}
