#include "cost_args.hpp"

#include "convert.hpp"
#include "limits.hpp"

namespace attn::wasm {

cost::AttentionShape cost_shape_arg(const emscripten::val& in) {
    cost::AttentionShape s;
    s.batch = integer_arg(in, "batch", 1, 65536, 1);
    s.heads = integer_arg(in, "heads", 1, 4096, 1);
    s.q_len = required_integer(in, "qLen", 1, kMaxCostSeqLen);
    s.kv_len = integer_arg(in, "kvLen", 1, kMaxCostSeqLen, s.q_len);
    s.head_dim = required_integer(in, "headDim", 1, 1024);
    s.value_dim = integer_arg(in, "valueDim", 1, 1024, s.head_dim);
    s.causal = causal_arg(in);
    return s;
}

}  // namespace attn::wasm
