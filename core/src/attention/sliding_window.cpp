#include "attn/attention/sliding_window.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/attention/online_softmax.hpp"

namespace attn {
namespace {

std::string str(std::size_t n) { return std::to_string(n); }

constexpr std::size_t kMaxMaskLength = std::size_t{1} << 14;
constexpr std::size_t kMaxInfluenceWork = std::size_t{1} << 26;

void require_window(std::size_t window) {
    if (window < 1) throw Error("window: must be >= 1, got 0");
}

// The window rule alone: key j visible to query i.
bool in_window(std::size_t i, std::size_t j, std::size_t window) { return j <= i && i - j < window; }

}  // namespace

AttentionMask sliding_window_mask(std::size_t seq_len, std::size_t window) {
    require_window(window);
    if (seq_len < 1 || seq_len > kMaxMaskLength) {
        throw Error("seq_len: must be in [1, " + str(kMaxMaskLength) + "], got " + str(seq_len));
    }
    std::vector<std::uint8_t> allowed(seq_len * seq_len);
    for (std::size_t i = 0; i < seq_len; ++i) {
        for (std::size_t j = 0; j < seq_len; ++j) allowed[i * seq_len + j] = in_window(i, j, window);
    }
    return AttentionMask::boolean({1, 1, seq_len, seq_len}, std::move(allowed));
}

template <class T>
RollingKvCache<T>::RollingKvCache(std::size_t window, std::size_t kv_heads, std::size_t head_dim, std::size_t value_dim)
    : window_(window), kv_heads_(kv_heads), head_dim_(head_dim), value_dim_(value_dim) {
    require_window(window);
    if (kv_heads < 1 || head_dim < 1 || value_dim < 1) {
        throw Error("kv_heads/head_dim/value_dim: must all be >= 1, got " + str(kv_heads) + ", " + str(head_dim) + ", " +
                    str(value_dim));
    }
    keys_.assign(kv_heads * window * head_dim, T(0));
    values_.assign(kv_heads * window * value_dim, T(0));
}

template <class T>
void RollingKvCache<T>::append(const std::vector<T>& key_rows, const std::vector<T>& value_rows) {
    if (key_rows.size() != kv_heads_ * head_dim_ || value_rows.size() != kv_heads_ * value_dim_) {
        throw Error("key_rows/value_rows: need kv_heads x head_dim = " + str(kv_heads_ * head_dim_) +
                    " and kv_heads x value_dim = " + str(kv_heads_ * value_dim_) + " entries, got " +
                    str(key_rows.size()) + " and " + str(value_rows.size()));
    }
    for (T x : key_rows) if (!std::isfinite(x)) throw Error("key_rows: elements must be finite numbers");
    for (T x : value_rows) if (!std::isfinite(x)) throw Error("value_rows: elements must be finite numbers");
    // Rolling buffer: position i overwrites slot i mod W, i.e. position i - W, which has left
    // every later query's window.
    const std::size_t slot = seen_ % window_;
    for (std::size_t h = 0; h < kv_heads_; ++h) {
        std::copy_n(&key_rows[h * head_dim_], head_dim_, &keys_[(h * window_ + slot) * head_dim_]);
        std::copy_n(&value_rows[h * value_dim_], value_dim_, &values_[(h * window_ + slot) * value_dim_]);
    }
    ++seen_;
}

template <class T>
std::size_t RollingKvCache<T>::slot_of(std::size_t position) const {
    if (position >= seen_ || seen_ - position > window_) {
        throw Error("position: " + str(position) + " is not cached; cached positions are [" + str(seen_ - size()) + ", " +
                    str(seen_) + ")");
    }
    return position % window_;
}

template <class T>
std::vector<T> RollingKvCache<T>::attend(const std::vector<T>& query, std::size_t q_heads, std::optional<double> scale,
                                         std::vector<T>& output) const {
    if (seen_ == 0) throw Error("attend: the cache is empty; append the current position's K/V first");
    if (q_heads < 1 || q_heads % kv_heads_ != 0) {
        throw Error("q_heads: must be a positive multiple of kv_heads (" + str(kv_heads_) + "), got " + str(q_heads));
    }
    if (query.size() != q_heads * head_dim_) {
        throw Error("query: needs q_heads x head_dim = " + str(q_heads * head_dim_) + " entries, got " + str(query.size()));
    }
    for (T x : query) if (!std::isfinite(x)) throw Error("query: elements must be finite numbers");
    if (scale && !std::isfinite(*scale)) throw Error("scale: must be a finite number");
    const T s = static_cast<T>(scale.value_or(1.0 / std::sqrt(static_cast<double>(head_dim_))));
    const std::size_t n = size(), group = q_heads / kv_heads_;
    output.assign(q_heads * value_dim_, T(0));
    std::vector<T> lse(q_heads), scores(n), acc(value_dim_);
    for (std::size_t h = 0; h < q_heads; ++h) {
        const std::size_t kvh = h / group;
        // Slots hold positions in rotated order; softmax does not care about key order.
        for (std::size_t slot = 0; slot < n; ++slot) {
            const T* kr = &keys_[(kvh * window_ + slot) * head_dim_];
            T dot = 0;
            for (std::size_t c = 0; c < head_dim_; ++c) dot += query[h * head_dim_ + c] * kr[c];
            scores[slot] = s * dot;
        }
        online_softmax::State<T> st;
        std::fill(acc.begin(), acc.end(), T(0));
        online_softmax::update(st, acc.data(), value_dim_, scores.data(), n, &values_[kvh * window_ * value_dim_],
                               value_dim_);
        lse[h] = online_softmax::finalize(st, acc.data(), value_dim_, &output[h * value_dim_]);
    }
    return lse;
}

template <class T>
SlidingWindowResult<T> sliding_window_decode(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                             std::size_t window, std::optional<double> scale) {
    AttentionOptions o;
    o.scale = scale;
    const AttentionProblem p = validate_attention(q, k, v, o);
    require_window(window);
    if (p.q_len != p.kv_len) {
        throw Error("key: decoding needs one K/V row per query position (" + str(p.q_len) + "), got " + str(p.kv_len));
    }
    SlidingWindowResult<T> r{Tensor4<T>(p.output_shape()), std::vector<T>(p.batch * p.q_heads * p.q_len), {}};
    std::vector<T> krows(p.kv_heads * p.head_dim), vrows(p.kv_heads * p.value_dim), qrow(p.q_heads * p.head_dim), out;
    for (std::size_t b = 0; b < p.batch; ++b) {
        RollingKvCache<T> cache(window, p.kv_heads, p.head_dim, p.value_dim);
        for (std::size_t i = 0; i < p.q_len; ++i) {
            for (std::size_t h = 0; h < p.kv_heads; ++h) {
                std::copy_n(k.row(b, h, i), p.head_dim, &krows[h * p.head_dim]);
                std::copy_n(v.row(b, h, i), p.value_dim, &vrows[h * p.value_dim]);
            }
            for (std::size_t h = 0; h < p.q_heads; ++h) std::copy_n(q.row(b, h, i), p.head_dim, &qrow[h * p.head_dim]);
            cache.append(krows, vrows);
            const std::vector<T> lse = cache.attend(qrow, p.q_heads, p.scale, out);
            for (std::size_t h = 0; h < p.q_heads; ++h) {
                std::copy_n(&out[h * p.value_dim], p.value_dim, r.output.row(b, h, i));
                r.lse[(b * p.q_heads + h) * p.q_len + i] = lse[h];
            }
            if (b == 0) r.cache_size.push_back(cache.size());
        }
    }
    return r;
}

ReceptiveField sliding_window_receptive_field(std::size_t layers, std::size_t window) {
    if (layers < 1 || layers > (std::size_t{1} << 20)) throw Error("layers: must be in [1, 1048576], got " + str(layers));
    if (window < 1 || window > (std::size_t{1} << 30)) throw Error("window: must be in [1, 1073741824], got " + str(window));
    return {layers, window, std::uint64_t{layers} * (window - 1), std::uint64_t{layers} * window};
}

std::vector<std::vector<std::uint8_t>> sliding_window_influence(std::size_t layers, std::size_t window,
                                                                std::size_t seq_len, std::size_t source) {
    require_window(window);
    if (layers < 1 || seq_len < 1 || static_cast<double>(layers) * seq_len * seq_len > kMaxInfluenceWork) {
        throw Error("layers/seq_len: need layers >= 1, seq_len >= 1 and layers x seq_len^2 <= " + str(kMaxInfluenceWork) +
                    ", got " + str(layers) + " x " + str(seq_len) + "^2");
    }
    if (source >= seq_len) throw Error("source: must be < seq_len = " + str(seq_len) + ", got " + str(source));
    std::vector<std::vector<std::uint8_t>> reached;
    std::vector<std::uint8_t> prev(seq_len, 0);
    prev[source] = 1;
    for (std::size_t l = 0; l < layers; ++l) {
        // Position i of layer l + 1 mixes every visible key j of layer l.
        std::vector<std::uint8_t> next(seq_len, 0);
        for (std::size_t i = 0; i < seq_len; ++i) {
            for (std::size_t j = 0; j <= i && !next[i]; ++j) next[i] = prev[j] && in_window(i, j, window);
        }
        reached.push_back(next);
        prev = std::move(next);
    }
    return reached;
}

template class RollingKvCache<float>;
template class RollingKvCache<double>;
template SlidingWindowResult<float> sliding_window_decode(const Tensor4<float>&, const Tensor4<float>&,
                                                          const Tensor4<float>&, std::size_t, std::optional<double>);
template SlidingWindowResult<double> sliding_window_decode(const Tensor4<double>&, const Tensor4<double>&,
                                                           const Tensor4<double>&, std::size_t, std::optional<double>);

}  // namespace attn
