// JavaScript class OnlineSoftmax: the (m, l, acc) state of one query row, so a page can feed
// tiles of scores itself and watch the state change (see core online_softmax.hpp).
// Instances live in wasm memory: call .delete() when done, as with every Embind class.
#include <emscripten/bind.h>

#include <limits>

#include "attn/attention/online_softmax.hpp"
#include "convert.hpp"
#include "limits.hpp"

namespace attn::wasm {
namespace {

class OnlineSoftmaxJs {
public:
    explicit OnlineSoftmaxJs(std::size_t value_dim) : acc_(value_dim, 0.0f) {}

    static OnlineSoftmaxJs* create(double value_dim) {
        if (!(value_dim >= 1 && value_dim <= static_cast<double>(kMaxValueDim)) ||
            static_cast<double>(static_cast<std::size_t>(value_dim)) != value_dim) {
            // Constructors cannot return a JS exception through guarded(); throw it directly.
            val::global("Error").new_(val("valueDim: must be an integer in [1, " + std::to_string(kMaxValueDim) + "]")).throw_();
        }
        return new OnlineSoftmaxJs(static_cast<std::size_t>(value_dim));
    }

    // Folds a tile: `scores` (n numbers, -Infinity for masked keys) and `values` (n x valueDim,
    // row-major). Returns the rescale factor applied to the previous state.
    val update(const val& scores_js, const val& values_js) {
        return guarded([&] {
            const std::vector<float> scores = numbers(scores_js, "scores");
            const std::vector<float> values = numbers(values_js, "values");
            if (values.size() != scores.size() * acc_.size()) {
                throw Error("values: expected scores.length * valueDim = " + std::to_string(scores.size() * acc_.size()) +
                            " numbers, got " + std::to_string(values.size()));
            }
            for (std::size_t j = 0; j < scores.size(); ++j) {
                if (std::isnan(scores[j]) || scores[j] == std::numeric_limits<float>::infinity()) {
                    throw Error("scores: entry " + std::to_string(j) + " is NaN or +Infinity; use -Infinity for a masked key");
                }
            }
            for (std::size_t n = 0; n < values.size(); ++n) {
                if (!std::isfinite(values[n])) throw Error("values: entry " + std::to_string(n) + " is not finite");
            }
            return val(online_softmax::update(state_, acc_.data(), acc_.size(), scores.data(), scores.size(),
                                              values.data(), acc_.size()));
        });
    }

    void merge(const OnlineSoftmaxJs& other) {
        guarded([&] {
            if (other.acc_.size() != acc_.size()) {
                throw Error("other: valueDim must match (" + std::to_string(acc_.size()) + "), got " +
                            std::to_string(other.acc_.size()));
            }
            online_softmax::merge(state_, acc_.data(), other.state_, other.acc_.data(), acc_.size());
            return val::undefined();
        });
    }

    // { output: acc / l (zeros if no key was allowed), lse: m + log l (-Infinity then) }
    val finalize() const {
        std::vector<float> out(acc_.size());
        const float lse = online_softmax::finalize(state_, acc_.data(), acc_.size(), out.data());
        val r = val::object();
        r.set("output", to_float32_array(out));
        r.set("lse", lse);
        return r;
    }

    float m() const { return state_.m; }
    float l() const { return state_.l; }
    std::size_t value_dim() const { return acc_.size(); }
    val acc() const { return to_float32_array(acc_); }

private:
    static std::vector<float> numbers(const val& v, const char* name) {
        if (!v.instanceof(val::global("Float32Array")) && !v.isArray()) {
            throw Error(std::string(name) + ": must be a Float32Array or an array of numbers");
        }
        if (v["length"].as<std::size_t>() > kMaxTensorElements) {
            throw Error(std::string(name) + ": more than " + std::to_string(kMaxTensorElements) + " numbers");
        }
        return emscripten::convertJSArrayToNumberVector<float>(v);
    }

    online_softmax::State<float> state_;
    std::vector<float> acc_;
};

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(online_softmax) {
    using attn::wasm::OnlineSoftmaxJs;
    emscripten::class_<OnlineSoftmaxJs>("OnlineSoftmax")
        .constructor(&OnlineSoftmaxJs::create, emscripten::allow_raw_pointers())
        .function("update", &OnlineSoftmaxJs::update)
        .function("merge", &OnlineSoftmaxJs::merge)
        .function("finalize", &OnlineSoftmaxJs::finalize)
        .function("acc", &OnlineSoftmaxJs::acc)
        .property("m", &OnlineSoftmaxJs::m)
        .property("l", &OnlineSoftmaxJs::l)
        .property("valueDim", &OnlineSoftmaxJs::value_dim);
}
