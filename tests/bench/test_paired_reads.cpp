// The statistics of reads timed in turn (native/bench/paired_reads.hpp): the median, and one
// read's speed as a share of another's, iteration by iteration.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "attn/error.hpp"
#include "paired_reads.hpp"

using attn::bench::median;
using attn::bench::median_speed_percent;

TEST_CASE("median: the middle time, or the mean of the middle two") {
    CHECK(median({3.0, 1.0, 2.0}) == 2.0);
    CHECK(median({4.0, 1.0, 3.0, 2.0}) == 2.5);
    CHECK(median({7.0}) == 7.0);
    CHECK_THROWS_AS(median({}), attn::Error);
}

TEST_CASE("median_speed_percent pairs the reads of each iteration") {
    // The machine halves its speed for the last two iterations; both reads slow down together, so
    // every iteration says the measured read runs at 50% of the reference's speed.
    const std::vector<double> reference{1.0, 1.0, 1.0, 2.0, 2.0};
    const std::vector<double> measured{2.0, 2.0, 2.0, 4.0, 4.0};
    CHECK(median_speed_percent(measured, reference) == doctest::Approx(50.0));
    // Three iterations read 80% and two 50%: the median of the pairs says 80%, where the ratio of
    // the two medians (1 s against 2 s) would say 50%, pairing the reference's quick moments with
    // the measured read's slow ones.
    CHECK(median_speed_percent({1.25, 1.25, 2.5, 4.0, 2.0}, {1.0, 1.0, 2.0, 2.0, 1.0}) == doctest::Approx(80.0));
    CHECK(median({1.0, 1.0, 2.0, 2.0, 1.0}) / median({1.25, 1.25, 2.5, 4.0, 2.0}) == doctest::Approx(0.5));
    // Faster than the reference reads above 100%.
    CHECK(median_speed_percent({0.5, 0.5, 0.5}, {1.0, 1.0, 1.0}) == doctest::Approx(200.0));
}

TEST_CASE("median_speed_percent refuses times it cannot pair") {
    CHECK_THROWS_AS(median_speed_percent({}, {}), attn::Error);
    CHECK_THROWS_AS(median_speed_percent({1.0, 2.0}, {1.0}), attn::Error);
    CHECK_THROWS_AS(median_speed_percent({1.0, 0.0}, {1.0, 1.0}), attn::Error);
    CHECK_THROWS_AS(median_speed_percent({1.0, 1.0}, {1.0, -1.0}), attn::Error);
    try {
        median_speed_percent({1.0, 2.0}, {1.0});
        FAIL("expected attn::Error");
    } catch (const attn::Error& e) {
        CHECK(std::string(e.what()).find("got 2 and 1") != std::string::npos);
    }
}
