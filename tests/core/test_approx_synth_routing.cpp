// Synthesizer (Tay et al. 2021) and Routing Transformer attention (Roy et al. 2021): the
// structural properties that define them, their special cases, and their counted cost.
#include <algorithm>

#include "attn/approx/routing_attention.hpp"
#include "attn/approx/synthesizer.hpp"
#include "attn/attention/sdpa.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::approx;

namespace {
constexpr double kTol = 1e-12;
}

TEST_CASE("random Synthesizer weights ignore the tokens, dense Synthesizer rows depend on their own token only") {
    for (std::size_t n : {1u, 17u, 113u}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " N=" << n);
        const auto in = test::random_qkv({1, 2, n, 8}, 2, n, 5, seed);
        auto changed = in;
        for (std::size_t c = 0; c < 8; ++c) changed.q.at(0, 1, 0, c) += 1.0;  // token 0 of head 1

        SynthesizerOptions o;
        o.seed = seed;
        o.kind = SynthesizerKind::random;
        const auto r1 = synthesizer(in.q, in.k, in.v, o), r2 = synthesizer(changed.q, changed.k, changed.v, o);
        CHECK(test::max_abs_diff(r1.output.data, r2.output.data) == 0.0);

        o.kind = SynthesizerKind::dense;
        const auto d1 = synthesizer(in.q, in.k, in.v, o), d2 = synthesizer(changed.q, changed.k, changed.v, o);
        for (std::size_t i = 1; i < n; ++i) {
            for (std::size_t c = 0; c < 5; ++c) CHECK(d1.output.at(0, 1, i, c) == d2.output.at(0, 1, i, c));
        }
        // Every output row is a convex combination of value rows: constant values come back.
        auto constant = in;
        for (std::size_t t = 0; t < constant.v.data.size(); ++t) constant.v.data[t] = static_cast<double>(t % 5);
        for (auto kind : {SynthesizerKind::dense, SynthesizerKind::random}) {
            o.kind = kind;
            const auto r = synthesizer(constant.q, constant.k, constant.v, o);
            for (std::size_t t = 0; t < r.output.data.size(); ++t) CHECK(std::abs(r.output.data[t] - static_cast<double>(t % 5)) < kTol);
        }
    }
}

TEST_CASE("Synthesizer cost counts N squared synthesized weights") {
    const std::size_t n = 17, d = 8, dv = 5, h = 12;
    const auto in = test::random_qkv({1, 1, n, d}, 1, n, dv, test::next_seed());
    SynthesizerOptions o;
    o.hidden = h;
    const auto r = synthesizer(in.q, in.k, in.v, o);
    CHECK(r.cost.score_entries == n * n);
    CHECK(r.cost.flops == n * (2 * d * h + h + 2 * h * n) + n * n * (2 + 2 * dv));
    CHECK(r.cost.peak_bytes == 8 * (h + n * n));
    o.kind = SynthesizerKind::random;
    CHECK(synthesizer(in.q, in.k, in.v, o).cost.flops == n * n * (2 + 2 * dv));
    const auto cross = test::random_qkv({1, 1, 4, d}, 1, 5, dv, test::next_seed());
    test::check_error([&] { synthesizer(cross.q, cross.k, cross.v); }, "needs as many keys as queries (4), got 5");
    o.hidden = 5000;
    test::check_error([&] { synthesizer(in.q, in.k, in.v, o); }, "hidden: must be in [1, 4096], got 5000");
}

TEST_CASE("Routing attention with one cluster is dense attention") {
    for (auto [l, s] : {std::pair{17u, 17u}, std::pair{3u, 129u}, std::pair{113u, 1u}}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " L=" << l << " S=" << s);
        const auto in = test::random_qkv({2, 2, l, 8}, 2, s, 5, seed);
        RoutingOptions o;
        o.num_clusters = 1;
        const auto r = routing_attention(in.q, in.k, in.v, o);
        CHECK(test::max_abs_diff(r.approx.output.data, sdpa(in.q, in.k, in.v).output.data) < kTol);
        CHECK(r.approx.cost.score_entries == 4 * l * s);
        CHECK(r.queries_without_keys == 0);
    }
}

TEST_CASE("Routing attention is dense attention masked to same-cluster pairs") {
    for (auto [n, c] : {std::pair{129u, 8u}, std::pair{64u, 3u}, std::pair{17u, 34u}}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " N=" << n << " clusters=" << c);
        const auto in = test::random_qkv({1, 1, n, 6}, 1, n, 4, seed);
        RoutingOptions o;
        o.num_clusters = c;
        o.seed = seed;
        const auto r = routing_attention(in.q, in.k, in.v, o);
        std::vector<std::uint8_t> allowed(n * n);
        std::uint64_t entries = 0, without = 0;
        for (std::size_t i = 0; i < n; ++i) {
            std::size_t row = 0;
            for (std::size_t j = 0; j < n; ++j) row += allowed[i * n + j] = r.query_cluster[i] == r.key_cluster[j];
            entries += row;
            without += row == 0;
            CHECK(r.query_cluster[i] < c);
        }
        SdpaOptions so;
        so.mask = AttentionMask::boolean({1, 1, n, n}, allowed);
        CHECK(test::max_abs_diff(r.approx.output.data, sdpa(in.q, in.k, in.v, so).output.data) < kTol);  // empty rows: 0 in both
        CHECK(r.approx.cost.score_entries == entries);
        CHECK(r.queries_without_keys == without);
        CHECK(routing_attention(in.q, in.k, in.v, o).key_cluster == r.key_cluster);  // seeded
    }
}

TEST_CASE("Routing k-means separates two groups of directions, queries and keys alike") {
    // Points near e_0 and near e_1 (orthogonal directions, noise 0.05): whichever two points the
    // seed picks as initial centroids, a few Lloyd iterations end with one cluster per group.
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const std::size_t n = 12, d = 6;
    const auto noise_q = test::randn({1, 1, n, d}, seed), noise_k = test::randn({1, 1, n, d}, seed + 1);
    Tensor4<double> q({1, 1, n, d}), k({1, 1, n, d});
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t c = 0; c < d; ++c) {
            q.at(0, 0, i, c) = (c == i % 2 ? 1.0 : 0.0) + 0.05 * noise_q.at(0, 0, i, c);
            k.at(0, 0, i, c) = (c == i % 2 ? 1.0 : 0.0) + 0.05 * noise_k.at(0, 0, i, c);
        }
    }
    RoutingOptions o;
    o.num_clusters = 2;
    o.iterations = 5;
    o.seed = seed;
    const auto r = routing_attention(q, k, k, o);
    for (std::size_t i = 0; i < n; ++i) {
        CHECK(r.query_cluster[i] == r.query_cluster[i % 2]);
        CHECK(r.key_cluster[i] == r.query_cluster[i % 2]);
    }
    CHECK(r.query_cluster[0] != r.query_cluster[1]);
    CHECK(r.queries_without_keys == 0);
}

TEST_CASE("Routing attention rejects bad options") {
    const auto in = test::random_qkv({1, 1, 4, 4}, 1, 5, 4, test::next_seed());
    RoutingOptions o;
    o.num_clusters = 10;
    test::check_error([&] { routing_attention(in.q, in.k, in.v, o); }, "num_clusters: must be in [1, 9], got 10");
    o.num_clusters = 2;
    o.iterations = 101;
    test::check_error([&] { routing_attention(in.q, in.k, in.v, o); }, "iterations: must be in [0, 100], got 101");
}
