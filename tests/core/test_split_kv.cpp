// Split-KV / Flash-Decoding: partitions computed independently and merged exactly, in any order
// and tree shape, equal to the dense reference; empty partitions are the merge identity.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "attn/attention/sdpa.hpp"
#include "attn/attention/split_kv.hpp"
#include "support.hpp"

using namespace attn;

namespace {

// Double inputs, merges of up to 129 partitions: rounding of order 1e-15 per merge; 1e-12 is the
// brief's bound and far below a wrong merge (errors of order 1e-1).
constexpr double kDoubleTol = 1e-12;
// float accumulation over <= 129 keys: observed <= 1e-6.
constexpr double kFloatTol = 2e-5;

SdpaResult<double> reference(const test::Qkv& in, const AttentionOptions& o) {
    SdpaOptions so;
    static_cast<AttentionOptions&>(so) = o;
    return sdpa(in.q, in.k, in.v, so);
}

// Merges `parts` along a random binary tree: repeatedly merge two random neighbours... or any two.
template <class Merge, class Part>
Part random_tree_merge(std::vector<Part> parts, std::mt19937_64& rng, Merge merge) {
    while (parts.size() > 1) {
        std::uniform_int_distribution<std::size_t> pick(0, parts.size() - 1);
        std::size_t a = pick(rng), b = pick(rng);
        while (b == a) b = pick(rng);
        parts[a] = merge(parts[a], parts[b]);
        parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(b));
    }
    return parts.front();
}

}  // namespace

TEST_CASE("split-KV: partitions of every count equal sdpa in double, odd sizes, both causal alignments, GQA") {
    for (std::size_t L : {1u, 3u, 17u}) {
        for (std::size_t S : {1u, 17u, 113u, 129u}) {
            for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right}) {
                for (std::size_t P : {1u, 3u, 7u, 130u}) {  // 130 > S: trailing partitions are empty
                    const std::uint64_t seed = test::next_seed();
                    INFO("seed=" << seed << " L=" << L << " S=" << S << " P=" << P << " causal=" << int(causal));
                    const auto in = test::random_qkv({2, 6, L, 16}, 3, S, 11, seed);
                    SplitKvOptions o;
                    o.causal = causal;
                    o.num_partitions = P;
                    const auto ref = reference(in, o);
                    const auto r = split_kv_attention(in.q, in.k, in.v, o);
                    CHECK(r.partitions.size() == P);
                    CHECK(test::max_abs_diff(r.output.data, ref.output.data) < kDoubleTol);
                    CHECK(test::max_abs_diff(r.lse, ref.lse) < kDoubleTol);
                    for (double x : r.output.data) REQUIRE(std::isfinite(x));
                }
            }
        }
    }
}

TEST_CASE("split-KV: float run agrees with the double reference") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    auto in = test::random_qkv({1, 4, 5, 32}, 4, 127, 32, seed);
    in = {test::float_rounded(in.q), test::float_rounded(in.k), test::float_rounded(in.v)};
    SplitKvOptions o;
    o.num_partitions = 9;
    const auto ref = reference(in, o);
    const auto r = split_kv_attention(tensor_cast<float>(in.q), tensor_cast<float>(in.k), tensor_cast<float>(in.v), o);
    CHECK(test::max_abs_diff(r.output.data, ref.output.data) < kFloatTol);
    CHECK(test::max_abs_diff(r.lse, ref.lse) < kFloatTol);
}

TEST_CASE("split-KV: any merge order and any tree shape, in (m, l, acc) and in (out, lse) form") {
    for (int trial = 0; trial < 12; ++trial) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " trial=" << trial);
        std::mt19937_64 rng(seed);
        const std::size_t S = 1 + rng() % 129, L = 1 + rng() % 9;
        const Causal causal = static_cast<Causal>(rng() % 3);
        const auto in = test::random_qkv({1, 4, L, 8}, 2, S, 5, seed);
        AttentionOptions o;
        o.causal = causal;
        const auto ref = reference(in, o);
        // Random cut points (duplicates make empty partitions).
        std::vector<std::size_t> cuts{0, S};
        for (std::size_t c = rng() % 12; c > 0; --c) cuts.push_back(rng() % (S + 1));
        std::sort(cuts.begin(), cuts.end());
        std::vector<PartialAttention<double>> parts;
        for (std::size_t i = 0; i + 1 < cuts.size(); ++i) parts.push_back(attend_kv_range(in.q, in.k, in.v, {cuts[i], cuts[i + 1]}, o));
        std::shuffle(parts.begin(), parts.end(), rng);

        const auto merged = random_tree_merge(parts, rng, [](PartialAttention<double> a, const PartialAttention<double>& b) {
            merge_partial(a, b);
            return a;
        });
        const auto n = normalize(merged);
        CHECK(test::max_abs_diff(n.output, ref.output.data) < kDoubleTol);
        CHECK(test::max_abs_diff(n.lse, ref.lse) < kDoubleTol);

        std::vector<NormalizedAttention<double>> normalized;
        for (const auto& p : parts) normalized.push_back(normalize(p));
        const auto merged_n = random_tree_merge(normalized, rng, [](const NormalizedAttention<double>& a,
                                                                    const NormalizedAttention<double>& b) {
            return merge_normalized(a, b);
        });
        CHECK(test::max_abs_diff(merged_n.output, ref.output.data) < kDoubleTol);
        CHECK(test::max_abs_diff(merged_n.lse, ref.lse) < kDoubleTol);
    }
}

