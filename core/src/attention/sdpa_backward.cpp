#include "attn/attention/sdpa_backward.hpp"

#include <cmath>
#include <string>

#include "attn/attention/sdpa.hpp"

namespace attn {

template <class T>
AttentionGradients<T> sdpa_backward(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                    const Tensor4<T>& d_o, const AttentionOptions& options) {
    const AttentionProblem p = validate_attention(q, k, v, options);
    if (!(d_o.shape == p.output_shape()) || d_o.data.size() != d_o.shape.numel()) {
        throw Error("d_o: must have the output's shape " + p.output_shape().str() + ", got " + d_o.shape.str());
    }
    for (std::size_t n = 0; n < d_o.data.size(); ++n) {
        if (!std::isfinite(d_o.data[n])) {
            throw Error("d_o: element " + std::to_string(n) + " is not finite; inputs must be finite numbers");
        }
    }
    SdpaOptions so;
    static_cast<AttentionOptions&>(so) = options;
    so.return_probs = true;
    const std::vector<T> probs = sdpa(q, k, v, so).probs;  // [B, Hq, L, S]

    AttentionGradients<T> g{Tensor4<T>(q.shape), Tensor4<T>(k.shape), Tensor4<T>(v.shape)};
    const T scale = static_cast<T>(p.scale);
    std::vector<T> dp(p.kv_len);
    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            const std::size_t kvh = p.kv_head_of(h);
            for (std::size_t i = 0; i < p.q_len; ++i) {
                const T* prow = &probs[((b * p.q_heads + h) * p.q_len + i) * p.kv_len];
                const T* doi = d_o.row(b, h, i);
                T delta = 0;
                for (std::size_t j = 0; j < p.kv_len; ++j) {
                    const T* vj = v.row(b, kvh, j);
                    T dot = 0;
                    for (std::size_t c = 0; c < p.value_dim; ++c) dot += doi[c] * vj[c];
                    dp[j] = dot;
                    delta += prow[j] * dot;
                }
                T* dqi = g.dq.row(b, h, i);
                const T* qi = q.row(b, h, i);
                for (std::size_t j = 0; j < p.kv_len; ++j) {
                    const T ds = prow[j] * (dp[j] - delta);
                    T* dvj = g.dv.row(b, kvh, j);
                    for (std::size_t c = 0; c < p.value_dim; ++c) dvj[c] += prow[j] * doi[c];
                    const T* kj = k.row(b, kvh, j);
                    T* dkj = g.dk.row(b, kvh, j);
                    for (std::size_t c = 0; c < p.head_dim; ++c) {
                        dqi[c] += scale * ds * kj[c];
                        dkj[c] += scale * ds * qi[c];
                    }
                }
            }
        }
    }
    return g;
}

template AttentionGradients<float> sdpa_backward(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&,
                                                 const Tensor4<float>&, const AttentionOptions&);
template AttentionGradients<double> sdpa_backward(const Tensor4<double>&, const Tensor4<double>&,
                                                  const Tensor4<double>&, const Tensor4<double>&,
                                                  const AttentionOptions&);

}  // namespace attn
