// flash_forward_fast (the optimised FP32 CPU path) against the dense reference in double, and the
// vectorisable exp2 it relies on.
#include <cmath>

#include "attn/attention/fast_exp2.hpp"
#include "attn/attention/flash_forward_fast.hpp"
#include "reference.hpp"

using namespace attn;

namespace {

// FP32 inputs exactly representable in both runs, FP32 accumulation, N(0,1) data so |O| <= max|V|:
// the float flash_forward stays below 2e-5 on these sizes (test_flash_forward.cpp), and fast_exp2's
// ~2 ulp error adds nothing visible at that scale. A wrong rescale or mask shows up as >1e-2.
constexpr double kFloatTol = 2e-5;

void check_against_reference(const test::Qkv& in, const FastFlashOptions& fo) {
    SdpaOptions so;
    static_cast<AttentionOptions&>(so) = fo;
    const auto ref = sdpa(in.q, in.k, in.v, so);
    const auto fast =
        flash_forward_fast(tensor_cast<float>(in.q), tensor_cast<float>(in.k), tensor_cast<float>(in.v), fo);
    CHECK(fast.output.shape == ref.output.shape);
    CHECK(test::max_abs_diff(fast.output.data, ref.output.data) < kFloatTol);
    CHECK(test::max_abs_diff(fast.lse, ref.lse) < kFloatTol);
}

}  // namespace

TEST_CASE("fast_exp2 is within 3 float ulp of exp2, flushes below -126 to zero and keeps NaN") {
    double worst = 0;
    for (int n = -126 * 64; n <= 127 * 64; ++n) {
        const float x = static_cast<float>(n) / 64.0f + 0.0078125f * static_cast<float>(n % 7);
        if (x < -126.0f || x > 127.0f) continue;
        const double exact = std::exp2(static_cast<double>(x));
        worst = std::max(worst, std::abs(static_cast<double>(fast_exp2(x)) - exact) / exact);
    }
    INFO("worst relative error " << worst);
    CHECK(worst < 3 * 0x1p-24);
    CHECK(fast_exp2(0.0f) == 1.0f);
    CHECK(fast_exp2(-1.0f) == 0.5f);
    CHECK(fast_exp2(-126.5f) == 0.0f);
    CHECK(fast_exp2(-INFINITY) == 0.0f);
    CHECK(std::isnan(fast_exp2(NAN)));  // without undefined behaviour: the UBSan (fuzz) build runs this too
}

TEST_CASE("flash_forward_fast equals sdpa for odd sizes, L != S and both causal alignments") {
    test::for_each_odd_shape([](std::size_t L, std::size_t S, Causal causal, std::uint64_t seed) {
        // Head widths cycle through the micro-kernels' paths: 64-wide, 16-wide and narrow strips.
        const std::size_t d = (L + S) % 3 == 0 ? 64 : 17, dv = (L + S) % 2 == 0 ? 80 : 7;
        INFO("d=" << d << " dv=" << dv);
        FastFlashOptions o;
        o.causal = causal;
        o.num_threads = 1 + (L % 3);
        check_against_reference(test::random_float_qkv({1, 2, L, d}, 2, S, dv, seed), o);
    });
}

TEST_CASE("flash_forward_fast handles GQA, several batches, head dims 64 and 128 and a custom scale") {
    for (std::size_t d : {std::size_t{64}, std::size_t{128}}) {
        for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right}) {
            const std::uint64_t seed = test::next_seed();
            INFO("seed=" << seed << " d=" << d << " causal=" << static_cast<int>(causal));
            FastFlashOptions o;
            o.causal = causal;
            o.scale = 0.3;
            // 6 query heads share 2 K/V heads; 200 queries against 331 keys: ragged in both directions.
            check_against_reference(test::random_float_qkv({2, 6, 200, d}, 2, 331, d, seed), o);
        }
    }
}

TEST_CASE("flash_forward_fast gives zeros and lse -inf for rows that see no key") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    // Bottom-right alignment with L > S: the first L - S = 70 rows see nothing.
    const auto in = test::random_float_qkv({1, 1, 90, 32}, 1, 20, 32, seed);
    FastFlashOptions o;
    o.causal = Causal::bottom_right;
    const auto r = flash_forward_fast(tensor_cast<float>(in.q), tensor_cast<float>(in.k), tensor_cast<float>(in.v), o);
    for (std::size_t i = 0; i < 70; ++i) {
        CHECK(r.lse[i] == -INFINITY);
        for (std::size_t c = 0; c < 32; ++c) CHECK(r.output.at(0, 0, i, c) == 0.0f);
    }
    CHECK(std::isfinite(r.lse[70]));
    check_against_reference(in, o);
}

TEST_CASE("flash_forward_fast gives the same output whatever the thread count") {
    const std::uint64_t seed = test::next_seed();
    INFO("seed=" << seed);
    const auto in = test::random_float_qkv({1, 3, 300, 64}, 3, 300, 64, seed);
    const auto q = tensor_cast<float>(in.q), k = tensor_cast<float>(in.k), v = tensor_cast<float>(in.v);
    FastFlashOptions o;
    o.causal = Causal::top_left;
    o.num_threads = 1;
    const auto one = flash_forward_fast(q, k, v, o);
    for (std::size_t threads : {std::size_t{0}, std::size_t{2}, std::size_t{7}}) {
        o.num_threads = threads;
        CHECK(flash_forward_fast(q, k, v, o).output.data == one.output.data);  // tasks are independent: bitwise equal
    }
}

TEST_CASE("flash_forward_fast rejects invalid arguments") {
    const Tensor4<float> q({1, 2, 4, 8}), k({1, 2, 5, 8}), v({1, 2, 5, 8});
    test::check_error([&] { flash_forward_fast(q, Tensor4<float>({1, 2, 5, 9}), v); }, "head_dim");
    test::check_error([&] { flash_forward_fast(Tensor4<float>({1, 3, 4, 8}), k, v); }, "must divide the query's head count");
    FastFlashOptions o;
    o.num_threads = 1025;
    test::check_error([&] { flash_forward_fast(q, k, v, o); }, "num_threads: must be in [0, 1024]");
    o.num_threads = 0;
    o.mask = AttentionMask::boolean({1, 1, 4, 5}, std::vector<std::uint8_t>(20, 1));
    test::check_error([&] { flash_forward_fast(q, k, v, o); }, "attn_mask: flash_forward_fast supports causal masking only");
    o.mask = {};
    o.scale = INFINITY;
    test::check_error([&] { flash_forward_fast(q, k, v, o); }, "scale");
    Tensor4<float> bad = q;
    bad.data[3] = NAN;
    test::check_error([&] { flash_forward_fast(bad, k, v); }, "finite");
}
