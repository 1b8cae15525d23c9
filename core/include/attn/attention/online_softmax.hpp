#pragma once
// Online softmax (Milakov & Gimelshein 2018, arXiv:1805.02867) as used by FlashAttention-2
// (Dao 2023, Algorithm 1): the softmax-weighted sum of value rows, computed one tile of keys at a
// time without ever holding a whole row of scores.
//
// The state of one query row is (m, l, acc):
//   m   = the largest score seen so far,
//   l   = sum over seen keys of exp(s_j - m),
//   acc = sum over seen keys of exp(s_j - m) * v_j   (unnormalised output, value_dim entries).
// When a new tile raises the maximum from m_old to m_new, everything accumulated so far was
// weighted relative to the wrong maximum; multiplying l and acc by exp(m_old - m_new) corrects it
// exactly. At the end, output = acc / l and the log-sum-exp of the row is m + log(l).
//
// Two states over disjoint key sets merge the same way, and merge is associative and commutative
// (the "attention monoid"): keys can be split across tiles, threads or GPUs and combined in any
// order, which is what split-K decoding and ring attention rely on.
//
// The functions take raw pointers and sizes, so the same code compiles for CUDA (ATTN_HD).
#include <cmath>
#include <cstddef>
#include <limits>

#include "attn/host_device.hpp"

namespace attn::online_softmax {

template <class T>
struct State {
    T m = -std::numeric_limits<T>::infinity();  // running maximum; -inf until a key is seen
    T l = T(0);                                   // running sum of exp(score - m)
};

// exp(from - to) with the convention that nothing accumulated (from = -inf) scales to 0
// instead of exp(-inf + inf) = NaN.
template <class T>
ATTN_HD inline T rescale_factor(T from, T to) {
    return from == -std::numeric_limits<T>::infinity() ? T(0) : std::exp(from - to);
}

// Folds one tile of `count` scores (masked entries are -inf) and their value rows into the state.
// values[j * value_stride + c] is column c of the value row of key j. If `weights` is not null it
// receives exp(score_j - m_new), the unnormalised probabilities of the tile. Returns the factor
// exp(m_old - m_new) by which the previous l and acc were rescaled (0 for an empty state, 1 when
// the maximum did not change).
template <class T>
ATTN_HD inline T update(State<T>& state, T* acc, std::size_t value_dim, const T* scores, std::size_t count,
                        const T* values, std::size_t value_stride, T* weights = nullptr) {
    T tile_max = -std::numeric_limits<T>::infinity();
    for (std::size_t j = 0; j < count; ++j) tile_max = scores[j] > tile_max ? scores[j] : tile_max;
    const T m_new = tile_max > state.m ? tile_max : state.m;
    if (m_new == -std::numeric_limits<T>::infinity()) {  // every key so far is masked: nothing to add
        for (std::size_t j = 0; weights && j < count; ++j) weights[j] = T(0);
        return T(0);
    }
    const T alpha = rescale_factor(state.m, m_new);
    state.l *= alpha;
    for (std::size_t c = 0; c < value_dim; ++c) acc[c] *= alpha;
    for (std::size_t j = 0; j < count; ++j) {
        const T p = rescale_factor(scores[j], m_new);
        if (weights) weights[j] = p;
        if (p == T(0)) continue;
        state.l += p;
        const T* v = values + j * value_stride;
        for (std::size_t c = 0; c < value_dim; ++c) acc[c] += p * v[c];
    }
    state.m = m_new;
    return alpha;
}

// Combines the state of another, disjoint set of keys (b, acc_b) into (a, acc_a).
template <class T>
ATTN_HD inline void merge(State<T>& a, T* acc_a, const State<T>& b, const T* acc_b, std::size_t value_dim) {
    const T m_new = a.m > b.m ? a.m : b.m;
    if (m_new == -std::numeric_limits<T>::infinity()) return;  // both empty
    const T alpha = rescale_factor(a.m, m_new);
    const T beta = rescale_factor(b.m, m_new);
    a.l = alpha * a.l + beta * b.l;
    for (std::size_t c = 0; c < value_dim; ++c) acc_a[c] = alpha * acc_a[c] + beta * acc_b[c];
    a.m = m_new;
}

// Writes acc / l to `out` and returns the row's log-sum-exp m + log(l). A row that saw no
// allowed key (l == 0) gets zeros and -inf, never NaN.
template <class T>
ATTN_HD inline T finalize(const State<T>& state, const T* acc, std::size_t value_dim, T* out) {
    if (state.l == T(0)) {
        for (std::size_t c = 0; c < value_dim; ++c) out[c] = T(0);
        return -std::numeric_limits<T>::infinity();
    }
    const T inv_l = T(1) / state.l;
    for (std::size_t c = 0; c < value_dim; ++c) out[c] = acc[c] * inv_l;
    return state.m + std::log(state.l);
}

}  // namespace attn::online_softmax
