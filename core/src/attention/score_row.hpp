#pragma once
// Private to the core: the masked, scaled scores of one query row against a range of keys,
// shared by the dense reference and the tiled algorithm so both apply masks identically.
#include <limits>

#include "attn/attention/options.hpp"

namespace attn::detail {

// out[j - key_begin] = scale * <q_i, k_j> + mask(b, h, i, j), or -inf where the key is masked,
// for keys j in [key_begin, key_end).
template <class T>
void score_row(const AttentionProblem& p, const AttentionOptions& options, const Tensor4<T>& q, const Tensor4<T>& k,
               std::size_t b, std::size_t h, std::size_t i, std::size_t key_begin, std::size_t key_end, T* out) {
    const std::size_t causal_end = causal_key_end(i, p.q_len, p.kv_len, options.causal);
    const T* qi = q.row(b, h, i);
    const std::size_t kvh = p.kv_head_of(h);
    for (std::size_t j = key_begin; j < key_end; ++j) {
        T& s = out[j - key_begin];
        if (j >= causal_end) {
            s = -std::numeric_limits<T>::infinity();
            continue;
        }
        const T* kj = k.row(b, kvh, j);
        T dot = 0;
        for (std::size_t c = 0; c < p.head_dim; ++c) dot += qi[c] * kj[c];
        s = static_cast<T>(p.scale) * dot;
        if (options.mask.kind != AttentionMask::Kind::none) s += static_cast<T>(options.mask.bias_at(b, h, i, j));
    }
}

}  // namespace attn::detail
