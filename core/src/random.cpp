#include "attn/random.hpp"

#include <cmath>
#include <numbers>

namespace attn {

Tensor4<double> random_normal(Shape4 shape, std::uint64_t seed, double stddev) {
    if (!std::isfinite(stddev) || stddev <= 0) {
        throw Error("stddev: must be finite and > 0, got " + std::to_string(stddev));
    }
    Tensor4<double> t(shape);
    // Box-Muller: element n uses the uniform pair drawn from counters 2n and 2n+1.
    for (std::size_t n = 0; n < t.data.size(); ++n) {
        const double u1 = 1.0 - uniform_from_hash(seed, 2 * n);  // in (0, 1], so log is finite
        const double u2 = uniform_from_hash(seed, 2 * n + 1);
        t.data[n] = stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    }
    return t;
}

}  // namespace attn
