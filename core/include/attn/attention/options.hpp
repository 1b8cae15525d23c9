#pragma once
// The arguments every exact-attention algorithm shares, with PyTorch
// scaled_dot_product_attention semantics, and their validation.
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "attn/attention/causal.hpp"
#include "attn/tensor.hpp"

namespace attn {

// attn_mask of SDPA. Its shape is [B or 1, H or 1, L or 1, S or 1]: every dimension either
// matches the attention problem or is 1 and broadcasts (a 2-D [L, S] mask is {1, 1, L, S}).
struct AttentionMask {
    enum class Kind { none, boolean, additive };
    Kind kind = Kind::none;
    Shape4 shape;
    std::vector<std::uint8_t> allowed;  // Kind::boolean: nonzero = may attend (SDPA's convention)
    std::vector<float> bias;            // Kind::additive: added to the scaled scores; -inf blocks

    static AttentionMask boolean(Shape4 shape, std::vector<std::uint8_t> allowed);
    static AttentionMask additive(Shape4 shape, std::vector<float> bias);

    // The term added to score (b, h, i, j): 0 or -inf for boolean masks, the bias otherwise.
    double bias_at(std::size_t b, std::size_t h, std::size_t i, std::size_t j) const {
        const std::size_t idx = ((((shape.batch == 1 ? 0 : b) * shape.heads + (shape.heads == 1 ? 0 : h)) * shape.seq +
                                  (shape.seq == 1 ? 0 : i)) * shape.dim) + (shape.dim == 1 ? 0 : j);
        if (kind == Kind::boolean) return allowed[idx] ? 0.0 : -std::numeric_limits<double>::infinity();
        if (kind == Kind::additive) return bias[idx];
        return 0.0;
    }
};

struct AttentionOptions {
    std::optional<double> scale;  // any finite number; default 1/sqrt(head_dim)
    Causal causal = Causal::none;
    AttentionMask mask;  // may not be combined with causal, as in SDPA
};

// The sizes of one attention problem after validation. Q is [B, Hq, L, D], K is [B, Hkv, S, D],
// V is [B, Hkv, S, Dv]; query head h reads key/value head h / (Hq / Hkv), as SDPA's enable_gqa
// (K/V repeated with repeat_interleave along the head axis).
struct AttentionProblem {
    std::size_t batch, q_heads, kv_heads, q_len, kv_len, head_dim, value_dim;
    double scale;

    std::size_t kv_head_of(std::size_t q_head) const { return q_head / (q_heads / kv_heads); }
    Shape4 output_shape() const { return {batch, q_heads, q_len, value_dim}; }
};

// Checks shapes, head grouping, scale, mask shape and values, and that the inputs are finite.
// Throws attn::Error naming the offending argument and the allowed range.
template <class T>
AttentionProblem validate_attention(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                    const AttentionOptions& options);

}  // namespace attn
