#include "lsh_hashing.hpp"

#include <algorithm>
#include <limits>
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
    // x_j R accumulated row of R by row of R: contiguous in R, and each entry still sums over c
    // in order, so the hash does not depend on the loop order.
    std::vector<double> xr(half);
    for (std::size_t j = 0; j < n; ++j) {
        const double* row = x + j * d;
        std::fill(xr.begin(), xr.end(), 0.0);
        double* acc = xr.data();
        for (std::size_t c = 0; c < d; ++c) {
            const double xc = row[c];
            const double* r = rot + c * half;
            for (std::size_t col = 0; col < half; ++col) acc[col] += xc * r[col];
        }
        std::uint32_t best = 0;
        double best_value = -std::numeric_limits<double>::infinity();
        for (std::size_t col = 0; col < half; ++col) {
            // argmax over [xR ; -xR]: entry col is xR, entry half + col is -xR.
            if (acc[col] > best_value) best_value = acc[col], best = static_cast<std::uint32_t>(col);
            if (-acc[col] > best_value) best_value = -acc[col], best = static_cast<std::uint32_t>(half + col);
        }
        bucket[j] = best;
    }
    std::iota(order, order + n, std::uint32_t{0});
    std::stable_sort(order, order + n, [&](std::uint32_t a, std::uint32_t b) { return bucket[a] < bucket[b]; });
    for (std::size_t s = 0; s < n; ++s) rank[order[s]] = static_cast<std::uint32_t>(s);
}

}  // namespace attn::approx::detail
