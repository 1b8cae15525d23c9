#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "attn/approx/lsh_attention.hpp"
#include "attn/approx/lsh_pattern.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::approx;
using attn::test::check_error;
using attn::test::next_seed;
using attn::test::randn;

namespace {

// The attended pairs rebuilt independently from the buckets lsh_attention reports: per round sort
// the positions by (bucket, position), cut into chunks of m, and keep (i, j) when j is in i's
// bucket and in i's chunk or the previous one; the self pair only for a query with no other.
std::vector<std::uint8_t> reference_mask(const LshAttentionResult& r, std::size_t n, std::size_t rounds) {
    std::vector<std::uint8_t> mask(n * n, 0);
    const std::size_t m = r.chunk_length;
    for (std::size_t round = 0; round < rounds; ++round) {
        const std::uint32_t* bucket = r.buckets.data() + round * n;
        std::vector<std::size_t> order(n), chunk_of(n);
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return bucket[a] != bucket[b] ? bucket[a] < bucket[b] : a < b;
        });
        for (std::size_t s = 0; s < n; ++s) chunk_of[order[s]] = s / m;
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                const bool window = chunk_of[j] == chunk_of[i] || chunk_of[j] + 1 == chunk_of[i];
                if (i != j && window && bucket[i] == bucket[j]) mask[i * n + j] = 1;
            }
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (std::none_of(mask.begin() + i * n, mask.begin() + (i + 1) * n, [](std::uint8_t x) { return x != 0; })) {
            mask[i * n + i] = 1;
        }
    }
    return mask;
}

}  // namespace

TEST_CASE("LSH pattern counts exactly the pairs LSH attention attends, at every pixel size") {
    struct Case {
        std::size_t n, d, buckets, rounds, chunk;
    };
    const Case cases[] = {{1, 3, 2, 1, 4},    {3, 2, 2, 1, 1},     {17, 5, 4, 2, 4},  {113, 8, 8, 1, 16},
                          {127, 7, 16, 3, 8}, {129, 16, 1, 1, 32}, {200, 4, 6, 2, 64}};
    for (const Case& c : cases) {
        const std::uint64_t seed = next_seed();
        INFO("seed " << seed << " N " << c.n << " d " << c.d << " buckets " << c.buckets << " rounds " << c.rounds);
        LshOptions o;
        o.num_buckets = c.buckets;
        o.num_rounds = c.rounds;
        o.chunk_length = c.chunk;
        o.seed = seed ^ 0x77;
        const Tensor4<double> q = randn({1, 1, c.n, c.d}, seed);
        const LshAttentionResult run = lsh_attention(q, q, randn({1, 1, c.n, 2}, seed + 1), o);
        const std::vector<std::uint8_t> mask = reference_mask(run, c.n, c.rounds);

        const LshPattern full = lsh_pattern(q, o, c.n);
        CHECK(full.chunk_length == run.chunk_length);
        CHECK(full.cost.score_entries == run.approx.cost.score_entries);
        std::uint64_t total = 0;
        for (std::size_t x = 0; x < c.n * c.n; ++x) {
            REQUIRE(full.image.allowed[x] == mask[x]);
            total += mask[x];
        }
        CHECK(full.attended_pairs == total);

        // A coarser image holds the same cells, summed over each pixel's rectangle.
        const std::size_t pixels = std::max<std::size_t>(1, c.n / 7);
        const LshPattern coarse = lsh_pattern(q, o, pixels);
        for (std::size_t p = 0; p < pixels; ++p) {
            for (std::size_t col = 0; col < pixels; ++col) {
                std::uint64_t expected = 0;
                for (std::size_t i = coarse.image.edges[p]; i < coarse.image.edges[p + 1]; ++i) {
                    for (std::size_t j = coarse.image.edges[col]; j < coarse.image.edges[col + 1]; ++j) expected += mask[i * c.n + j];
                }
                CHECK(coarse.image.allowed[p * pixels + col] == expected);
            }
        }
        CHECK(coarse.attended_pairs == total);
    }
}

