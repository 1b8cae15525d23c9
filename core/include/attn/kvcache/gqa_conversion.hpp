#pragma once
// Converting a multi-head checkpoint to grouped-query attention (Ainslie et al., "GQA",
// arXiv:2305.13245, Sec. 2.1, Fig. 1): the H key heads and the H value heads of each layer are
// split into G contiguous groups and every group's projection matrices are replaced by their
// mean. G = H leaves the model unchanged; G = 1 gives multi-query attention. The paper then
// "uptrains" for about 5% of the pre-training steps; this file does the conversion only.
//
// Query head h reads K/V head h / (H / G), as SDPA's enable_gqa does (options.hpp), so the
// converted projections feed attn::sdpa directly.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attn/tensor.hpp"

namespace attn::kvcache {

// One attention layer's input projections (no bias), each row-major [rows, model_dim]:
// w_q has q_heads * head_dim rows, w_k kv_heads * head_dim, w_v kv_heads * value_dim; the rows
// of head h are rows h * head_dim .. (h + 1) * head_dim - 1.
struct AttentionProjections {
    std::size_t model_dim = 0;
    std::size_t q_heads = 0;
    std::size_t kv_heads = 0;
    std::size_t head_dim = 0;
    std::size_t value_dim = 0;
    std::vector<double> w_q, w_k, w_v;
};

// Throws attn::Error naming the field when a size is 0 or above 2^16, kv_heads does not divide
// q_heads, a matrix has the wrong element count, or an entry is not finite.
void validate_projections(const AttentionProjections& p);

// Multi-head projections with i.i.d. N(0, 1/model_dim) entries (kv_heads = q_heads).
AttentionProjections random_mha_projections(std::size_t model_dim, std::size_t heads, std::size_t head_dim,
                                            std::size_t value_dim, std::uint64_t seed);

// The GQA-`groups` checkpoint of a multi-head layer (p.kv_heads == p.q_heads): the K and V rows
// of group g are the mean of those of heads g * H/G .. (g + 1) * H/G - 1; W_Q is unchanged.
// groups in [1, q_heads] and dividing q_heads.
AttentionProjections mean_pool_kv_heads(const AttentionProjections& mha, std::size_t groups);

struct ProjectedQkv {
    Tensor4<double> q;  // [B, q_heads, S, head_dim]
    Tensor4<double> k;  // [B, kv_heads, S, head_dim]
    Tensor4<double> v;  // [B, kv_heads, S, value_dim]
};

// Q, K, V of the hidden states x, shape [B, 1, S, model_dim], in SDPA's layout.
ProjectedQkv project_qkv(const AttentionProjections& p, const Tensor4<double>& x);

// Multi-head projections whose K and V heads resemble each other by `similarity` in [0, 1]: head h's
// rows are similarity * S + sqrt(1 - similarity^2) * R_h, with S one random block shared by every
// head and R_h the head's own (all N(0, 1/model_dim), so every head keeps the same scale). 0 gives
// independent heads (random_mha_projections' statistics), 1 identical K/V heads. W_Q is independent.
AttentionProjections similar_head_projections(std::size_t model_dim, std::size_t heads, std::size_t head_dim,
                                              std::size_t value_dim, double similarity, std::uint64_t seed);

// What the conversion does to a layer before any uptraining: for every group count G dividing
// q_heads, from q_heads down to 1, the relative Frobenius change ||O_G - O|| / ||O|| of the heads'
// attention outputs (attn::sdpa, the converted layer reading each group's pooled K/V) on the hidden
// states x, against the multi-head layer's own. G = q_heads gives 0.
struct GqaConversionEffect {
    std::size_t groups = 0;
    double relative_change = 0;
};
std::vector<GqaConversionEffect> gqa_conversion_effects(const AttentionProjections& mha, const Tensor4<double>& x);

}  // namespace attn::kvcache
