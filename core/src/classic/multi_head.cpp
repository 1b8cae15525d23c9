#include "attn/classic/multi_head.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>

#include "attn/classic/softmax.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn::classic {
namespace {

constexpr std::size_t kMaxWidth = 4096;
constexpr std::size_t kMaxHeads = 256;

void check_range(std::size_t value, std::size_t lo, std::size_t hi, const char* name) {
    if (value < lo || value > hi) {
        throw Error(std::string(name) + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                    std::to_string(value));
    }
}

void check_matrix(const std::vector<double>& m, std::size_t expected, const char* name, const char* shape) {
    if (m.size() != expected) {
        throw Error(std::string(name) + ": must hold " + shape + " = " + std::to_string(expected) + " values, got " +
                    std::to_string(m.size()));
    }
    for (double x : m) {
        if (!std::isfinite(x)) throw Error(std::string(name) + ": every value must be finite");
    }
}

void check_weights(const MultiHeadWeights& w) {
    check_range(w.d_model, 1, kMaxWidth, "d_model");
    check_range(w.num_heads, 1, kMaxHeads, "num_heads");
    check_range(w.head_dim, 1, kMaxWidth, "head_dim");
    check_range(w.value_dim, 1, kMaxWidth, "value_dim");
    check_matrix(w.w_q, w.num_heads * w.d_model * w.head_dim, "w_q", "num_heads * d_model * head_dim");
    check_matrix(w.w_k, w.num_heads * w.d_model * w.head_dim, "w_k", "num_heads * d_model * head_dim");
    check_matrix(w.w_v, w.num_heads * w.d_model * w.value_dim, "w_v", "num_heads * d_model * value_dim");
    check_matrix(w.w_o, w.num_heads * w.value_dim * w.d_model, "w_o", "num_heads * value_dim * d_model");
}

void check_sequence(const Tensor4<double>& x, std::size_t d_model, const char* name) {
    const Shape4& s = x.shape;
    if (s.heads != 1 || s.batch == 0 || s.seq == 0 || s.dim != d_model) {
        throw Error(std::string(name) + ": must be [batch >= 1, 1, seq >= 1, d_model = " + std::to_string(d_model) +
                    "], got " + s.str());
    }
    if (x.data.size() != s.numel()) throw Error(std::string(name) + ": holds the wrong number of values");
    for (double v : x.data) {
        if (!std::isfinite(v)) throw Error(std::string(name) + ": every value must be finite");
    }
}

// Y[b, h, l, :] = X[b, 0, l, :] W[h] for W [heads, d_model, width].
Tensor4<double> project(const Tensor4<double>& x, const std::vector<double>& w, std::size_t heads, std::size_t width) {
    const std::size_t d_model = x.shape.dim;
    Tensor4<double> y({x.shape.batch, heads, x.shape.seq, width});
    for (std::size_t b = 0; b < x.shape.batch; ++b) {
        for (std::size_t h = 0; h < heads; ++h) {
            const double* wh = w.data() + h * d_model * width;
            for (std::size_t l = 0; l < x.shape.seq; ++l) {
                const double* xr = x.row(b, 0, l);
                double* yr = y.row(b, h, l);
                for (std::size_t m = 0; m < d_model; ++m) {
                    for (std::size_t c = 0; c < width; ++c) yr[c] += xr[m] * wh[m * width + c];
                }
            }
        }
    }
    return y;
}

// The boolean mask shared by every head: key padding, and the causal triangle if requested.
Tensor4<std::uint8_t> build_mask(std::size_t batch, std::size_t q_len, std::size_t kv_len, const MultiHeadOptions& o) {
    Tensor4<std::uint8_t> mask({batch, 1, q_len, kv_len}, 1);
    for (std::size_t b = 0; b < batch; ++b) {
        const std::size_t valid = o.key_lengths.empty() ? kv_len : o.key_lengths[b];
        for (std::size_t i = 0; i < q_len; ++i) {
            for (std::size_t j = 0; j < kv_len; ++j) {
                mask.at(b, 0, i, j) = j < valid && (!o.causal || j <= i);
            }
        }
    }
    return mask;
}

MultiHeadResult attend(const Tensor4<double>& xq, const Tensor4<double>& xkv, const MultiHeadWeights& w,
                       const MultiHeadOptions& o) {
    const std::size_t batch = xq.shape.batch, heads = w.num_heads, q_len = xq.shape.seq, kv_len = xkv.shape.seq;
    if (!o.key_lengths.empty()) {
        if (o.key_lengths.size() != batch) {
            throw Error("key_lengths: must be empty or hold one length per batch entry (" + std::to_string(batch) +
                        "), got " + std::to_string(o.key_lengths.size()));
        }
        for (std::size_t len : o.key_lengths) check_range(len, 1, kv_len, "key_lengths");
    }
    if (o.scale && !std::isfinite(*o.scale)) throw Error("scale: must be finite");
    const double scale = o.scale.value_or(1.0 / std::sqrt(static_cast<double>(w.head_dim)));

    MultiHeadResult r;
    r.q = project(xq, w.w_q, heads, w.head_dim);
    r.k = project(xkv, w.w_k, heads, w.head_dim);
    r.v = project(xkv, w.w_v, heads, w.value_dim);
    r.mask = build_mask(batch, q_len, kv_len, o);
    r.weights = Tensor4<double>({batch, heads, q_len, kv_len});
    r.head_outputs = Tensor4<double>({batch, heads, q_len, w.value_dim});
    r.output = Tensor4<double>({batch, 1, q_len, w.d_model});

    std::vector<double> scores(kv_len);
    for (std::size_t b = 0; b < batch; ++b) {
        for (std::size_t h = 0; h < heads; ++h) {
            for (std::size_t i = 0; i < q_len; ++i) {
                const double* qi = r.q.row(b, h, i);
                for (std::size_t j = 0; j < kv_len; ++j) {
                    if (!r.mask.at(b, 0, i, j)) {
                        scores[j] = -std::numeric_limits<double>::infinity();
                        continue;
                    }
                    const double* kj = r.k.row(b, h, j);
                    double s = 0;
                    for (std::size_t c = 0; c < w.head_dim; ++c) s += qi[c] * kj[c];
                    scores[j] = scale * s;
                }
                // Every row keeps key 0 (lengths >= 1, causal row i sees key 0), so the softmax exists.
                const std::vector<double> p = softmax(scores);
                std::copy(p.begin(), p.end(), r.weights.row(b, h, i));
                double* out = r.head_outputs.row(b, h, i);
                for (std::size_t j = 0; j < kv_len; ++j) {
                    const double* vj = r.v.row(b, h, j);
                    for (std::size_t c = 0; c < w.value_dim; ++c) out[c] += p[j] * vj[c];
                }
            }
        }
        // Concat(head_1..head_h) W^O: head h's d_v outputs meet rows h*d_v .. h*d_v + d_v - 1 of W^O.
        for (std::size_t i = 0; i < q_len; ++i) {
            double* out = r.output.row(b, 0, i);
            for (std::size_t h = 0; h < heads; ++h) {
                const double* head = r.head_outputs.row(b, h, i);
                for (std::size_t c = 0; c < w.value_dim; ++c) {
                    const double* wo = w.w_o.data() + (h * w.value_dim + c) * w.d_model;
                    for (std::size_t m = 0; m < w.d_model; ++m) out[m] += head[c] * wo[m];
                }
            }
        }
    }
    return r;
}

}  // namespace

