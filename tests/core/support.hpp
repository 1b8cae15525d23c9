#pragma once
// Helpers shared by the core test suites: fresh seeded inputs and error measures.
//
// Every run draws new inputs: the base seed comes from std::random_device unless the
// environment sets ATTN_TEST_SEED, and each case reports its seed through doctest's INFO, so a
// failure prints the seed that reproduces it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include "attn/error.hpp"
#include "attn/random.hpp"
#include "attn/tensor.hpp"

namespace attn::test {

inline std::uint64_t base_seed() {
    static const std::uint64_t seed = []() -> std::uint64_t {
        if (const char* env = std::getenv("ATTN_TEST_SEED")) return std::stoull(env);
        std::random_device rd;
        return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    }();
    return seed;
}

// A new seed for every call, derived from the run's base seed.
inline std::uint64_t next_seed() {
    static std::uint64_t counter = 0;
    return splitmix64(base_seed() + ++counter);
}

inline Tensor4<double> randn(Shape4 shape, std::uint64_t seed) { return random_normal(shape, seed); }

struct Qkv {
    Tensor4<double> q, k, v;
};

// Q of shape q_shape; K and V with kv_heads heads of kv_len rows (head_dim and value_dim wide).
inline Qkv random_qkv(Shape4 q_shape, std::size_t kv_heads, std::size_t kv_len, std::size_t value_dim,
                      std::uint64_t seed) {
    return {randn(q_shape, seed), randn({q_shape.batch, kv_heads, kv_len, q_shape.dim}, seed + 1),
            randn({q_shape.batch, kv_heads, kv_len, value_dim}, seed + 2)};
}

// Rounds to float and back, so a double reference sees exactly the inputs a float run sees.
inline Tensor4<double> float_rounded(const Tensor4<double>& t) {
    return tensor_cast<double>(tensor_cast<float>(t));
}

// random_qkv with every value exactly representable in float, for float-vs-double comparisons.
inline Qkv random_float_qkv(Shape4 q_shape, std::size_t kv_heads, std::size_t kv_len, std::size_t value_dim,
                            std::uint64_t seed) {
    auto in = random_qkv(q_shape, kv_heads, kv_len, value_dim, seed);
    return {float_rounded(in.q), float_rounded(in.k), float_rounded(in.v)};
}

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Expects `call` to throw attn::Error whose message contains `expected`.
template <class F>
void check_error(F&& call, const std::string& expected) {
    try {
        call();
        FAIL("expected attn::Error mentioning '" << expected << "'");
    } catch (const Error& e) {
        INFO("message: " << e.what());
        CHECK(std::string(e.what()).find(expected) != std::string::npos);
    }
}

template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
    REQUIRE(a.size() == b.size());
    double worst = 0;
    for (std::size_t n = 0; n < a.size(); ++n) {
        const double x = static_cast<double>(a[n]), y = static_cast<double>(b[n]);
        if (std::isnan(x) != std::isnan(y)) return INFINITY;  // std::max would drop a NaN difference
        if (std::isnan(x)) continue;
        if (std::isinf(x) || std::isinf(y)) {
            if (x != y) return INFINITY;
            continue;
        }
        worst = std::max(worst, std::abs(x - y));
    }
    return worst;
}

}  // namespace attn::test
