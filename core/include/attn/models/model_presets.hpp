#pragma once
// Transformer shapes of published models: what the posts' memory tables and the KV-cache sizes
// are computed from. Every number carries its source: the paper's table, or the model's official
// config.json on Hugging Face (repository and file path).
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace attn::models {

// A count from a primary source. 0 only where the field says what 0 means (sliding_window).
struct SourcedCount {
    std::uint64_t value;
    std::string_view source;
};

// Multi-head latent attention (DeepSeek-V2, arXiv:2405.04434, Sec. 2.1): keys and values are
// rebuilt from a cached latent c_KV of kv_lora_rank (d_c) values per token, plus one shared
// RoPE key of qk_rope_head_dim (d_h^R) values per token; each head's query/key has
// qk_nope_head_dim + qk_rope_head_dim dimensions, its value v_head_dim; queries pass through a
// latent of q_lora_rank (d'_c).
struct MlaDims {
    SourcedCount kv_lora_rank;      // d_c
    SourcedCount qk_rope_head_dim;  // d_h^R
    SourcedCount qk_nope_head_dim;  // d_h, the part of each head's key rebuilt from the latent
    SourcedCount v_head_dim;
    SourcedCount q_lora_rank;       // d'_c
};

struct ModelPreset {
    std::string_view id;    // stable key: "llama3-70b"
    std::string_view name;  // "Llama 3.1 70B"
    SourcedCount layers;
    SourcedCount hidden_size;  // d_model
    SourcedCount q_heads;
    SourcedCount kv_heads;     // == q_heads for MHA; fewer under GQA; for MLA the config's value (see mla)
    SourcedCount head_dim;     // per-head dimension of Q, K and V (MLA: the paper's d_h; see mla)
    SourcedCount max_context;  // tokens
    SourcedCount sliding_window;  // tokens a layer attends back to; 0 = full (causal) attention
    // Parameters one token's forward pass multiplies by: every parameter of a dense model (embeddings
    // included), the activated ones of a Mixture-of-Experts model (a batch whose tokens route to
    // different experts reads more). What a decode step must read besides the KV cache.
    SourcedCount active_parameters;
    std::optional<MlaDims> mla;   // set for multi-head latent attention models
    // Set for a Mixture-of-Experts model: all its parameters, every expert's, of which a token
    // activates active_parameters. A batch's tokens route to different experts, so a decode step
    // reads between the two; unset for a dense model, whose every parameter is active.
    std::optional<SourcedCount> total_parameters = std::nullopt;
};

// Every preset, in a stable order (oldest first).
std::span<const ModelPreset> model_presets();

// The preset with this id; throws attn::Error listing the valid ids otherwise.
const ModelPreset& model_preset(std::string_view id);

}  // namespace attn::models
