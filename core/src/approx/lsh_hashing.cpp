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
                       std::uint32_t* bucket, std::uint32_t* order, std::uint32_t* rank) {
    for (std::size_t j = 0; j < n; ++j) bucket[j] = lsh_hash(x + j * d, d, rot, 2 * half);  // one hash for every caller
    std::iota(order, order + n, std::uint32_t{0});
    std::stable_sort(order, order + n, [&](std::uint32_t a, std::uint32_t b) { return bucket[a] < bucket[b]; });
    for (std::size_t s = 0; s < n; ++s) rank[order[s]] = static_cast<std::uint32_t>(s);
}

}  // namespace attn::approx::detail
