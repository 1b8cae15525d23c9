#include "attn/attention/mla.hpp"

#include <cmath>
#include <string>

#include "attn/attention/sdpa.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn {
namespace {

constexpr std::size_t kMaxMlaSize = 4096;

void require_size(const char* name, std::size_t value) {
    if (value < 1 || value > kMaxMlaSize) {
        throw Error(std::string(name) + ": must be in [1, " + std::to_string(kMaxMlaSize) + "], got " +
                    std::to_string(value));
    }
}

void require_matrix(const char* name, const std::vector<double>& m, std::size_t rows, std::size_t cols) {
    if (m.size() != rows * cols) {
        throw Error(std::string(name) + ": expected " + std::to_string(rows) + " x " + std::to_string(cols) + " = " +
                    std::to_string(rows * cols) + " elements, got " + std::to_string(m.size()));
    }
    for (std::size_t n = 0; n < m.size(); ++n) {
        if (!std::isfinite(m[n])) throw Error(std::string(name) + ": element " + std::to_string(n) + " is not finite");
    }
}

void validate_shape(const MlaShape& s) {
    require_size("model_dim", s.model_dim);
    require_size("heads", s.heads);
    require_size("latent_dim", s.latent_dim);
    require_size("nope_dim", s.nope_dim);
    require_size("rope_dim", s.rope_dim);
    require_size("value_dim", s.value_dim);
    if (s.rope_dim % 2 != 0) {
        throw Error("rope_dim: RoPE rotates pairs of dimensions, so it must be even, got " + std::to_string(s.rope_dim));
    }
}

void validate_hidden(const char* name, const Tensor4<double>& x, std::size_t model_dim) {
    if (x.shape.batch < 1 || x.shape.heads != 1 || x.shape.seq < 1 || x.shape.dim != model_dim ||
        x.data.size() != x.shape.numel()) {
        throw Error(std::string(name) + ": expected shape [B >= 1, 1, S >= 1, " + std::to_string(model_dim) +
                    "], got " + x.shape.str());
    }
    for (std::size_t n = 0; n < x.data.size(); ++n) {
        if (!std::isfinite(x.data[n])) throw Error(std::string(name) + ": element " + std::to_string(n) + " is not finite");
    }
}

// y = W x for a row-major [rows, cols] matrix.
void matvec(const double* w, std::size_t rows, std::size_t cols, const double* x, double* y) {
    for (std::size_t r = 0; r < rows; ++r) {
        const double* wr = w + r * cols;
        double acc = 0;
        for (std::size_t c = 0; c < cols; ++c) acc += wr[c] * x[c];
        y[r] = acc;
    }
}

// out[b, h, s, :] = W_h x[b, 0, s, :] for a stacked matrix of `heads` blocks of `dim` rows.
Tensor4<double> project_heads(const std::vector<double>& w, std::size_t heads, std::size_t dim,
                              const Tensor4<double>& x) {
    Tensor4<double> out({x.shape.batch, heads, x.shape.seq, dim});
    for (std::size_t b = 0; b < x.shape.batch; ++b)
        for (std::size_t s = 0; s < x.shape.seq; ++s)
            for (std::size_t h = 0; h < heads; ++h) {
                matvec(w.data() + h * dim * x.shape.dim, dim, x.shape.dim, x.row(b, 0, s), out.row(b, h, s));
            }
    return out;
}

// [B, H, S, a] and [B, H, S, b] side by side -> [B, H, S, a + b].
Tensor4<double> concat_last(const Tensor4<double>& a, const Tensor4<double>& b) {
    Tensor4<double> r({a.shape.batch, a.shape.heads, a.shape.seq, a.shape.dim + b.shape.dim});
    for (std::size_t bb = 0; bb < a.shape.batch; ++bb)
        for (std::size_t h = 0; h < a.shape.heads; ++h)
            for (std::size_t s = 0; s < a.shape.seq; ++s) {
                double* out = r.row(bb, h, s);
                for (std::size_t d = 0; d < a.shape.dim; ++d) out[d] = a.at(bb, h, s, d);
                for (std::size_t d = 0; d < b.shape.dim; ++d) out[a.shape.dim + d] = b.at(bb, h, s, d);
            }
    return r;
}

// The last `len` tokens of x.
Tensor4<double> last_tokens(const Tensor4<double>& x, std::size_t len) {
    Tensor4<double> r({x.shape.batch, 1, len, x.shape.dim});
    const std::size_t first = x.shape.seq - len;
    for (std::size_t b = 0; b < x.shape.batch; ++b)
        for (std::size_t s = 0; s < len; ++s)
            for (std::size_t d = 0; d < x.shape.dim; ++d) r.at(b, 0, s, d) = x.at(b, 0, first + s, d);
    return r;
}

// u = sum_i W_i o_i: heads' outputs [B, H, L, in] through a [d, H * in] matrix -> [B, 1, L, d].
Tensor4<double> output_projection(const std::vector<double>& w, std::size_t model_dim, const Tensor4<double>& o) {
    const std::size_t heads = o.shape.heads, in = o.shape.dim;
    Tensor4<double> u({o.shape.batch, 1, o.shape.seq, model_dim});
    for (std::size_t b = 0; b < o.shape.batch; ++b)
        for (std::size_t l = 0; l < o.shape.seq; ++l)
            for (std::size_t r = 0; r < model_dim; ++r) {
                const double* wr = w.data() + r * heads * in;
                double acc = 0;
                for (std::size_t h = 0; h < heads; ++h) {
                    const double* oh = o.row(b, h, l);
                    for (std::size_t c = 0; c < in; ++c) acc += wr[h * in + c] * oh[c];
                }
                u.at(b, 0, l, r) = acc;
            }
    return u;
}

std::size_t query_len_of(const MlaOptions& o, std::size_t seq) {
    if (o.query_len > seq) {
        throw Error("query_len: must be in [0, " + std::to_string(seq) + "] (0 = every token), got " +
                    std::to_string(o.query_len));
    }
    return o.query_len == 0 ? seq : o.query_len;
}

double mla_scale(const MlaShape& s) { return 1.0 / std::sqrt(static_cast<double>(s.nope_dim + s.rope_dim)); }

}  // namespace

