#include "attn/attention/sdpa.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "attn/random.hpp"
#include "score_row.hpp"

namespace attn {

bool dropout_keeps(std::uint64_t seed, double p, std::size_t b, std::size_t h, std::size_t i, std::size_t j) {
    if (p == 0.0) return true;
    // One counter per (b, h, i, j); the multipliers are odd 64-bit constants that spread the
    // coordinates so neighbouring positions get unrelated hashes.
    const std::uint64_t counter = splitmix64(b * 0x9E3779B97F4A7C15ull ^ h * 0xC2B2AE3D27D4EB4Full) ^
                                  splitmix64(i * 0x165667B19E3779F9ull ^ j * 0xD6E8FEB86659FD93ull);
    return uniform_from_hash(seed, counter) >= p;
}

template <class T>
SdpaResult<T> sdpa(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v, const SdpaOptions& options) {
    const AttentionProblem p = validate_attention(q, k, v, options);
    if (!(options.dropout_p >= 0.0 && options.dropout_p < 1.0)) {
        throw Error("dropout_p: must be in [0, 1), got " + std::to_string(options.dropout_p));
    }
    const T keep_scale = static_cast<T>(1.0 / (1.0 - options.dropout_p));

    SdpaResult<T> r{Tensor4<T>(p.output_shape()), std::vector<T>(p.batch * p.q_heads * p.q_len), {}};
    if (options.return_probs) r.probs.assign(p.batch * p.q_heads * p.q_len * p.kv_len, T(0));

    std::vector<T> weights(p.kv_len);
    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            const std::size_t kvh = p.kv_head_of(h);
            for (std::size_t i = 0; i < p.q_len; ++i) {
                const std::size_t row_index = (b * p.q_heads + h) * p.q_len + i;
                detail::score_row(p, options, q, k, b, h, i, 0, p.kv_len, weights.data());

                T max_score = -std::numeric_limits<T>::infinity();
                for (T s : weights) max_score = s > max_score ? s : max_score;
                T* out = r.output.row(b, h, i);
                if (max_score == -std::numeric_limits<T>::infinity()) {  // no key allowed: zeros, not NaN
                    r.lse[row_index] = -std::numeric_limits<T>::infinity();
                    continue;
                }
                T sum = 0;
                for (T& w : weights) {
                    w = std::exp(w - max_score);
                    sum += w;
                }
                r.lse[row_index] = max_score + std::log(sum);
                for (std::size_t j = 0; j < p.kv_len; ++j) {
                    T w = weights[j] / sum;
                    if (options.dropout_p > 0) {
                        w = dropout_keeps(options.dropout_seed, options.dropout_p, b, h, i, j) ? w * keep_scale : T(0);
                    }
                    if (options.return_probs) r.probs[row_index * p.kv_len + j] = w;
                    const T* vj = v.row(b, kvh, j);
                    for (std::size_t c = 0; c < p.value_dim; ++c) out[c] += w * vj[c];
                }
            }
        }
    }
    return r;
}

template SdpaResult<float> sdpa(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&,
                                const SdpaOptions&);
template SdpaResult<double> sdpa(const Tensor4<double>&, const Tensor4<double>&, const Tensor4<double>&,
                                 const SdpaOptions&);

}  // namespace attn
