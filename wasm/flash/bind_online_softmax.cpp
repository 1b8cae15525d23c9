// JavaScript class OnlineSoftmax: the (m, l, acc) state of one query row, so a page can feed
// tiles of scores itself and watch the state change (see core online_softmax.hpp).
// Instances live in wasm memory: call .delete() when done, as with every Embind class.
#include <emscripten/bind.h>

#include <cmath>
#include <limits>
#include <string>

#include "attn/attention/online_softmax.hpp"
#include "convert.hpp"
#include "limits.hpp"

namespace attn::wasm {
namespace {

class OnlineSoftmaxJs {
public:
    explicit OnlineSoftmaxJs(std::size_t value_dim) : acc_(value_dim, 0.0f) {}

    static OnlineSoftmaxJs* create(const val& value_dim) {
        // Constructors cannot return a JS exception through guarded(): the message is thrown
        // directly, from static storage (a JS throw skips nothing here but this frame).
        static std::string message;
        try {
            val holder = val::object();
            holder.set("valueDim", value_dim);
            if (value_dim.isUndefined()) throw Error("valueDim: missing");
            return new OnlineSoftmaxJs(integer_arg(holder, "valueDim", 1, kMaxValueDim, 1));
        } catch (const std::exception& e) {
            message = e.what();
        }
        val::global("Error").new_(val(message)).throw_();
    }

    // Folds a tile: `scores` (n numbers, -Infinity for masked keys) and `values` (n x valueDim,
    // row-major). Returns the rescale factor applied to the previous state.
    val update(const val& scores_js, const val& values_js) {
        return guarded([&] {
            // Both lengths are checked before anything is copied, in size arithmetic that cannot
            // wrap (size_t is 32 bits in WebAssembly), and every entry before the state changes.
            const std::size_t n = array_length_arg(scores_js, "scores", 0, kMaxTensorElements);
            const std::size_t expected = checked_product(n, acc_.size(), kMaxTensorElements, "scores.length * valueDim");
            const std::size_t got = array_length_arg(values_js, "values", 0, kMaxTensorElements);
            if (got != expected) {
                throw Error("values: expected scores.length * valueDim = " + std::to_string(expected) + " numbers, got " +
                            std::to_string(got));
            }
            std::vector<float> scores(n), values(expected);
            copy_numbers(scores_js, "scores", scores.data(), n);
            copy_numbers(values_js, "values", values.data(), expected);
            for (std::size_t j = 0; j < scores.size(); ++j) {
                if (std::isnan(scores[j]) || scores[j] == std::numeric_limits<float>::infinity()) {
                    throw Error("scores: entry " + std::to_string(j) + " is NaN or +Infinity; use -Infinity for a masked key");
                }
            }
            for (std::size_t i = 0; i < values.size(); ++i) {
                if (!std::isfinite(values[i])) throw Error("values: entry " + std::to_string(i) + " is not finite");
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
