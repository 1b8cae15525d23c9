#pragma once
// Statistics of reads timed in turn inside every iteration (decode_benchmarks.cpp): a read's
// median time, and one read's speed as a share of another's compared iteration by iteration. A
// virtual machine's bandwidth moves by tens of per cent within seconds, so only reads a few
// milliseconds apart compare; a ratio of two medians would compare different moments.
#include <vector>

namespace attn::bench {

// The median of the times (the mean of the middle two for an even count). Throws attn::Error when
// there are none.
double median(std::vector<double> seconds);

// 100 x reference_seconds[i] / measured_seconds[i] for every iteration i -- the measured read's
// speed as a percentage of the reference read's -- and the median of those. Throws attn::Error
// unless both hold the same positive number of times, all of them positive.
double median_speed_percent(const std::vector<double>& measured_seconds, const std::vector<double>& reference_seconds);

}  // namespace attn::bench
