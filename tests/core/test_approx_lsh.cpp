// Reformer LSH attention (Kitaev et al. 2020): the hash rule, the special case of one bucket, the
// multi-round combination as softmax over the union of attended sets, and the counted cost.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "attn/approx/lsh_attention.hpp"
#include "attn/attention/sdpa.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::approx;

namespace {

// Sums of up to 2m exponentials in double: observed ~1e-15; a wrong mask or count is >= 1e-3.
constexpr double kTol = 1e-12;
constexpr double kPi = std::numbers::pi;

Tensor4<double> unit_keys(const Tensor4<double>& q) {
    Tensor4<double> k = q;
    for (std::size_t r = 0; r < q.shape.numel() / q.shape.dim; ++r) {
        double n = 0;
        for (std::size_t c = 0; c < q.shape.dim; ++c) n += q.data[r * q.shape.dim + c] * q.data[r * q.shape.dim + c];
        for (std::size_t c = 0; c < q.shape.dim; ++c) k.data[r * q.shape.dim + c] /= std::sqrt(n);
    }
    return k;
}

// How many rounds let query i see key j, re-derived from the bucket ids alone: sort (bucket,
// position), chunks of m, own chunk + previous one, same bucket (the diagonal included).
std::vector<std::uint8_t> round_counts(const std::uint32_t* buckets, std::size_t rounds, std::size_t n, std::size_t m) {
    std::vector<std::uint8_t> count(n * n, 0);
    for (std::size_t r = 0; r < rounds; ++r) {
        const std::uint32_t* bk = buckets + r * n;
        std::vector<std::size_t> order(n), rank(n);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return bk[a] < bk[b]; });
        for (std::size_t s = 0; s < n; ++s) rank[order[s]] = s;
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                const std::size_t ci = rank[i] / m, cj = rank[j] / m;
                if (bk[i] == bk[j] && (cj == ci || cj + 1 == ci)) ++count[i * n + j];
            }
        }
    }
    return count;
}

// The union over rounds of the keys LSH attention lets query i see. The diagonal is allowed only
// where a row would otherwise be empty (the paper's self rule).
std::vector<std::uint8_t> union_mask(const std::uint32_t* buckets, std::size_t rounds, std::size_t n, std::size_t m) {
    std::vector<std::uint8_t> allowed = round_counts(buckets, rounds, n, m);
    for (auto& a : allowed) a = a > 0 ? 1 : 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t others = 0;
        for (std::size_t j = 0; j < n; ++j) others += (j != i && allowed[i * n + j]) ? 1 : 0;
        if (others > 0) allowed[i * n + i] = 0;
    }
    return allowed;
}

}  // namespace

TEST_CASE("LSH attention with one bucket and a chunk of at least N is dense shared-QK attention without self") {
    for (std::size_t n : {1u, 3u, 17u, 113u, 129u}) {
        for (std::size_t rounds : {1u, 3u}) {
            const std::uint64_t seed = test::next_seed();
            INFO("seed=" << seed << " N=" << n << " rounds=" << rounds);
            const auto in = test::random_qkv({2, 2, n, 16}, 2, n, 7, seed);
            LshOptions o;
            o.num_buckets = 1;
            o.num_rounds = rounds;
            o.chunk_length = n + 5;
            const auto r = lsh_attention(in.q, in.k, in.v, o);
            SdpaOptions dense;
            if (n > 1) {
                std::vector<std::uint8_t> allowed(n * n, 1);
                for (std::size_t i = 0; i < n; ++i) allowed[i * n + i] = 0;
                dense.mask = AttentionMask::boolean({1, 1, n, n}, allowed);
            }
            const auto ref = sdpa(in.q, unit_keys(in.q), in.v, dense);
            CHECK(test::max_abs_diff(r.approx.output.data, ref.output.data) < kTol);
            CHECK(r.approx.error.relative_frobenius < kTol);
            CHECK(r.approx.error.top1_preserved == doctest::Approx(compare_with_dense(ref.output, in.q, unit_keys(in.q), in.v, dense).top1_preserved));
            CHECK(r.chunk_length == n);
            CHECK(std::all_of(r.buckets.begin(), r.buckets.end(), [](std::uint32_t b) { return b == 0; }));
        }
    }
}

