// Sinusoidal positional encodings: the Sec. 3.5 formula, the linear-offset property the paper
// chose them for, and why they are needed -- self-attention without them is permutation-
// equivariant, with them it is not.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "attn/classic/multi_head.hpp"
#include "attn/classic/positional_encoding.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::classic;

namespace {

// Angles up to ~1e4 rad lose ~1e4 * 2^-53 ~ 1e-12 in sin/cos arguments.
constexpr double kTol = 1e-11;

// Token l of the result is token perm[l] of x.
Tensor4<double> permute_tokens(const Tensor4<double>& x, const std::vector<std::size_t>& perm) {
    Tensor4<double> y(x.shape);
    for (std::size_t b = 0; b < x.shape.batch; ++b)
        for (std::size_t l = 0; l < x.shape.seq; ++l)
            std::copy(x.row(b, 0, perm[l]), x.row(b, 0, perm[l]) + x.shape.dim, y.row(b, 0, l));
    return y;
}

std::vector<std::size_t> random_permutation(std::size_t n, std::uint64_t seed) {
    std::vector<std::size_t> p(n);
    std::iota(p.begin(), p.end(), 0);
    for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[splitmix64(seed + i) % i]);  // Fisher-Yates
    if (n > 1 && std::is_sorted(p.begin(), p.end())) std::swap(p[0], p[1]);             // never the identity
    return p;
}

}  // namespace

TEST_CASE("classic positional: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...)") {
    for (std::size_t d : {2, 6, 64, 512}) {
        CAPTURE(d);
        const Matrix pe = sinusoidal_positional_encoding(129, d);
        REQUIRE(pe.rows == 129);
        REQUIRE(pe.cols == d);
        for (std::size_t pos : {0, 1, 17, 128}) {
            for (std::size_t i = 0; i < d / 2; ++i) {
                const double angle = static_cast<double>(pos) / std::pow(10000.0, 2.0 * double(i) / double(d));
                CHECK(std::abs(pe.at(pos, 2 * i) - std::sin(angle)) < kTol);
                CHECK(std::abs(pe.at(pos, 2 * i + 1) - std::cos(angle)) < kTol);
            }
        }
    }
    // Every row has squared norm d/2 (d/2 pairs of sin^2 + cos^2).
    const Matrix pe = sinusoidal_positional_encoding(50, 16, 100.0);
    for (std::size_t pos = 0; pos < 50; ++pos) {
        double n2 = 0;
        for (std::size_t c = 0; c < 16; ++c) n2 += pe.at(pos, c) * pe.at(pos, c);
        CHECK(n2 == doctest::Approx(8.0).epsilon(1e-14));
    }
}

TEST_CASE("classic positional: PE(pos + k) is a fixed linear function of PE(pos), Sec. 3.5") {
    const std::size_t d = 64;
    const Matrix pe = sinusoidal_positional_encoding(300, d);
    for (std::int64_t k : {-17, -1, 1, 3, 129}) {
        CAPTURE(k);
        const Matrix m = positional_offset_matrix(d, k);
        for (std::size_t pos = (k < 0 ? 17 : 0); pos + 129 < 300; pos += 37) {
            for (std::size_t r = 0; r < d; ++r) {
                double y = 0;
                for (std::size_t c = 0; c < d; ++c) y += m.at(r, c) * pe.at(pos, c);
                CHECK(std::abs(y - pe.at(static_cast<std::size_t>(static_cast<std::int64_t>(pos) + k), r)) < kTol);
            }
        }
    }
}

TEST_CASE("classic positional: self-attention without PE is permutation-equivariant, adding PE breaks it") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (std::size_t n : {3, 17, 113}) {
        CAPTURE(n);
        const MultiHeadWeights w = random_multi_head_weights(16, 4, 4, 4, seed + n);
        const Tensor4<double> x = test::randn({2, 1, n, 16}, seed + n + 1);
        const std::vector<std::size_t> perm = random_permutation(n, seed + n + 2);
        // f(P x) = P f(x): every output row moves with its token and keeps its value.
        const Tensor4<double> out = self_attention(x, w).output;
        const Tensor4<double> out_of_permuted = self_attention(permute_tokens(x, perm), w).output;
        CHECK(test::max_abs_diff(out_of_permuted.data, permute_tokens(out, perm).data) < 1e-12);
        // The same token sequence with positions added: permuting the tokens (positions stay where
        // they are) changes what each token computes.
        const Tensor4<double> with_pe = self_attention(add_positional_encoding(x), w).output;
        const Tensor4<double> with_pe_permuted = self_attention(add_positional_encoding(permute_tokens(x, perm)), w).output;
        CHECK(test::max_abs_diff(with_pe_permuted.data, permute_tokens(with_pe, perm).data) > 1e-3);
    }
}

TEST_CASE("classic positional: invalid arguments throw attn::Error naming them") {
    test::check_error([] { sinusoidal_positional_encoding(4, 7); }, "d_model: sinusoids come in (sin, cos) pairs");
    test::check_error([] { sinusoidal_positional_encoding(0, 8); }, "num_positions: must be in [1, 65536], got 0");
    test::check_error([] { sinusoidal_positional_encoding(4, 8, 1.0); }, "base: must be finite and > 1");
    test::check_error([] { add_positional_encoding(Tensor4<double>({1, 2, 3, 4})); }, "x: must be [batch >= 1, 1,");
    test::check_error([] { positional_offset_matrix(8, 70000); }, "offset: must be in [-65536, 65536], got 70000");
}