MultiHeadWeights random_multi_head_weights(std::size_t d_model, std::size_t num_heads, std::size_t head_dim,
                                           std::size_t value_dim, std::uint64_t seed) {
    check_range(d_model, 1, kMaxWidth, "d_model");
    check_range(num_heads, 1, kMaxHeads, "num_heads");
    check_range(head_dim, 1, kMaxWidth, "head_dim");
    check_range(value_dim, 1, kMaxWidth, "value_dim");
    const double in_std = 1.0 / std::sqrt(static_cast<double>(d_model));
    const double out_std = 1.0 / std::sqrt(static_cast<double>(num_heads * value_dim));
    MultiHeadWeights w{d_model, num_heads, head_dim, value_dim, {}, {}, {}, {}};
    w.w_q = random_normal({1, num_heads, d_model, head_dim}, splitmix64(seed), in_std).data;
    w.w_k = random_normal({1, num_heads, d_model, head_dim}, splitmix64(seed + 1), in_std).data;
    w.w_v = random_normal({1, num_heads, d_model, value_dim}, splitmix64(seed + 2), in_std).data;
    w.w_o = random_normal({1, 1, num_heads * value_dim, d_model}, splitmix64(seed + 3), out_std).data;
    return w;
}

MultiHeadResult self_attention(const Tensor4<double>& x, const MultiHeadWeights& weights,
                               const MultiHeadOptions& options) {
    check_weights(weights);
    check_sequence(x, weights.d_model, "x");
    return attend(x, x, weights, options);
}

MultiHeadResult cross_attention(const Tensor4<double>& decoder, const Tensor4<double>& encoder,
                                const MultiHeadWeights& weights, const MultiHeadOptions& options) {
    if (options.causal) {
        throw Error(
            "causal: cross-attention is never causal. Its keys are encoder positions of the source sentence, all "
            "known before decoding starts, and the target side is already causal through the decoder's "
            "self-attention (Vaswani et al. 2017, Sec. 3.2.3); mask encoder padding with key_lengths instead");
    }
    check_weights(weights);
    check_sequence(decoder, weights.d_model, "decoder");
    check_sequence(encoder, weights.d_model, "encoder");
    if (decoder.shape.batch != encoder.shape.batch) {
        throw Error("encoder: batch must equal the decoder's batch (" + std::to_string(decoder.shape.batch) +
                    "), got " + std::to_string(encoder.shape.batch));
    }
    return attend(decoder, encoder, weights, options);
}

}  // namespace attn::classic
