#include "attn/tensor.hpp"

namespace attn {

std::string Shape4::str() const {
    return "[" + std::to_string(batch) + ", " + std::to_string(heads) + ", " + std::to_string(seq) + ", " +
           std::to_string(dim) + "]";
}

}  // namespace attn
