#pragma once
// Private to the approximate-attention methods: the argument checks and small numeric pieces
// they share (every method takes Q, K, V in SDPA's layout and validates them the same way).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/attention/options.hpp"
#include "attn/tensor.hpp"

namespace attn::approx::detail {

// validate_attention (shapes, finiteness, scale) plus the rule that every query head has its own
// K/V head: the error report compares head by head (no grouped-query sharing here).
AttentionProblem check_qkv(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                           std::optional<double> scale);

// Throws "<name> must be in [lo, hi], got <value>" unless lo <= value <= hi.
void require_in_range(const char* name, std::uint64_t value, std::uint64_t lo, std::uint64_t hi);

// A rows x cols matrix of i.i.d. N(0, stddev^2) entries, row-major, from `seed`.
std::vector<double> gaussian_matrix(std::size_t rows, std::size_t cols, double stddev, std::uint64_t seed);

// x / ||x|| for each row of one (b, h) of x, written to out[rows * dim]; zero rows stay zero.
void unit_rows(const Tensor4<double>& x, std::size_t b, std::size_t h, double* out);

double dot(const double* a, const double* b, std::size_t n);

// Softmax-weighted sum over the `count` scores (-inf entries excluded): out[dv] =
// sum_j softmax(scores)_j * v_rows[j]. Returns the log-sum-exp of the scores (-inf and a zero
// output when every entry is -inf). The scores are overwritten with exp(score - max), in place.
double softmax_combine(double* scores, std::size_t count, const std::vector<const double*>& v_rows, std::size_t dv,
                       double* out);

}  // namespace attn::approx::detail