TEST_CASE("split-KV: empty partitions and fully masked partitions are the identity (no NaN)") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const auto in = test::random_qkv({1, 2, 4, 8}, 2, 20, 3, seed);
    AttentionOptions o;
    o.causal = Causal::top_left;  // row 0 sees key 0 only: keys [10, 20) are fully masked for rows 0..3
    auto masked = attend_kv_range(in.q, in.k, in.v, {10, 20}, o);
    for (const auto& s : masked.state) {
        CHECK(s.m == -INFINITY);
        CHECK(s.l == 0.0);
    }
    const auto alone = normalize(masked);
    for (double x : alone.output) CHECK(x == 0.0);
    for (double x : alone.lse) CHECK(x == -INFINITY);
    auto empty = attend_kv_range(in.q, in.k, in.v, {7, 7}, o);
    auto full = attend_kv_range(in.q, in.k, in.v, {0, 10}, o);
    merge_partial(masked, empty);
    merge_partial(masked, full);
    const auto ref = reference(in, o);
    const auto n = normalize(masked);
    CHECK(test::max_abs_diff(n.output, ref.output.data) < kDoubleTol);
    const auto nn = merge_normalized(alone, normalize(full));
    CHECK(test::max_abs_diff(nn.output, ref.output.data) < kDoubleTol);
    CHECK(test::max_abs_diff(nn.lse, ref.lse) < kDoubleTol);
    CHECK(split_kv_partitions(3, 5) == std::vector<IndexRange>{{0, 1}, {1, 2}, {2, 3}, {3, 3}, {3, 3}});
    CHECK(split_kv_partitions(10, 4) == std::vector<IndexRange>{{0, 3}, {3, 6}, {6, 8}, {8, 10}});
}

TEST_CASE("split-KV: argument errors name the argument") {
    const auto in = test::random_qkv({1, 2, 3, 4}, 1, 9, 4, test::next_seed());
    test::check_error([&] { split_kv_partitions(9, 0); }, "num_partitions");
    test::check_error([&] { attend_kv_range(in.q, in.k, in.v, {5, 10}); }, "keys");
    test::check_error([&] { attend_kv_range(in.q, in.k, in.v, {5, 4}); }, "keys");
    test::check_error([&] { attend_kv_range(in.q, in.k, in.v, {0, 9}, {2, 4}); }, "rows");
    auto a = attend_kv_range(in.q, in.k, in.v, {0, 5});
    const auto b = attend_kv_range(in.q, in.k, in.v, {4, 9});
    test::check_error([&] { merge_partial(a, b); }, "share keys");
    test::check_error([&] { merge_partial(a, a); }, "share keys");
    const auto rows = attend_kv_range(in.q, in.k, in.v, {5, 9}, {0, 2});
    test::check_error([&] { merge_partial(a, rows); }, "same batch, heads");
    test::check_error([&] { merge_normalized(normalize(a), normalize(b)); }, "merge_normalized");
    SplitKvOptions o;
    o.num_partitions = 0;
    test::check_error([&] { split_kv_attention(in.q, in.k, in.v, o); }, "num_partitions");
    auto bad = in.k;
    bad.data[3] = NAN;
    test::check_error([&] { attend_kv_range(in.q, bad, in.v, {0, 9}); }, "key");
    o.num_partitions = (std::size_t{1} << 16) + 1;
    test::check_error([&] { split_kv_attention(in.q, in.k, in.v, o); }, "num_partitions: must be in [1, 65536]");
    // 2^16 partitions of a 1 x 2 x 300 problem would keep 2^16 x 600 x (4 + 2) numbers; 2^24 / 3600 = 4660.
    const auto tall = test::random_qkv({1, 2, 300, 4}, 1, 9, 4, test::next_seed());
    o.num_partitions = std::size_t{1} << 16;
    test::check_error([&] { split_kv_attention(tall.q, tall.k, tall.v, o); }, "use at most 4660 partitions");
}

TEST_CASE("split-KV: merged key ranges are kept sorted and joined, and overlap is found in any order") {
    const auto in = test::random_qkv({1, 1, 2, 3}, 1, 12, 3, test::next_seed());
    auto a = attend_kv_range(in.q, in.k, in.v, {8, 12});
    merge_partial(a, attend_kv_range(in.q, in.k, in.v, {0, 3}));
    CHECK(a.key_ranges == std::vector<IndexRange>{{0, 3}, {8, 12}});
    merge_partial(a, attend_kv_range(in.q, in.k, in.v, {5, 5}));  // empty: dropped
    merge_partial(a, attend_kv_range(in.q, in.k, in.v, {3, 8}));
    CHECK(a.key_ranges == std::vector<IndexRange>{{0, 12}});
    auto gaps = attend_kv_range(in.q, in.k, in.v, {9, 11});
    merge_partial(gaps, attend_kv_range(in.q, in.k, in.v, {0, 2}));
    test::check_error([&] { merge_partial(gaps, attend_kv_range(in.q, in.k, in.v, {1, 4})); }, "share keys");
    test::check_error([&] { merge_partial(gaps, attend_kv_range(in.q, in.k, in.v, {10, 12})); }, "share keys");
}

TEST_CASE("split-KV: many empty partitions merge in linear time") {
    // 2^16 partitions of 5 keys: a quadratic overlap check over the merged ranges would make 2^31
    // range comparisons here; the merged state carries one range, so this is milliseconds.
    const auto in = test::random_qkv({1, 1, 1, 2}, 1, 5, 2, test::next_seed());
    SplitKvOptions o;
    o.num_partitions = std::size_t{1} << 16;
    const auto r = split_kv_attention(in.q, in.k, in.v, o);
    const auto ref = sdpa(in.q, in.k, in.v);
    CHECK(test::max_abs_diff(r.output.data, ref.output.data) < kDoubleTol);
}
