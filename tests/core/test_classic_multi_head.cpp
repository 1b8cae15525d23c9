// Multi-head self- and cross-attention against attn::sdpa run per head on projections computed
// here (double, tolerance 1e-12), with key padding and causal masks, L_dec != L_enc, and the
// mask rules of cross-attention.
#include <cmath>
#include <vector>

#include "attn/attention/sdpa.hpp"
#include "attn/classic/multi_head.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::classic;

namespace {

// Projections and attention sum at most a few hundred O(1) terms in double: errors ~1e-14.
constexpr double kTol = 1e-12;

// X W_i for every head, written independently of the implementation: [B, h, L, width].
Tensor4<double> reference_projection(const Tensor4<double>& x, const std::vector<double>& w, std::size_t heads,
                                     std::size_t width) {
    const std::size_t dm = x.shape.dim;
    Tensor4<double> y({x.shape.batch, heads, x.shape.seq, width});
    for (std::size_t b = 0; b < x.shape.batch; ++b)
        for (std::size_t h = 0; h < heads; ++h)
            for (std::size_t l = 0; l < x.shape.seq; ++l)
                for (std::size_t c = 0; c < width; ++c) {
                    double s = 0;
                    for (std::size_t m = 0; m < dm; ++m) s += x.at(b, 0, l, m) * w[(h * dm + m) * width + c];
                    y.at(b, h, l, c) = s;
                }
    return y;
}

struct Case {
    std::size_t batch, q_len, kv_len, d_model, heads, head_dim, value_dim;
};

// Runs self- (x_kv == nullptr) or cross-attention and compares every returned tensor with sdpa.
void check_against_sdpa(const Case& c, bool cross, bool causal, bool padded, std::uint64_t seed) {
    CAPTURE(c.batch);
    CAPTURE(c.q_len);
    CAPTURE(c.kv_len);
    CAPTURE(c.heads);
    CAPTURE(cross);
    CAPTURE(causal);
    CAPTURE(padded);
    const MultiHeadWeights w = random_multi_head_weights(c.d_model, c.heads, c.head_dim, c.value_dim, seed);
    const Tensor4<double> xq = test::randn({c.batch, 1, c.q_len, c.d_model}, seed + 1);
    const Tensor4<double> xkv = cross ? test::randn({c.batch, 1, c.kv_len, c.d_model}, seed + 2) : xq;
    MultiHeadOptions o;
    o.causal = causal;
    if (padded) {
        for (std::size_t b = 0; b < c.batch; ++b) o.key_lengths.push_back(1 + (b * 7 + seed % 5) % xkv.shape.seq);
    }
    const MultiHeadResult r = cross ? cross_attention(xq, xkv, w, o) : self_attention(xq, w, o);

    const Tensor4<double> q = reference_projection(xq, w.w_q, c.heads, c.head_dim);
    const Tensor4<double> k = reference_projection(xkv, w.w_k, c.heads, c.head_dim);
    const Tensor4<double> v = reference_projection(xkv, w.w_v, c.heads, c.value_dim);
    CHECK(test::max_abs_diff(r.q.data, q.data) < kTol);
    CHECK(test::max_abs_diff(r.k.data, k.data) < kTol);
    CHECK(test::max_abs_diff(r.v.data, v.data) < kTol);

    // The mask SDPA is given: key j of batch b allowed iff j < length[b] and (not causal or j <= i).
    const std::size_t lq = xq.shape.seq, lk = xkv.shape.seq;
    std::vector<std::uint8_t> allowed(c.batch * lq * lk);
    for (std::size_t b = 0; b < c.batch; ++b)
        for (std::size_t i = 0; i < lq; ++i)
            for (std::size_t j = 0; j < lk; ++j)
                allowed[(b * lq + i) * lk + j] = (!padded || j < o.key_lengths[b]) && (!causal || j <= i);
    CHECK(r.mask.shape == Shape4{c.batch, 1, lq, lk});
    CHECK(r.mask.data == allowed);
    SdpaOptions so;
    so.mask = AttentionMask::boolean({c.batch, 1, lq, lk}, allowed);
    so.return_probs = true;
    const SdpaResult<double> ref = sdpa(q, k, v, so);
    CHECK(test::max_abs_diff(r.head_outputs.data, ref.output.data) < kTol);
    CHECK(test::max_abs_diff(r.weights.data, ref.probs) < kTol);

    // Concat(heads) W^O.
    Tensor4<double> out({c.batch, 1, lq, c.d_model});
    for (std::size_t b = 0; b < c.batch; ++b)
        for (std::size_t i = 0; i < lq; ++i)
            for (std::size_t m = 0; m < c.d_model; ++m) {
                double s = 0;
                for (std::size_t h = 0; h < c.heads; ++h)
                    for (std::size_t x = 0; x < c.value_dim; ++x)
                        s += ref.output.at(b, h, i, x) * w.w_o[(h * c.value_dim + x) * c.d_model + m];
                out.at(b, 0, i, m) = s;
            }
    CHECK(test::max_abs_diff(r.output.data, out.data) < kTol);
}

}  // namespace

TEST_CASE("classic multi-head: self-attention equals sdpa per head, with and without causal and padding masks") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (const Case& c : {Case{1, 1, 1, 1, 1, 1, 1}, Case{2, 3, 3, 8, 2, 4, 4}, Case{3, 17, 17, 12, 3, 5, 7},
                          Case{1, 113, 113, 16, 4, 4, 4}}) {
        for (bool causal : {false, true}) {
            for (bool padded : {false, true}) check_against_sdpa(c, false, causal, padded, seed + c.q_len);
        }
    }
}

