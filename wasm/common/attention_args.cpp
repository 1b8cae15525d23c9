#include "attention_args.hpp"

#include <string>

namespace attn::wasm {

void require_attention_work(const Shape4& q, const Shape4& k, const Shape4& v, std::size_t limit) {
    // Every score is a D-long dot product and every output entry a sum over S weighted values.
    const double work = static_cast<double>(q.batch) * static_cast<double>(q.heads) * static_cast<double>(q.seq) *
                        static_cast<double>(k.seq) * static_cast<double>(q.dim + v.dim);
    if (work > static_cast<double>(limit)) {
        throw Error("qShape/kShape/vShape: batch * heads * L * S * (D + Dv) = " + std::to_string(static_cast<long long>(work)) +
                    " exceeds the in-browser limit of " + std::to_string(limit) +
                    " (about a second of work); use shorter sequences or narrower heads");
    }
}

Qkv qkv_arg(const val& in, std::size_t work_limit) {
    // Shapes first: the work bound is checked before any array is copied.
    require_attention_work(shape_arg(in, "qShape", kMaxTensorElements), shape_arg(in, "kShape", kMaxTensorElements),
                           shape_arg(in, "vShape", kMaxTensorElements), work_limit);
    return {tensor_arg(in, "q", "qShape", kMaxTensorElements), tensor_arg(in, "k", "kShape", kMaxTensorElements),
            tensor_arg(in, "v", "vShape", kMaxTensorElements)};
}

void require_score_budget(const Qkv& t) {
    const double scores = static_cast<double>(t.q.shape.batch) * static_cast<double>(t.q.shape.heads) *
                          static_cast<double>(t.q.shape.seq) * static_cast<double>(t.k.shape.seq);
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