TEST_CASE("multi-round LSH attention is softmax over the union of the attended sets, each key counted once") {
    const std::size_t cases[][4] = {{17, 4, 2, 5}, {127, 8, 3, 16}, {129, 2, 4, 7}, {113, 16, 2, 32}, {64, 8, 1, 8}};
    for (const auto& c : cases) {
        const std::size_t n = c[0], buckets = c[1], rounds = c[2], m = c[3];
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " N=" << n << " buckets=" << buckets << " rounds=" << rounds << " m=" << m);
        const auto in = test::random_qkv({1, 2, n, 8}, 2, n, 5, seed);
        LshOptions o;
        o.num_buckets = buckets;
        o.num_rounds = rounds;
        o.chunk_length = m;
        o.seed = seed;
        const auto r = lsh_attention(in.q, in.k, in.v, o);
        REQUIRE(r.buckets.size() == 2 * rounds * n);
        for (std::size_t h = 0; h < 2; ++h) {
            SdpaOptions so;
            so.mask = AttentionMask::boolean({1, 1, n, n}, union_mask(r.buckets.data() + h * rounds * n, rounds, n, m));
            Tensor4<double> qh({1, 1, n, 8}), vh({1, 1, n, 5}), oh({1, 1, n, 5});
            std::copy_n(in.q.row(0, h, 0), n * 8, qh.data.begin());
            std::copy_n(in.v.row(0, h, 0), n * 5, vh.data.begin());
            std::copy_n(r.approx.output.row(0, h, 0), n * 5, oh.data.begin());
            CHECK(test::max_abs_diff(oh.data, sdpa(qh, unit_keys(qh), vh, so).output.data) < kTol);
        }
    }
}

TEST_CASE("LSH buckets are argmax of x R and -x R, so opposite vectors land half the buckets apart") {
    // Bucket counts whose half is below, at and above the hash's four-column blocks, and not a multiple of them.
    for (const std::size_t nb : {2u, 10u, 18u, 64u}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " buckets=" << nb);
        const std::size_t n = 40, d = 7, rounds = 3;
        auto in = test::random_qkv({1, 1, n, d}, 1, n, 3, seed);
        for (std::size_t i = 0; i < n / 2; ++i) {  // second half: the negated first half
            for (std::size_t c = 0; c < d; ++c) in.q.at(0, 0, n / 2 + i, c) = -in.q.at(0, 0, i, c);
        }
        LshOptions o;
        o.num_buckets = nb;
        o.num_rounds = rounds;
        o.seed = seed;
        const auto r = lsh_attention(in.q, in.k, in.v, o);
        REQUIRE(r.rotations.size() == rounds * d * nb / 2);
        for (std::size_t round = 0; round < rounds; ++round) {
            for (std::size_t i = 0; i < n; ++i) {
                std::vector<double> h(nb);
                for (std::size_t col = 0; col < nb / 2; ++col) {
                    double xr = 0;
                    for (std::size_t c = 0; c < d; ++c) xr += in.q.at(0, 0, i, c) * r.rotations[(round * d + c) * (nb / 2) + col];
                    h[col] = xr, h[nb / 2 + col] = -xr;
                }
                const auto expected = static_cast<std::uint32_t>(std::max_element(h.begin(), h.end()) - h.begin());
                CHECK(r.buckets[round * n + i] == expected);
                if (i < n / 2) CHECK(r.buckets[round * n + n / 2 + i] == (expected + nb / 2) % nb);
            }
        }
        // Same seed, same buckets; another seed, other rotations.
        CHECK(lsh_attention(in.q, in.k, in.v, o).buckets == r.buckets);
        o.seed = seed + 1;
        CHECK(lsh_attention(in.q, in.k, in.v, o).rotations != r.rotations);
    }
}

