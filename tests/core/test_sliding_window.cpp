// Sliding-window attention through a rolling-buffer cache (Mistral 7B, Sec. 2): equal to dense
// attention with the window mask; the cache never holds more than W positions; receptive field.
#include <cmath>

#include "attn/attention/sdpa.hpp"
#include "attn/attention/sliding_window.hpp"
#include "support.hpp"

using namespace attn;

namespace {

// Double, one online-softmax pass over <= W keys: rounding of order 1e-15.
constexpr double kDoubleTol = 1e-12;

}  // namespace

TEST_CASE("sliding window: rolling-buffer decode equals sdpa with the window mask, odd sizes, GQA") {
    for (std::size_t L : {1u, 3u, 17u, 113u, 129u}) {
        for (std::size_t W : {1u, 3u, 16u, 127u, 200u}) {
            const std::uint64_t seed = test::next_seed();
            INFO("seed=" << seed << " L=" << L << " W=" << W);
            const auto in = test::random_qkv({2, 4, L, 8}, 2, L, 5, seed);
            const auto r = sliding_window_decode(in.q, in.k, in.v, W);
            SdpaOptions so;
            so.mask = sliding_window_mask(L, W);
            const auto ref = sdpa(in.q, in.k, in.v, so);
            CHECK(test::max_abs_diff(r.output.data, ref.output.data) < kDoubleTol);
            CHECK(test::max_abs_diff(r.lse, ref.lse) < kDoubleTol);
            // The cache grows to W and then stays there.
            REQUIRE(r.cache_size.size() == L);
            for (std::size_t i = 0; i < L; ++i) CHECK(r.cache_size[i] == std::min(i + 1, W));
        }
    }
}

TEST_CASE("sliding window: the mask is i - W < j <= i, W >= L is plain causal attention") {
    const auto m = sliding_window_mask(6, 3);
    for (std::size_t i = 0; i < 6; ++i) {
        for (std::size_t j = 0; j < 6; ++j) CHECK(bool(m.allowed[i * 6 + j]) == (j <= i && j + 3 > i));
    }
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const auto in = test::random_qkv({1, 2, 17, 8}, 2, 17, 8, seed);
    SdpaOptions so;
    so.causal = Causal::top_left;
    CHECK(test::max_abs_diff(sliding_window_decode(in.q, in.k, in.v, 17).output.data, sdpa(in.q, in.k, in.v, so).output.data) <
          kDoubleTol);
}

TEST_CASE("sliding window: rolling buffer slots, eviction and attend errors") {
    RollingKvCache<double> cache(3, 1, 2, 1);
    test::check_error([&] { std::vector<double> out; cache.attend({1, 0}, 1, std::nullopt, out); }, "empty");
    for (int i = 0; i < 5; ++i) cache.append({double(i), 0}, {double(i)});
    CHECK(cache.size() == 3);
    CHECK(cache.positions_seen() == 5);
    CHECK(cache.slot_of(4) == 1);
    CHECK(cache.slot_of(2) == 2);
    test::check_error([&] { cache.slot_of(1); }, "position");  // evicted: 1 <= 4 - 3
    test::check_error([&] { cache.slot_of(5); }, "position");
    // Zero query: uniform weights over the cached positions 2, 3, 4.
    std::vector<double> out;
    const auto lse = cache.attend({0, 0}, 1, std::nullopt, out);
    CHECK(out[0] == doctest::Approx(3.0).epsilon(1e-14));
    CHECK(lse[0] == doctest::Approx(std::log(3.0)).epsilon(1e-14));
    test::check_error([&] { cache.append({1}, {1}); }, "key_rows/value_rows");
    test::check_error([&] { cache.append({NAN, 0}, {1}); }, "key_rows");
    test::check_error([&] { cache.attend({0, 0}, 0, std::nullopt, out); }, "q_heads");
    test::check_error([&] { cache.attend({0}, 1, std::nullopt, out); }, "query");
    test::check_error([&] { cache.attend({0, 0}, 1, INFINITY, out); }, "scale");
    test::check_error([&] { RollingKvCache<double>(0, 1, 1, 1); }, "window");
    test::check_error([&] { RollingKvCache<double>(2, 0, 1, 1); }, "kv_heads");
    const auto in = test::random_qkv({1, 2, 5, 4}, 1, 4, 4, test::next_seed());
    test::check_error([&] { sliding_window_decode(in.q, in.k, in.v, 2); }, "key");
    test::check_error([&] { sliding_window_mask(0, 2); }, "seq_len");
    test::check_error([&] { sliding_window_mask(4, 0); }, "window");
}

TEST_CASE("sliding window: receptive field L (W - 1) from the mask, and the paper's L x W") {
    for (std::size_t layers : {1u, 2u, 4u}) {
        for (std::size_t W : {1u, 2u, 4u, 5u}) {
            const ReceptiveField f = sliding_window_receptive_field(layers, W);
            CHECK(f.reach_tokens == layers * (W - 1));
            CHECK(f.paper_reach_tokens == layers * W);
            // Propagate token 3's influence through the actual mask.
            const std::size_t n = 40, src = 3;
            const auto reach = sliding_window_influence(layers, W, n, src);
            REQUIRE(reach.size() == layers);
            for (std::size_t l = 0; l < layers; ++l) {
                for (std::size_t i = 0; i < n; ++i) {
                    CHECK(bool(reach[l][i]) == (i >= src && i - src <= (l + 1) * (W - 1)));
                }
            }
        }
    }
    // Mistral 7B: W = 4096, 32 layers -> "a theoretical attention span of approximately 131K
    // tokens" (Sec. 2): 32 x 4096 = 131072.
    CHECK(sliding_window_receptive_field(32, 4096).paper_reach_tokens == 131072);
    // The largest arguments reach 2^50 tokens, past a 32-bit size_t (WebAssembly's): 64-bit fields.
    CHECK(sliding_window_receptive_field(std::size_t{1} << 20, std::size_t{1} << 30).paper_reach_tokens ==
          std::uint64_t{1} << 50);
    CHECK(sliding_window_receptive_field(std::size_t{1} << 20, std::size_t{1} << 30).reach_tokens ==
          (std::uint64_t{1} << 50) - (std::uint64_t{1} << 20));
    test::check_error([&] { sliding_window_receptive_field(0, 4); }, "layers");
    test::check_error([&] { sliding_window_receptive_field(2, 0); }, "window");
    test::check_error([&] { sliding_window_influence(2, 3, 10, 10); }, "source");
    test::check_error([&] { sliding_window_influence(1000, 3, 4096, 0); }, "layers/seq_len");
}
