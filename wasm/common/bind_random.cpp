// randomNormal, bound into every module: the seeded inputs a figure draws are identical in every
// browser and in the native tests (SplitMix64 + Box-Muller, attn/random.hpp).
#include <emscripten/bind.h>

#include <cmath>
#include <vector>

#include "attn/random.hpp"
#include "convert.hpp"
#include "limits.hpp"

namespace attn::wasm {
namespace {

// Every parameter is a val: a typed parameter (double) would make Embind convert a BigInt or a
// Symbol itself, throwing its own TypeError after it has taken a handle on the shape.
val random_normal_js(const val& shape_holder, const val& seed_js, const val& stddev_js) {
    return guarded([&] {
        val args = val::object();
        args.set("shape", shape_holder);
        args.set("seed", seed_js);
        args.set("stddev", stddev_js);
        const Shape4 shape = shape_arg(args, "shape", kMaxTensorElements);
        if (seed_js.isUndefined()) throw Error("seed: missing");
        if (stddev_js.isUndefined()) throw Error("stddev: missing");
        const std::size_t seed = integer_arg(args, "seed", 0, kMaxSeed, 0);
        const double stddev = number_arg(args, "stddev", 0, 1e30, 1);
        const auto t = random_normal(shape, static_cast<std::uint64_t>(seed), stddev);
        const std::vector<float> values(t.data.begin(), t.data.end());
        return to_float32_array(values);
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(random) { emscripten::function("randomNormal", &attn::wasm::random_normal_js); }
