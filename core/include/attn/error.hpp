#pragma once
// The one exception type of the core. Every public function validates its arguments and throws
// attn::Error with a message naming the argument and the allowed range; the WebAssembly
// bindings turn it into a JavaScript Error, so a bad slider value never aborts the module.
#include <stdexcept>
#include <string>

namespace attn {

class Error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

}  // namespace attn