void validate_mla_weights(const MlaWeights& w) {
    const MlaShape& s = w.shape;
    validate_shape(s);
    require_matrix("w_dkv", w.w_dkv, s.latent_dim, s.model_dim);
    require_matrix("w_uk", w.w_uk, s.heads * s.nope_dim, s.latent_dim);
    require_matrix("w_uv", w.w_uv, s.heads * s.value_dim, s.latent_dim);
    require_matrix("w_kr", w.w_kr, s.rope_dim, s.model_dim);
    require_matrix("w_q", w.w_q, s.heads * s.nope_dim, s.model_dim);
    require_matrix("w_qr", w.w_qr, s.heads * s.rope_dim, s.model_dim);
    require_matrix("w_o", w.w_o, s.model_dim, s.heads * s.value_dim);
}

MlaWeights random_mla_weights(const MlaShape& s, std::uint64_t seed) {
    validate_shape(s);
    std::uint64_t stream = seed;
    const auto matrix = [&](std::size_t rows, std::size_t cols) {
        stream = splitmix64(stream);
        return random_normal({1, 1, rows, cols}, stream, 1.0 / std::sqrt(static_cast<double>(cols))).data;
    };
    MlaWeights w{s, {}, {}, {}, {}, {}, {}, {}};
    w.w_dkv = matrix(s.latent_dim, s.model_dim);
    w.w_uk = matrix(s.heads * s.nope_dim, s.latent_dim);
    w.w_uv = matrix(s.heads * s.value_dim, s.latent_dim);
    w.w_kr = matrix(s.rope_dim, s.model_dim);
    w.w_q = matrix(s.heads * s.nope_dim, s.model_dim);
    w.w_qr = matrix(s.heads * s.rope_dim, s.model_dim);
    w.w_o = matrix(s.model_dim, s.heads * s.value_dim);
    return w;
}

