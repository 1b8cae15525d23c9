// Causal prefill with start_pos and chunked prefill: equal to the dense reference, chunked ==
// one-shot for any chunk sizes, and NaN past the causal bound never reaches an output.
#include <cmath>
#include <limits>
#include <random>

#include "attn/attention/chunked_prefill.hpp"
#include "attn/attention/sdpa.hpp"
#include "support.hpp"

using namespace attn;

namespace {

// Double, one online-softmax pass over <= 129 keys: rounding of order 1e-15.
constexpr double kDoubleTol = 1e-12;

Tensor4<double> rows(const Tensor4<double>& t, std::size_t begin, std::size_t end) {
    Tensor4<double> r({t.shape.batch, t.shape.heads, end - begin, t.shape.dim});
    for (std::size_t b = 0; b < t.shape.batch; ++b) {
        for (std::size_t h = 0; h < t.shape.heads; ++h) {
            std::copy_n(t.row(b, h, begin), (end - begin) * t.shape.dim, r.row(b, h, 0));
        }
    }
    return r;
}

// Random chunk lengths summing to n.
std::vector<std::size_t> random_chunks(std::size_t n, std::mt19937_64& rng) {
    std::vector<std::size_t> c;
    for (std::size_t left = n; left > 0;) {
        const std::size_t len = 1 + rng() % std::min<std::size_t>(left, 1 + rng() % 40);
        c.push_back(len);
        left -= len;
    }
    return c;
}

}  // namespace

TEST_CASE("prefill: M queries at start_pos equal sdpa with bottom-right causal over keys 0 .. start_pos + M - 1") {
    for (std::size_t M : {1u, 3u, 17u, 113u}) {
        for (std::size_t start : {0u, 1u, 16u, 129u}) {
            const std::uint64_t seed = test::next_seed();
            INFO("seed=" << seed << " M=" << M << " start_pos=" << start);
            const std::size_t capacity = start + M + 5;  // room past the bound, poisoned below
            auto in = test::random_qkv({2, 4, M, 8}, 2, capacity, 5, seed);
            for (std::size_t b = 0; b < 2; ++b) {
                for (std::size_t h = 0; h < 2; ++h) {
                    for (std::size_t j = start + M; j < capacity; ++j) {
                        for (std::size_t c = 0; c < 8; ++c) in.k.at(b, h, j, c) = NAN;
                        for (std::size_t c = 0; c < 5; ++c) in.v.at(b, h, j, c) = NAN;
                    }
                }
            }
            PrefillOptions o;
            o.block_k = 1 + seed % 20;
            const auto r = prefill_attention(in.q, in.k, in.v, start, o);
            SdpaOptions so;
            so.causal = Causal::bottom_right;
            const auto ref = sdpa(in.q, rows(in.k, 0, start + M), rows(in.v, 0, start + M), so);
            CHECK(test::max_abs_diff(r.output.data, ref.output.data) < kDoubleTol);
            CHECK(test::max_abs_diff(r.lse, ref.lse) < kDoubleTol);
            // Every row reads exactly its prefix: sum_i (start + i + 1) per (batch, head).
            CHECK(r.key_rows_read == 2 * 4 * (M * start + M * (M + 1) / 2));
        }
    }
}

TEST_CASE("chunked prefill: any chunking equals one shot and equals causal sdpa over the prompt (both alignments, L == S)") {
    for (std::size_t N : {1u, 3u, 17u, 127u, 129u}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " N=" << N);
        std::mt19937_64 rng(seed);
        const auto in = test::random_qkv({1, 6, N, 16}, 3, N, 9, seed);
        const auto one_shot = chunked_prefill(in.q, in.k, in.v, {N});
        for (Causal c : {Causal::top_left, Causal::bottom_right}) {  // identical when L == S
            SdpaOptions so;
            so.causal = c;
            const auto ref = sdpa(in.q, in.k, in.v, so);
            CHECK(test::max_abs_diff(one_shot.output.data, ref.output.data) < kDoubleTol);
            CHECK(test::max_abs_diff(one_shot.lse, ref.lse) < kDoubleTol);
        }
        for (int t = 0; t < 4; ++t) {
            const auto chunks = t == 0 ? std::vector<std::size_t>(N, 1) : random_chunks(N, rng);
            const auto r = chunked_prefill(in.q, in.k, in.v, chunks);
            // Same loop bounds and same key blocks per row: chunking changes nothing, bit for bit.
            CHECK(r.output.data == one_shot.output.data);
            CHECK(r.lse == one_shot.lse);
            CHECK(r.key_rows_read == one_shot.key_rows_read);
        }
    }
}

TEST_CASE("chunked prefill: poisoned future -- NaN in every unwritten cache slot leaks into no output") {
    // chunked_prefill fills its cache with NaN before writing each chunk; prefill_attention on a
    // cache whose rows past start_pos + M are NaN must produce finite outputs.
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const auto in = test::random_qkv({1, 2, 40, 8}, 2, 40, 8, seed);
    const auto r = chunked_prefill(in.q, in.k, in.v, {1, 7, 13, 19});
    for (double x : r.output.data) REQUIRE(std::isfinite(x));
    // And a NaN inside the causal prefix is rejected, not silently propagated.
    auto k = in.k;
    k.at(0, 1, 5, 3) = NAN;
    Tensor4<double> q = rows(in.q, 6, 8);
    test::check_error([&] { prefill_attention(q, k, in.v, 6); }, "key_cache");
    CHECK_NOTHROW(prefill_attention(rows(in.q, 0, 5), k, in.v, 0));  // row 5 is past this bound
}

TEST_CASE("prefill: argument errors name the argument") {
    const auto in = test::random_qkv({1, 4, 3, 8}, 2, 10, 5, test::next_seed());
    test::check_error([&] { prefill_attention(in.q, in.k, in.v, 8); }, "start_pos");
    test::check_error([&] { prefill_attention(in.q, in.k, test::randn({1, 2, 9, 5}, 1), 0); }, "value_cache");
    test::check_error([&] { prefill_attention(in.q, test::randn({1, 3, 10, 8}, 1), test::randn({1, 3, 10, 5}, 1), 0); },
                "key_cache");
    test::check_error([&] { prefill_attention(in.q, test::randn({1, 2, 10, 6}, 1), in.v, 0); }, "head_dim");
    PrefillOptions o;
    o.block_k = 0;
    test::check_error([&] { prefill_attention(in.q, in.k, in.v, 0, o); }, "block_k");
    o = {};
    o.scale = NAN;
    test::check_error([&] { prefill_attention(in.q, in.k, in.v, 0, o); }, "scale");
    const auto p = test::random_qkv({1, 2, 6, 4}, 1, 6, 4, test::next_seed());
    test::check_error([&] { chunked_prefill(p.q, p.k, p.v, {2, 3}); }, "chunk_lengths");
    test::check_error([&] { chunked_prefill(p.q, p.k, p.v, {2, 0, 4}); }, "chunk_lengths");
    test::check_error([&] { chunked_prefill(p.q, test::randn({1, 1, 5, 4}, 1), test::randn({1, 1, 5, 4}, 1), {6}); }, "key");
}