TEST_CASE("LSH 2-D points: the unit keys themselves for d = 2, an orthonormal projection for d > 2") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const auto in2 = test::random_qkv({1, 1, 9, 2}, 1, 9, 2, seed);
    const auto r2 = lsh_attention(in2.q, in2.k, in2.v);
    CHECK(test::max_abs_diff(r2.points_2d.data, unit_keys(in2.q).data) < 1e-15);
    // For d > 2: project the basis vectors e_c; the plane's two columns must be orthonormal.
    const std::size_t d = 12;
    Tensor4<double> basis({1, 1, d, d});
    for (std::size_t c = 0; c < d; ++c) basis.at(0, 0, c, c) = 1.0;
    const auto rb = lsh_attention(basis, basis, basis, {});
    double uu = 0, ww = 0, uw = 0;
    for (std::size_t c = 0; c < d; ++c) {
        const double u = rb.points_2d.at(0, 0, c, 0), w = rb.points_2d.at(0, 0, c, 1);
        uu += u * u, ww += w * w, uw += u * w;
    }
    CHECK(uu == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(ww == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(std::abs(uw) < 1e-12);
}

TEST_CASE("LSH cost: chunk blocks of own and previous chunk, per round, and the stated FLOP and memory formulas") {
    const std::size_t n = 129, m = 16, d = 8, dv = 5, rounds = 3, nb = 6;
    // 8 full chunks and one of 1: 16*16 + 7 * 16*32 + 1*(1 + 16) = 3857 entries per round.
    const std::uint64_t entries = 3 * 3857;
    LshOptions o;
    o.num_buckets = nb;
    o.num_rounds = rounds;
    o.chunk_length = m;
    const auto in = test::random_qkv({1, 2, n, d}, 2, n, dv, test::next_seed());
    const auto r = lsh_attention(in.q, in.k, in.v, o);
    CHECK(r.approx.cost.score_entries == 2 * entries);
    const std::uint64_t flops = n * (3 * d + 1) + rounds * n * d * nb + entries * (2 * d + 2 * dv + 2) + n * rounds * (2 * dv + 2);
    CHECK(r.approx.cost.flops == 2 * flops);
    CHECK(r.approx.cost.peak_bytes == 8 * (n * d + rounds * d * nb / 2 + rounds * n * (3 + dv + 1) + m * 2 * m));
    CHECK(lsh_attention_cost(2, n, d, dv, o).flops == r.approx.cost.flops);
    // One chunk covering everything: N^2 entries per round, like dense.
    o.chunk_length = 1000;
    CHECK(lsh_attention_cost(1, n, d, dv, o).score_entries == rounds * n * n);
}

TEST_CASE("LSH attention rejects bad options and shapes") {
    const auto in = test::random_qkv({1, 1, 8, 4}, 1, 8, 4, test::next_seed());
    LshOptions o;
    o.num_buckets = 3;
    test::check_error([&] { lsh_attention(in.q, in.k, in.v, o); }, "num_buckets: must be 1 or an even number in [2, 4096], got 3");
    o.num_buckets = 4098;
    test::check_error([&] { lsh_attention(in.q, in.k, in.v, o); }, "num_buckets");
    o = {};
    o.num_rounds = 0;
    test::check_error([&] { lsh_attention(in.q, in.k, in.v, o); }, "num_rounds: must be in [1, 64], got 0");
    o = {};
    o.chunk_length = 0;
    test::check_error([&] { lsh_attention(in.q, in.k, in.v, o); }, "chunk_length: must be in [1, 16777216], got 0");
    const auto other = test::random_qkv({1, 1, 8, 4}, 1, 9, 4, test::next_seed());
    test::check_error([&] { lsh_attention(other.q, other.k, other.v); }, "needs as many keys as queries");
    test::check_error([&] { lsh_attention_cost(0, 8, 4, 4, {}); }, "sizes must be >= 1");
}

TEST_CASE("LSH attended rounds: per (b, h), the rounds in which query i scored key j, as the buckets and chunks say") {
    const std::size_t cases[][4] = {{17, 4, 2, 5}, {113, 8, 3, 16}, {129, 2, 4, 129}, {1, 4, 2, 3}};
    for (const auto& c : cases) {
        const std::size_t n = c[0], buckets = c[1], rounds = c[2], m = c[3];
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " N=" << n << " buckets=" << buckets << " rounds=" << rounds << " m=" << m);
        const auto in = test::random_qkv({2, 1, n, 3}, 1, n, 2, seed);
        LshOptions o;
        o.num_buckets = buckets;
        o.num_rounds = rounds;
        o.chunk_length = m;
        o.seed = seed;
        CHECK(lsh_attention(in.q, in.k, in.v, o).attended_rounds.empty());
        o.record_attended = true;
        const auto r = lsh_attention(in.q, in.k, in.v, o);
        REQUIRE(r.attended_rounds.size() == 2 * n * n);
        for (std::size_t b = 0; b < 2; ++b) {
            const auto expected = round_counts(r.buckets.data() + b * rounds * n, rounds, n, m);
            CHECK(std::equal(expected.begin(), expected.end(), r.attended_rounds.begin() + b * n * n));
        }
        // Recording changes nothing else.
        o.record_attended = false;
        CHECK(lsh_attention(in.q, in.k, in.v, o).approx.output.data == r.approx.output.data);
    }
}