void MlaCache::append(const MlaCache& tail) {
    const Shape4 t = tail.latent.shape, r = tail.rope_key.shape;
    if (t.heads != 1 || r.heads != 1 || r.batch != t.batch || r.seq != t.seq || t.batch == 0 || t.dim == 0 ||
        r.dim == 0) {
        throw Error("tail: expected latent [B, 1, S, d_c] and rope_key [B, 1, S, d_R], got " + t.str() + " and " +
                    r.str());
    }
    if (tokens() == 0 && latent.shape.batch == 0) {
        *this = tail;
        return;
    }
    if (t.batch != latent.shape.batch || t.dim != latent.shape.dim || r.dim != rope_key.shape.dim) {
        throw Error("tail: shape " + t.str() + " / " + r.str() + " does not extend the cache's " + latent.shape.str() +
                    " / " + rope_key.shape.str());
    }
    const auto grow = [](Tensor4<double>& into, const Tensor4<double>& more) {
        Tensor4<double> g({into.shape.batch, 1, into.shape.seq + more.shape.seq, into.shape.dim});
        for (std::size_t b = 0; b < g.shape.batch; ++b) {
            for (std::size_t s = 0; s < into.shape.seq; ++s)
                for (std::size_t d = 0; d < g.shape.dim; ++d) g.at(b, 0, s, d) = into.at(b, 0, s, d);
            for (std::size_t s = 0; s < more.shape.seq; ++s)
                for (std::size_t d = 0; d < g.shape.dim; ++d) g.at(b, 0, into.shape.seq + s, d) = more.at(b, 0, s, d);
        }
        into = std::move(g);
    };
    grow(latent, tail.latent);
    grow(rope_key, tail.rope_key);
}

MlaCache mla_compress(const MlaWeights& w, const Tensor4<double>& x, std::uint64_t first_position,
                      const RopeOptions& rope) {
    validate_mla_weights(w);
    validate_hidden("x", x, w.shape.model_dim);
    return {project_heads(w.w_dkv, 1, w.shape.latent_dim, x),
            rope_rows(project_heads(w.w_kr, 1, w.shape.rope_dim, x), first_position, rope)};
}

MlaExplicitResult mla_explicit(const MlaWeights& w, const Tensor4<double>& x, const MlaOptions& options) {
    validate_mla_weights(w);
    validate_hidden("x", x, w.shape.model_dim);
    const MlaShape& s = w.shape;
    const std::size_t seq = x.shape.seq, len = query_len_of(options, seq);
    const MlaCache c = mla_compress(w, x, 0, options.rope);

    // Per-head keys [k^C; k^R] (k^R repeated for every head) and values, rebuilt from c.
    const Tensor4<double> k_content = project_heads(w.w_uk, s.heads, s.nope_dim, c.latent);
    Tensor4<double> k_rope({x.shape.batch, s.heads, seq, s.rope_dim});
    for (std::size_t b = 0; b < x.shape.batch; ++b)
        for (std::size_t h = 0; h < s.heads; ++h)
            for (std::size_t t = 0; t < seq; ++t)
                for (std::size_t d = 0; d < s.rope_dim; ++d) k_rope.at(b, h, t, d) = c.rope_key.at(b, 0, t, d);
    MlaExplicitResult r{{}, concat_last(k_content, k_rope), project_heads(w.w_uv, s.heads, s.value_dim, c.latent)};

    const Tensor4<double> xq = last_tokens(x, len);
    const Tensor4<double> q = concat_last(project_heads(w.w_q, s.heads, s.nope_dim, xq),
                                          rope_rows(project_heads(w.w_qr, s.heads, s.rope_dim, xq), seq - len,
                                                    options.rope));
    SdpaOptions so;
    so.scale = mla_scale(s);
    so.causal = options.causal;
    r.output = output_projection(w.w_o, s.model_dim, sdpa(q, r.k, r.v, so).output);
    return r;
}