TEST_CASE("classic multi-head: cross-attention with L_dec != L_enc equals sdpa per head, with encoder padding") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    for (const Case& c : {Case{1, 1, 3, 4, 1, 2, 2}, Case{2, 3, 17, 8, 2, 4, 3}, Case{3, 17, 5, 6, 3, 2, 2},
                          Case{2, 127, 129, 8, 2, 4, 4}}) {
        for (bool padded : {false, true}) check_against_sdpa(c, true, false, padded, seed + c.kv_len);
    }
}

TEST_CASE("classic multi-head: padded keys get zero weight and do not change the valid part") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    // Batch entry 0 has 5 valid encoder tokens out of 9; rerunning it on the 5 tokens alone must
    // give the same outputs, whatever the padding holds.
    const MultiHeadWeights w = random_multi_head_weights(6, 2, 3, 3, seed);
    const Tensor4<double> dec = test::randn({1, 1, 4, 6}, seed + 1);
    const Tensor4<double> enc = test::randn({1, 1, 9, 6}, seed + 2);
    Tensor4<double> enc5({1, 1, 5, 6});
    std::copy(enc.data.begin(), enc.data.begin() + 30, enc5.data.begin());
    MultiHeadOptions o;
    o.key_lengths = {5};
    const MultiHeadResult padded = cross_attention(dec, enc, w, o);
    const MultiHeadResult trimmed = cross_attention(dec, enc5, w);
    CHECK(test::max_abs_diff(padded.output.data, trimmed.output.data) < kTol);
    for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t i = 0; i < 4; ++i)
            for (std::size_t j = 5; j < 9; ++j) CHECK(padded.weights.at(0, h, i, j) == 0.0);
    // A custom scale reaches the scores: scale 0 gives uniform weights over the valid keys.
    o.scale = 0.0;
    const MultiHeadResult flat = cross_attention(dec, enc, w, o);
    CHECK(flat.weights.at(0, 1, 2, 3) == doctest::Approx(0.2).epsilon(1e-14));
}

TEST_CASE("classic multi-head: causal self-attention row i ignores tokens after i") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const MultiHeadWeights w = random_multi_head_weights(8, 2, 4, 4, seed);
    const Tensor4<double> x = test::randn({1, 1, 7, 8}, seed + 1);
    Tensor4<double> changed = x;
    for (std::size_t m = 0; m < 8; ++m) changed.at(0, 0, 6, m) += 3.0;  // alter the last token only
    MultiHeadOptions o;
    o.causal = true;
    const MultiHeadResult a = self_attention(x, w, o), b = self_attention(changed, w, o);
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t m = 0; m < 8; ++m) CHECK(a.output.at(0, 0, i, m) == b.output.at(0, 0, i, m));
    CHECK(a.output.at(0, 0, 6, 0) != b.output.at(0, 0, 6, 0));
}

TEST_CASE("classic multi-head: invalid arguments throw attn::Error naming them") {
    const MultiHeadWeights w = random_multi_head_weights(4, 2, 2, 3, 1);
    const Tensor4<double> dec = test::randn({2, 1, 3, 4}, 2), enc = test::randn({2, 1, 5, 4}, 3);
    MultiHeadOptions causal;
    causal.causal = true;
    test::check_error([&] { cross_attention(dec, enc, w, causal); }, "cross-attention is never causal");
    CHECK_NOTHROW(self_attention(dec, w, causal));
    test::check_error([&] { cross_attention(dec, test::randn({1, 1, 5, 4}, 3), w); }, "encoder: batch must equal");
    test::check_error([&] { self_attention(test::randn({2, 1, 3, 5}, 4), w); }, "x: must be [batch >= 1, 1, seq >= 1, d_model = 4]");
    test::check_error([&] { cross_attention(dec, test::randn({2, 2, 5, 4}, 3), w); }, "encoder: must be");
    MultiHeadOptions lengths;
    lengths.key_lengths = {5};
    test::check_error([&] { cross_attention(dec, enc, w, lengths); }, "key_lengths: must be empty or hold one length per batch entry (2)");
    lengths.key_lengths = {5, 6};
    test::check_error([&] { cross_attention(dec, enc, w, lengths); }, "key_lengths: must be in [1, 5], got 6");
    lengths.key_lengths = {0, 5};
    test::check_error([&] { cross_attention(dec, enc, w, lengths); }, "key_lengths: must be in [1, 5], got 0");
    MultiHeadOptions scale;
    scale.scale = INFINITY;
    test::check_error([&] { self_attention(dec, w, scale); }, "scale: must be finite");
    MultiHeadWeights bad = w;
    bad.w_o.pop_back();
    test::check_error([&] { self_attention(dec, bad, {}); }, "w_o: must hold num_heads * value_dim * d_model = 24");
    bad = w;
    bad.w_k[0] = NAN;
    test::check_error([&] { self_attention(dec, bad, {}); }, "w_k: every value must be finite");
    Tensor4<double> nan_x = dec;
    nan_x.data[3] = NAN;
    test::check_error([&] { self_attention(nan_x, w, {}); }, "x: every value must be finite");
    test::check_error([] { random_multi_head_weights(4, 0, 2, 2, 1); }, "num_heads: must be in [1, 256], got 0");
}
