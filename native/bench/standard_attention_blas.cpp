#include "standard_attention_blas.hpp"

#include <cblas.h>

#include <cmath>
#include <vector>

#include "row_softmax.hpp"

namespace attn::bench {

Tensor4<float> standard_attention_blas(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v,
                                       Causal causal) {
    const std::size_t batch = q.shape.batch, heads = q.shape.heads, len = q.shape.seq, d = q.shape.dim;
    const std::size_t keys = k.shape.seq, dv = v.shape.dim, group = heads / k.shape.heads;
    const auto L = static_cast<blasint>(len), S = static_cast<blasint>(keys);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));

    std::vector<float> scores(batch * heads * len * keys);  // S, then P: the N^2 buffer
    Tensor4<float> out({batch, heads, len, dv});
    auto head_scores = [&](std::size_t b, std::size_t h) { return scores.data() + (b * heads + h) * len * keys; };

    for (std::size_t b = 0; b < batch; ++b) {
        for (std::size_t h = 0; h < heads; ++h) {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, L, S, static_cast<blasint>(d), scale, q.row(b, h, 0),
                        static_cast<blasint>(d), k.row(b, h / group, 0), static_cast<blasint>(d), 0.0f,
                        head_scores(b, h), S);
        }
    }

    parallel_rows(batch * heads * len, [&](std::size_t r) {
        softmax_row(scores.data() + r * keys, keys, causal_key_end(r % len, len, keys, causal));
    });

    for (std::size_t b = 0; b < batch; ++b) {
        for (std::size_t h = 0; h < heads; ++h) {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, L, static_cast<blasint>(dv), S, 1.0f,
                        head_scores(b, h), S, v.row(b, h / group, 0), static_cast<blasint>(dv), 0.0f, out.row(b, h, 0),
                        static_cast<blasint>(dv));
        }
    }
    return out;
}

}  // namespace attn::bench
