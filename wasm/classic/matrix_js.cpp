#include "matrix_js.hpp"

#include "convert.hpp"

namespace attn::wasm {

val pair_to_js(std::size_t a, std::size_t b) {
    val arr = val::array();
    arr.call<void>("push", a, b);
    return arr;
}

val matrix_to_js(const classic::Matrix& m) {
    val out = val::object();
    out.set("data", typed_array(m.data));
    out.set("shape", pair_to_js(m.rows, m.cols));
    return out;
}

}  // namespace attn::wasm