TEST_CASE("LSH 2-D sectors: arcs tile the circle once per round and hold exactly the tokens hashed to their bucket") {
    for (std::size_t buckets : {1u, 2u, 4u, 6u, 8u, 16u, 64u}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " buckets=" << buckets);
        const std::size_t n = 113, rounds = 3;
        const auto in = test::random_qkv({1, 1, n, 2}, 1, n, 2, seed);
        LshOptions o;
        o.num_buckets = buckets;
        o.num_rounds = rounds;
        o.seed = seed;
        const auto r = lsh_attention(in.q, in.k, in.v, o);
        const auto sectors = lsh_sectors_2d(o);
        for (std::size_t round = 0; round < rounds; ++round) {
            std::vector<LshSector> arcs;
            for (const auto& s : sectors) if (s.round == round) arcs.push_back(s);
            REQUIRE(!arcs.empty());
            CHECK(arcs.size() <= buckets);
            double total = 0;
            std::vector<int> seen(buckets, 0);
            for (std::size_t a = 0; a < arcs.size(); ++a) {
                CHECK(arcs[a].begin >= -kPi);
                CHECK(arcs[a].begin < kPi);
                CHECK(arcs[a].end > arcs[a].begin);
                total += arcs[a].end - arcs[a].begin;
                const double next = arcs[(a + 1) % arcs.size()].begin;  // contiguous, counter-clockwise
                CHECK(std::remainder(arcs[a].end - next, 2 * kPi) == doctest::Approx(0.0).epsilon(1e-12).scale(1));
                ++seen[arcs[a].bucket];
            }
            CHECK(total == doctest::Approx(2 * kPi).epsilon(1e-12));
            CHECK(std::all_of(seen.begin(), seen.end(), [](int k) { return k <= 1; }));  // a bucket is one cone
            for (std::size_t j = 0; j < n; ++j) {
                const double angle = std::atan2(in.q.at(0, 0, j, 1), in.q.at(0, 0, j, 0));
                const std::uint32_t bucket = r.buckets[round * n + j];
                const auto inside = std::find_if(arcs.begin(), arcs.end(), [&](const LshSector& s) {
                    return std::fmod(angle - s.begin + 4 * kPi, 2 * kPi) <= s.end - s.begin;
                });
                REQUIRE(inside != arcs.end());
                CHECK(inside->bucket == bucket);
            }
        }
    }
}

TEST_CASE("LSH sectors and the attended record reject what they cannot do") {
    LshOptions o;
    o.num_buckets = 66;
    test::check_error([&] { lsh_sectors_2d(o); }, "num_buckets: must be at most 64 for the 2-D sectors, got 66");
    o.num_buckets = 5;
    test::check_error([&] { lsh_sectors_2d(o); }, "num_buckets: must be 1 or an even number");
    o = {};
    o.record_attended = true;
    const auto in = test::random_qkv({1, 1, 4097, 1}, 1, 4097, 1, test::next_seed());
    test::check_error([&] { lsh_attention(in.q, in.k, in.v, o); }, "record_attended: B * H * N^2 must be at most 16777216");
}
