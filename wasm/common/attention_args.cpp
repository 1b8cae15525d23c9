#include "attention_args.hpp"

#include <string>

namespace attn::wasm {

Qkv qkv_arg(const val& in) {
    return {tensor_arg(in, "q", "qShape", kMaxTensorElements), tensor_arg(in, "k", "kShape", kMaxTensorElements),
            tensor_arg(in, "v", "vShape", kMaxTensorElements)};
}

void require_score_budget(const Qkv& t) {
    const double scores = static_cast<double>(t.q.shape.batch * t.q.shape.heads * t.q.shape.seq) *
                          static_cast<double>(t.k.shape.seq);
    if (scores > static_cast<double>(kMaxScoreElements)) {
        throw Error("qShape/kShape: batch * heads * L * S = " + std::to_string(static_cast<long long>(scores)) +
                    " exceeds the in-browser limit of " + std::to_string(kMaxScoreElements));
    }
}

void require_trace_length(const Qkv& t) {
    if (t.q.shape.seq > kMaxTraceLength || t.k.shape.seq > kMaxTraceLength) {
        throw Error("qShape/kShape: a traced run allows sequence lengths up to " + std::to_string(kMaxTraceLength) +
                    ", got L = " + std::to_string(t.q.shape.seq) + ", S = " + std::to_string(t.k.shape.seq));
    }
}

void require_trace_tiles(std::size_t tiles, bool from_sram) {
    if (tiles > kMaxTraceSteps) {
        throw Error(std::string(from_sram ? "sramElements" : "blockQ/blockK") + ": " + std::to_string(tiles) +
                    " tiles exceed the in-browser trace limit of " + std::to_string(kMaxTraceSteps) +
                    "; use larger blocks");
    }
}

val forward_result_js(const Tensor4<float>& output, const std::vector<float>& lse) {
    val out = val::object();
    out.set("output", to_float32_array(output.data));
    out.set("outputShape", shape_to_js(output.shape));
    out.set("lse", to_float32_array(lse));
    return out;
}

}  // namespace attn::wasm
