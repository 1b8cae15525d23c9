#include "lsh_hashing.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "attn/error.hpp"
#include "attn/random.hpp"
#include "method_args.hpp"

namespace attn::approx::detail {

void check_lsh_options(const LshOptions& o) {
    if (o.num_buckets != 1 && (o.num_buckets < 2 || o.num_buckets > 4096 || o.num_buckets % 2 != 0)) {
        throw Error("num_buckets: must be 1 or an even number in [2, 4096], got " + std::to_string(o.num_buckets));
    }
    require_in_range("num_rounds", o.num_rounds, 1, 64);
    require_in_range("chunk_length", o.chunk_length, 1, std::size_t{1} << 24);
}

std::vector<double> lsh_rotations(std::size_t d, const LshOptions& o) {
    std::vector<double> rotations;
    if (o.num_buckets < 2) return rotations;
    for (std::size_t round = 0; round < o.num_rounds; ++round) {
        const auto rot = gaussian_matrix(d, o.num_buckets / 2, 1.0, splitmix64(o.seed ^ (0x5EEDull + round)));
        rotations.insert(rotations.end(), rot.begin(), rot.end());
    }
    return rotations;
}

void lsh_hash_and_sort(const double* x, std::size_t n, std::size_t d, const double* rot, std::size_t half,
                       std::uint32_t* bucket, std::uint32_t* order, std::uint32_t* rank, std::uint32_t* bucket_start) {
    const std::size_t buckets = std::max<std::size_t>(1, 2 * half);
    std::fill(bucket_start, bucket_start + buckets + 1, 0u);
    for (std::size_t j = 0; j < n; ++j) {
        bucket[j] = lsh_hash(x + j * d, d, rot, 2 * half);  // one hash for every caller
        ++bucket_start[bucket[j] + 1];
    }
    // A counting sort: positions are visited in increasing order and each goes to the next free slot
    // of its bucket, so within a bucket they stay in position order -- the (bucket, position) order a
    // stable sort by bucket gives, in O(n + buckets) rather than O(n log n). After the prefix sum,
    // bucket_start[b] is where bucket b begins; it serves as b's next free slot, so once every position
    // is placed it holds where b + 1 begins, and the starts are shifted back by one.
    std::partial_sum(bucket_start, bucket_start + buckets + 1, bucket_start);
    for (std::size_t j = 0; j < n; ++j) {
        const std::uint32_t s = bucket_start[bucket[j]]++;
        order[s] = static_cast<std::uint32_t>(j);
        rank[j] = s;
    }
    std::copy_backward(bucket_start, bucket_start + buckets, bucket_start + buckets + 1);
    bucket_start[0] = 0;
}

}  // namespace attn::approx::detail
