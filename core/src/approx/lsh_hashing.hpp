#pragma once
// Private to Reformer's LSH: the option checks, the random rotations and the hash-and-sort of one
// round, shared by lsh_attention (which runs attention over the buckets) and lsh_pattern (which
// only counts the pairs it would attend, at lengths where running attention is out of reach).
#include <cstdint>
#include <vector>

#include "attn/approx/lsh_attention.hpp"

namespace attn::approx::detail {

// Throws attn::Error naming num_buckets, num_rounds or chunk_length when out of range.
void check_lsh_options(const LshOptions& options);

// R_r of every round, [rounds, d, num_buckets / 2] row-major, drawn from options.seed; empty for
// one bucket (no hashing).
std::vector<double> lsh_rotations(std::size_t head_dim, const LshOptions& options);

// One round for the n rows of x (row r at x + r * d): bucket[j] = argmax([x_j R ; -x_j R]) with
// R = rotation ([d, half] row-major; null with half = 0 puts every row in bucket 0), order = the
// positions sorted by (bucket, position), rank[j] = where position j sits in that order, and
// bucket_start[b] = the slot of order where bucket b begins, for b = 0 .. B with B = max(1, 2 half)
// buckets (B + 1 entries; bucket_start[B] = n), so bucket b is order[bucket_start[b], bucket_start[b + 1]).
void lsh_hash_and_sort(const double* x, std::size_t n, std::size_t d, const double* rotation, std::size_t half,
                       std::uint32_t* bucket, std::uint32_t* order, std::uint32_t* rank, std::uint32_t* bucket_start);

// The length of chunk c when n sorted positions are cut into chunks of m (the last may be shorter).
inline std::size_t lsh_chunk_length(std::size_t c, std::size_t n, std::size_t m) { return m < n - c * m ? m : n - c * m; }

}  // namespace attn::approx::detail
