#include "attn/attention/options.hpp"

#include <cmath>
#include <string>

namespace attn {
namespace {

std::string str(std::size_t n) { return std::to_string(n); }

void require_positive_shape(const char* name, const Shape4& s) {
    if (s.batch == 0 || s.heads == 0 || s.seq == 0 || s.dim == 0) {
        throw Error(std::string(name) + ": every dimension must be >= 1, got shape " + s.str());
    }
}

template <class T>
void require_finite(const char* name, const Tensor4<T>& t) {
    if (t.data.size() != t.shape.numel()) {
        throw Error(std::string(name) + ": holds " + str(t.data.size()) + " elements but its shape " + t.shape.str() +
                    " needs " + str(t.shape.numel()));
    }
    for (std::size_t n = 0; n < t.data.size(); ++n) {
        if (!std::isfinite(t.data[n])) {
            throw Error(std::string(name) + ": element " + str(n) + " is not finite; inputs must be finite numbers");
        }
    }
}

void require_broadcastable(const Shape4& mask, const AttentionProblem& p) {
    const auto fits = [](std::size_t m, std::size_t full) { return m == 1 || m == full; };
    if (!fits(mask.batch, p.batch) || !fits(mask.heads, p.q_heads) || !fits(mask.seq, p.q_len) ||
        !fits(mask.dim, p.kv_len)) {
        throw Error("attn_mask: shape " + mask.str() + " does not broadcast to [B, H, L, S] = [" + str(p.batch) + ", " +
                    str(p.q_heads) + ", " + str(p.q_len) + ", " + str(p.kv_len) +
                    "]; each dimension must be 1 or equal to it");
    }
}

}  // namespace

AttentionMask AttentionMask::boolean(Shape4 shape, std::vector<std::uint8_t> allowed) {
    require_positive_shape("attn_mask", shape);
    if (allowed.size() != shape.numel()) {
        throw Error("attn_mask: expected " + str(shape.numel()) + " entries for shape " + shape.str() + ", got " +
                    str(allowed.size()));
    }
    AttentionMask m;
    m.kind = Kind::boolean;
    m.shape = shape;
    m.allowed = std::move(allowed);
    return m;
}

AttentionMask AttentionMask::additive(Shape4 shape, std::vector<float> bias) {
    require_positive_shape("attn_mask", shape);
    if (bias.size() != shape.numel()) {
        throw Error("attn_mask: expected " + str(shape.numel()) + " entries for shape " + shape.str() + ", got " +
                    str(bias.size()));
    }
    for (std::size_t n = 0; n < bias.size(); ++n) {
        // -inf blocks a key; NaN or +inf would turn the whole row into NaN.
        if (std::isnan(bias[n]) || bias[n] == std::numeric_limits<float>::infinity()) {
            throw Error("attn_mask: additive entry " + str(n) + " is NaN or +inf; allowed values are finite or -inf");
        }
    }
    AttentionMask m;
    m.kind = Kind::additive;
    m.shape = shape;
    m.bias = std::move(bias);
    return m;
}

template <class T>
AttentionProblem validate_attention(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                    const AttentionOptions& options) {
    require_positive_shape("query", q.shape);
    require_positive_shape("key", k.shape);
    require_positive_shape("value", v.shape);
    if (k.shape.batch != q.shape.batch || v.shape.batch != q.shape.batch) {
        throw Error("key/value: batch size must equal the query's (" + str(q.shape.batch) + "), got key " +
                    str(k.shape.batch) + " and value " + str(v.shape.batch));
    }
    if (v.shape.heads != k.shape.heads) {
        throw Error("value: must have as many heads as key (" + str(k.shape.heads) + "), got " + str(v.shape.heads));
    }
    if (q.shape.heads % k.shape.heads != 0) {
        throw Error("key: its head count (" + str(k.shape.heads) + ") must divide the query's head count (" +
                    str(q.shape.heads) + ") for grouped-query attention");
    }
    if (v.shape.seq != k.shape.seq) {
        throw Error("value: sequence length must equal the key's (" + str(k.shape.seq) + "), got " + str(v.shape.seq));
    }
    if (k.shape.dim != q.shape.dim) {
        throw Error("key: head_dim must equal the query's (" + str(q.shape.dim) + "), got " + str(k.shape.dim));
    }
    require_finite("query", q);
    require_finite("key", k);
    require_finite("value", v);

    AttentionProblem p{q.shape.batch, q.shape.heads, k.shape.heads, q.shape.seq, k.shape.seq, q.shape.dim, v.shape.dim,
                       1.0 / std::sqrt(static_cast<double>(q.shape.dim))};
    if (options.scale) {
        if (!std::isfinite(*options.scale)) {
            throw Error("scale: must be a finite number, got " + std::to_string(*options.scale));
        }
        p.scale = *options.scale;
    }
    if (options.mask.kind != AttentionMask::Kind::none) {
        if (options.causal != Causal::none) {
            throw Error("attn_mask: cannot be combined with a causal flag (as in SDPA); fold the causal rule into the mask");
        }
        require_broadcastable(options.mask.shape, p);
        const std::size_t entries = options.mask.kind == AttentionMask::Kind::boolean ? options.mask.allowed.size()
                                                                                        : options.mask.bias.size();
        if (entries != options.mask.shape.numel()) {
            throw Error("attn_mask: holds " + str(entries) + " entries but its shape " + options.mask.shape.str() +
                        " needs " + str(options.mask.shape.numel()));
        }
    }
    return p;
}

template AttentionProblem validate_attention(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&,
                                             const AttentionOptions&);
template AttentionProblem validate_attention(const Tensor4<double>&, const Tensor4<double>&, const Tensor4<double>&,
                                             const AttentionOptions&);

}  // namespace attn
