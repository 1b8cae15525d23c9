// Retrieval-style inputs: dense attention retrieves each query's target key, and the top-1 check
// of the error report sees it.
#include "attn/approx/approx_report.hpp"
#include "attn/approx/retrieval_inputs.hpp"
#include "attn/attention/sdpa.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::approx;

TEST_CASE("retrieval inputs: every query is its target key plus noise, and dense attention retrieves it") {
    for (std::size_t n : {17u, 129u, 256u}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed=" << seed << " N=" << n);
        const auto in = retrieval_inputs({1, 2, n, 64}, n, 16, 0.0, 1.0, seed);
        for (std::size_t h = 0; h < 2; ++h) {
            for (std::size_t i = 0; i < n; ++i) {
                const std::uint32_t t = in.targets[h * n + i];
                REQUIRE(t < n);
                for (std::size_t c = 0; c < 64; ++c) CHECK(in.q.at(0, h, i, c) == in.k.at(0, h, t, c));
            }
        }
        const auto noisy = retrieval_inputs({1, 2, n, 64}, n, 16, 0.1, 2.0, seed);
        SdpaOptions so;
        so.return_probs = true;
        const auto dense = sdpa(noisy.q, noisy.k, noisy.v, so);
        std::size_t hits = 0;
        for (std::size_t row = 0; row < 2 * n; ++row) {
            const double* p = dense.probs.data() + row * n;
            hits += static_cast<std::size_t>(std::max_element(p, p + n) - p) == noisy.targets[row];
        }
        // The target scores ~2 sqrt(64) = 16 against N(0, 4) competitors: a miss needs a > 7-sigma
        // competitor (probability ~1e-12 per key); with ~0.999 of the weight on the target the
        // output is nearest to the target's value row.
        CHECK(hits == 2 * n);
        CHECK(compare_with_dense(dense.output, noisy.q, noisy.k, noisy.v).top1_preserved == 1.0);
    }
}

TEST_CASE("retrieval inputs reject bad sizes and noise") {
    test::check_error([] { retrieval_inputs({1, 1, 4, 4}, 0, 4, 0.1, 1.0, 1); }, "every size must be >= 1");
    test::check_error([] { retrieval_inputs({1, 1, 4, 4}, 4, 4, -1.0, 1.0, 1); }, "noise: must be in [0, 100], got -1");
    test::check_error([] { retrieval_inputs({1, 1, 4, 4}, 4, 4, 0.1, 0.0, 1); }, "sharpness: must be in (0, 100], got 0");
}
