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

val random_normal_js(const val& shape_holder, double seed, double stddev) {
    return guarded([&] {
        val args = val::object();
        args.set("shape", shape_holder);
        const Shape4 shape = shape_arg(args, "shape", kMaxTensorElements);
        if (!(seed >= 0 && seed <= static_cast<double>(kMaxSeed)) || std::floor(seed) != seed) {
            throw Error("seed: must be an integer in [0, " + std::to_string(kMaxSeed) + "]");
        }
        const auto t = random_normal(shape, static_cast<std::uint64_t>(seed), stddev);
        const std::vector<float> values(t.data.begin(), t.data.end());
        return to_float32_array(values);
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(random) { emscripten::function("randomNormal", &attn::wasm::random_normal_js); }
