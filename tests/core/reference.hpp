#pragma once
// Comparing an exact attention algorithm with the dense reference (sdpa in double): the sweep of
// odd shapes where tiling mistakes show, the float-and-double comparison itself, and the masked
// input with a row that sees no key.
#include <cmath>
#include <cstdint>
#include <vector>

#include "attn/attention/causal.hpp"
#include "attn/attention/options.hpp"
#include "attn/attention/sdpa.hpp"
#include "support.hpp"

namespace attn::test {

// Calls f(L, S, causal, seed) for query lengths 1, 3, 17, 113, 127 and 129 (a single row,
// primes that leave most block sizes a ragged last block, and either side of 128, a usual block
// size), key lengths 1, 17, 129 and L itself (so L != S and L == S), each with no mask and with
// both causal alignments. `seed` is fresh for each call and stands in doctest's INFO with the
// shape, so a failure names the case that reproduces it.
template <class F>
void for_each_odd_shape(F&& f) {
    for (std::size_t L : {1, 3, 17, 113, 127, 129}) {
        for (std::size_t S : {std::size_t{1}, std::size_t{17}, std::size_t{129}, L}) {
            for (Causal causal : {Causal::none, Causal::top_left, Causal::bottom_right}) {
                const std::uint64_t seed = next_seed();
                INFO("seed=" << seed << " L=" << L << " S=" << S << " causal=" << static_cast<int>(causal));
                f(L, S, causal, seed);
            }
        }
    }
}

// Runs `attention(q, k, v, options)` on the inputs in double and rounded to float (inputs from
// random_float_qkv are exact in both) and compares its output and log-sum-exp with sdpa's in
// double: within double_tol for the double run and float_tol for the float one.
template <class Attention, class Options>
void check_against_sdpa(Attention&& attention, const Qkv& in, const Options& o, double float_tol, double double_tol) {
    SdpaOptions so;
    static_cast<AttentionOptions&>(so) = o;
    const auto ref = sdpa(in.q, in.k, in.v, so);
    const auto f32 = attention(tensor_cast<float>(in.q), tensor_cast<float>(in.k), tensor_cast<float>(in.v), o);
    const auto f64 = attention(in.q, in.k, in.v, o);
    CHECK(max_abs_diff(f32.output.data, ref.output.data) < float_tol);
    CHECK(max_abs_diff(f32.lse, ref.lse) < float_tol);
    CHECK(max_abs_diff(f64.output.data, ref.output.data) < double_tol);
    CHECK(max_abs_diff(f64.lse, ref.lse) < double_tol);
}

// An L x S boolean mask shared by every batch and head: about two keys in three allowed, in a
// pseudo-random pattern, and none for row `blank_row`, whose output must come out as zeros with a
// log-sum-exp of -inf rather than NaN.
inline AttentionMask sparse_mask(std::size_t L, std::size_t S, std::size_t blank_row) {
    std::vector<std::uint8_t> allowed(L * S);
    for (std::size_t n = 0; n < allowed.size(); ++n) allowed[n] = (n * 2654435761u >> 7) % 3 != 0;
    for (std::size_t j = 0; j < S; ++j) allowed[blank_row * S + j] = 0;
    return AttentionMask::boolean({1, 1, L, S}, allowed);
}

// Row `row` saw no key in every batch and head: its output is zeros and its log-sum-exp -inf.
template <class Result>
void check_blank_row(const Result& r, std::size_t row) {
    const Shape4 s = r.output.shape;
    for (std::size_t b = 0; b < s.batch; ++b) {
        for (std::size_t h = 0; h < s.heads; ++h) {
            CHECK(r.lse[(b * s.heads + h) * s.seq + row] == -INFINITY);
            for (std::size_t c = 0; c < s.dim; ++c) CHECK(r.output.at(b, h, row, c) == 0.0);
        }
    }
}

// An additive bias of `shape` (size 1 in the dimensions it is broadcast over), smooth in the key
// index and different per head or batch, as ALiBi's per-head slopes are: entry n is sin(0.37 n).
inline AttentionMask smooth_bias(Shape4 shape) {
    std::vector<float> bias(shape.numel());
    for (std::size_t n = 0; n < bias.size(); ++n) bias[n] = static_cast<float>(std::sin(0.37 * static_cast<double>(n)));
    return AttentionMask::additive(shape, bias);
}

}  // namespace attn::test
