#include "standard_attention_blas.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <thread>
#include <vector>

#include "attn/attention/fast_exp2.hpp"

namespace attn::bench {
namespace {

constexpr std::size_t kLanes = 16;  // independent partial results: lets the compiler keep a
                                    // whole SIMD register of them (a float sum is not reassociable)

// Softmax of one row of `count` scores in place, keys at and beyond `visible` masked.
void softmax_row(float* s, std::size_t count, std::size_t visible) {
    if (visible == 0) {
        std::fill(s, s + count, 0.0f);
        return;
    }
    float lane[kLanes];
    std::fill(lane, lane + kLanes, -std::numeric_limits<float>::infinity());
    const std::size_t whole = visible / kLanes * kLanes;
    for (std::size_t j = 0; j < whole; j += kLanes) {
        for (std::size_t t = 0; t < kLanes; ++t) lane[t] = s[j + t] > lane[t] ? s[j + t] : lane[t];
    }
    float max = *std::max_element(lane, lane + kLanes);
    for (std::size_t j = whole; j < visible; ++j) max = s[j] > max ? s[j] : max;

    const float shift = max * std::numbers::log2e_v<float>;
    std::fill(lane, lane + kLanes, 0.0f);
    for (std::size_t j = 0; j < whole; j += kLanes) {
        for (std::size_t t = 0; t < kLanes; ++t) {
            s[j + t] = fast_exp2(s[j + t] * std::numbers::log2e_v<float> - shift);
            lane[t] += s[j + t];
        }
    }
    float sum = 0.0f;
    for (std::size_t t = 0; t < kLanes; ++t) sum += lane[t];
    for (std::size_t j = whole; j < visible; ++j) {
        s[j] = fast_exp2(s[j] * std::numbers::log2e_v<float> - shift);
        sum += s[j];
    }
    const float inv = 1.0f / sum;
    for (std::size_t j = 0; j < visible; ++j) s[j] *= inv;
    std::fill(s + visible, s + count, 0.0f);
}

}  // namespace

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

    const std::size_t rows = batch * heads * len;
    const std::size_t workers = std::max(1u, std::thread::hardware_concurrency());
    auto softmax_rows = [&](std::size_t w) {
        for (std::size_t r = w; r < rows; r += workers) {
            softmax_row(scores.data() + r * keys, keys, causal_key_end(r % len, len, keys, causal));
        }
    };
    {
        std::vector<std::jthread> pool;
        for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(softmax_rows, w);
        softmax_rows(0);
    }

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