AbsorbedMla absorb_mla(const MlaWeights& w) {
    validate_mla_weights(w);
    const MlaShape& s = w.shape;
    AbsorbedMla a{s, std::vector<double>(s.heads * s.latent_dim * s.model_dim, 0.0),
                  std::vector<double>(s.model_dim * s.heads * s.latent_dim, 0.0), w.w_qr};
    for (std::size_t h = 0; h < s.heads; ++h) {
        // W_UK,h^T W_Q,h: [d_c, d_h] x [d_h, d].
        for (std::size_t c = 0; c < s.latent_dim; ++c)
            for (std::size_t j = 0; j < s.nope_dim; ++j) {
                const double uk = w.w_uk[(h * s.nope_dim + j) * s.latent_dim + c];
                const double* wq = w.w_q.data() + (h * s.nope_dim + j) * s.model_dim;
                double* out = a.w_q_latent.data() + (h * s.latent_dim + c) * s.model_dim;
                for (std::size_t d = 0; d < s.model_dim; ++d) out[d] += uk * wq[d];
            }
        // W_O,h W_UV,h: [d, d_v] x [d_v, d_c].
        for (std::size_t r = 0; r < s.model_dim; ++r)
            for (std::size_t j = 0; j < s.value_dim; ++j) {
                const double wo = w.w_o[r * s.heads * s.value_dim + h * s.value_dim + j];
                const double* uv = w.w_uv.data() + (h * s.value_dim + j) * s.latent_dim;
                double* out = a.w_o_latent.data() + r * s.heads * s.latent_dim + h * s.latent_dim;
                for (std::size_t c = 0; c < s.latent_dim; ++c) out[c] += wo * uv[c];
            }
    }
    return a;
}

Tensor4<double> mla_absorbed_attend(const AbsorbedMla& a, const MlaCache& cache, const Tensor4<double>& x_q,
                                    std::uint64_t first_query_position, Causal causal, const RopeOptions& rope) {
    const MlaShape& s = a.shape;
    validate_shape(s);
    require_matrix("w_q_latent", a.w_q_latent, s.heads * s.latent_dim, s.model_dim);
    require_matrix("w_o_latent", a.w_o_latent, s.model_dim, s.heads * s.latent_dim);
    require_matrix("w_qr", a.w_qr, s.heads * s.rope_dim, s.model_dim);
    validate_hidden("x_q", x_q, s.model_dim);
    const Shape4 want_latent{x_q.shape.batch, 1, cache.tokens(), s.latent_dim};
    const Shape4 want_rope{x_q.shape.batch, 1, cache.tokens(), s.rope_dim};
    if (cache.tokens() == 0 || cache.latent.shape != want_latent || cache.rope_key.shape != want_rope) {
        throw Error("cache: expected latent " + want_latent.str() + " and rope_key " + want_rope.str() +
                    " with at least one token, got " + cache.latent.shape.str() + " and " +
                    cache.rope_key.shape.str());
    }
    // Queries [W_UK,i^T q^C_i; q^R_i] against the one shared key [c; k^R] and value c: MQA.
    const Tensor4<double> q =
        concat_last(project_heads(a.w_q_latent, s.heads, s.latent_dim, x_q),
                    rope_rows(project_heads(a.w_qr, s.heads, s.rope_dim, x_q), first_query_position, rope));
    SdpaOptions so;
    so.scale = mla_scale(s);  // the scale of the explicit heads: folding changes no score
    so.causal = causal;
    const SdpaResult<double> o = sdpa(q, concat_last(cache.latent, cache.rope_key), cache.latent, so);
    return output_projection(a.w_o_latent, s.model_dim, o.output);
}

MlaAbsorbedResult mla_absorbed(const MlaWeights& w, const Tensor4<double>& x, const MlaOptions& options) {
    validate_mla_weights(w);
    validate_hidden("x", x, w.shape.model_dim);
    const std::size_t seq = x.shape.seq, len = query_len_of(options, seq);
    MlaAbsorbedResult r{{}, mla_compress(w, x, 0, options.rope)};
    r.output = mla_absorbed_attend(absorb_mla(w), r.cache, last_tokens(x, len), seq - len, options.causal,
                                   options.rope);
    return r;
}

}  // namespace attn
