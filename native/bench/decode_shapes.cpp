#include "decode_shapes.hpp"

#include "attn/models/model_presets.hpp"

namespace attn::bench {

std::vector<DecodeShape> decode_shapes() {
    std::vector<DecodeShape> shapes;
    for (const char* id : {"llama3-8b", "llama3-70b"}) {
        const models::ModelPreset& m = models::model_preset(id);
        shapes.push_back({std::string(id), m.q_heads.value, m.kv_heads.value, m.head_dim.value});
    }
    return shapes;
}

}  // namespace attn::bench