TEST_CASE("LSH pattern's image, built from each query's run of sorted slots, equals enumerating every pair") {
    // Odd lengths and pixel counts, buckets larger and smaller than chunks, more buckets than tokens,
    // one round (each key met once) and several (pairs met in more than one round count once).
    struct Case {
        std::size_t n, d, buckets, rounds, chunk, pixels;
    };
    const Case cases[] = {{1001, 9, 64, 1, 64, 37},  {1001, 9, 64, 3, 64, 255}, {777, 5, 8, 1, 7, 111},
                          {777, 5, 8, 4, 7, 1},      {513, 3, 4096, 2, 5, 513}, {129, 16, 2, 1, 1000, 129},
                          {255, 6, 30, 5, 1, 17}};
    for (const Case& c : cases) {
        const std::uint64_t seed = next_seed();
        INFO("seed " << seed << " N " << c.n << " d " << c.d << " buckets " << c.buckets << " rounds " << c.rounds << " m "
                     << c.chunk << " pixels " << c.pixels);
        LshOptions o;
        o.num_buckets = c.buckets;
        o.num_rounds = c.rounds;
        o.chunk_length = c.chunk;
        o.seed = seed ^ 0x99;
        const Tensor4<double> q = randn({1, 1, c.n, c.d}, seed);
        const std::vector<std::uint8_t> mask = reference_mask(lsh_attention(q, q, randn({1, 1, c.n, 1}, seed + 1), o), c.n, c.rounds);

        const LshPattern p = lsh_pattern(q, o, c.pixels);
        std::vector<std::uint64_t> expected(c.pixels * c.pixels, 0);
        std::uint64_t total = 0;
        for (std::size_t pi = 0; pi < c.pixels; ++pi) {
            for (std::size_t i = p.image.edges[pi]; i < p.image.edges[pi + 1]; ++i) {
                for (std::size_t pj = 0; pj < c.pixels; ++pj) {
                    for (std::size_t j = p.image.edges[pj]; j < p.image.edges[pj + 1]; ++j) expected[pi * c.pixels + pj] += mask[i * c.n + j];
                }
            }
        }
        for (std::uint64_t x : expected) total += x;
        CHECK(p.image.allowed == expected);
        CHECK(p.attended_pairs == total);
    }
}

TEST_CASE("LSH pattern with one bucket and one chunk is every pair but the diagonal") {
    LshOptions o;
    o.num_buckets = 1;
    o.chunk_length = 1000;
    for (std::size_t n : {2u, 17u, 300u}) {
        const LshPattern p = lsh_pattern(randn({1, 1, n, 4}, next_seed()), o, 1);
        CHECK(p.attended_pairs == std::uint64_t{n} * (n - 1));
        CHECK(p.cost.score_entries == std::uint64_t{n} * n);
    }
}

TEST_CASE("LSH pattern keeps about 2m keys per query when buckets are larger than chunks") {
    // N = 8192 in 8 buckets: a bucket's run of ~1,024 sorted positions spans ~16 chunks of m = 64,
    // so nearly every key of a query's own and previous chunk shares its bucket, and it keeps a
    // little under 2m - 1 = 127 keys; the scores formed are 2m per query but for the first chunk.
    LshOptions o;
    o.num_buckets = 8;
    o.chunk_length = 64;
    o.seed = 5;
    const LshPattern p = lsh_pattern(randn({1, 1, 8192, 64}, next_seed()), o, 256);
    CHECK(p.cost.score_entries == 8192ull * 128 - 64 * 64);
    const double per_query = static_cast<double>(p.attended_pairs) / 8192.0;
    CHECK(per_query > 115);
    CHECK(per_query < 127);
}

TEST_CASE("LSH pattern rejects bad arguments") {
    const Tensor4<double> q = randn({1, 1, 16, 4}, 1);
    LshOptions o;
    check_error([&] { lsh_pattern(q, o, 17); }, "pixels: must be in [1, min(seq_len, 2048)] = [1, 16], got 17");
    check_error([&] { lsh_pattern(q, o, 0); }, "pixels");
    o.num_buckets = 3;
    check_error([&] { lsh_pattern(q, o, 4); }, "num_buckets: must be 1 or an even number");
    check_error([&] { lsh_pattern(randn({2, 1, 16, 4}, 1), LshOptions{}, 4); }, "q: must be one head's queries");
    Tensor4<double> bad = q;
    bad.data[5] = std::nan("");
    check_error([&] { lsh_pattern(bad, LshOptions{}, 4); }, "q: every value must be finite");
}
