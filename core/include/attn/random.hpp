#pragma once
// Seeded, platform-independent random inputs. The visualizations draw their Q, K, V from here
// (not from Math.random) so a seed in the URL reproduces the same numbers in every browser,
// and tests can print the seed of a failing case.
#include <cstdint>

#include "attn/tensor.hpp"

namespace attn {

// SplitMix64 (Steele, Lea & Flood 2014): a counter-based generator, so any element can be
// drawn independently of the order in which elements are visited.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Uniform in [0, 1) from the 53 high bits of a hash of (seed, counter).
constexpr double uniform_from_hash(std::uint64_t seed, std::uint64_t counter) {
    return static_cast<double>(splitmix64(seed ^ splitmix64(counter)) >> 11) * 0x1.0p-53;
}

// Standard normal entries (Box-Muller) scaled by `stddev`; throws if stddev is not finite and > 0.
Tensor4<double> random_normal(Shape4 shape, std::uint64_t seed, double stddev = 1.0);

}  // namespace attn
