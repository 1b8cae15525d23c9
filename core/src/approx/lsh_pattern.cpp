#include "attn/approx/lsh_pattern.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "lsh_hashing.hpp"
#include "method_args.hpp"
#include "sparse_geometry.hpp"

namespace attn::approx {

LshPattern lsh_pattern(const Tensor4<double>& q, const LshOptions& o, std::size_t pixels) {
    detail::check_lsh_options(o);
    if (q.shape.batch != 1 || q.shape.heads != 1) {
        throw Error("q: must be one head's queries, shape [1, 1, N, d], got batch " + std::to_string(q.shape.batch) +
                    " and heads " + std::to_string(q.shape.heads));
    }
    const std::size_t n = q.shape.seq, d = q.shape.dim;
    detail::require_in_range("q.seq", n, 1, std::size_t{1} << 20);
    detail::require_in_range("q.dim", d, 1, (std::size_t{1} << 24) / n);
    if (q.data.size() != n * d) throw Error("q: holds " + std::to_string(q.data.size()) + " values, shape needs " + std::to_string(n * d));
    if (!std::all_of(q.data.begin(), q.data.end(), [](double x) { return std::isfinite(x); })) {
        throw Error("q: every value must be finite");
    }

    LshPattern out;
    out.image = detail::empty_density_image(n, pixels);
    const std::size_t rounds = o.num_rounds, half = o.num_buckets / 2, m = std::min(o.chunk_length, n);
    out.chunk_length = m;
    out.cost = lsh_attention_cost(1, n, d, d, o);

    const std::vector<double> rotations = detail::lsh_rotations(d, o);
    std::vector<std::uint32_t> bucket(rounds * n), order(rounds * n), rank(rounds * n);
    for (std::size_t r = 0; r < rounds; ++r) {
        detail::lsh_hash_and_sort(q.data.data(), n, d, rotations.empty() ? nullptr : rotations.data() + r * d * half,
                                  half, bucket.data() + r * n, order.data() + r * n, rank.data() + r * n);
    }
    // The pixel of every position, so the inner loop does not divide.
    std::vector<std::uint32_t> pixel_of(n);
    for (std::size_t p = 0; p < pixels; ++p) {
        std::fill(pixel_of.begin() + static_cast<std::ptrdiff_t>(out.image.edges[p]),
                  pixel_of.begin() + static_cast<std::ptrdiff_t>(out.image.edges[p + 1]), static_cast<std::uint32_t>(p));
    }
    // seen[j] == i + 1: key j already counted for query i (a pair attended in several rounds counts once).
    std::vector<std::uint32_t> seen(n, 0);
    std::uint64_t* image = out.image.allowed.data();
    for (std::size_t i = 0; i < n; ++i) {
        const auto stamp = static_cast<std::uint32_t>(i + 1);
        std::uint64_t* row = image + std::size_t{pixel_of[i]} * pixels;
        std::uint64_t others = 0;
        for (std::size_t r = 0; r < rounds; ++r) {
            const std::uint32_t* ord = order.data() + r * n;
            const std::uint32_t* bk = bucket.data() + r * n;
            const std::size_t chunk = rank[r * n + i] / m;
            const std::size_t begin = chunk > 0 ? (chunk - 1) * m : 0, end = std::min(n, (chunk + 1) * m);
            for (std::size_t s = begin; s < end; ++s) {
                const std::uint32_t j = ord[s];
                if (bk[j] != bk[i] || j == i || seen[j] == stamp) continue;
                seen[j] = stamp;
                ++row[pixel_of[j]];
                ++others;
            }
        }
        if (others == 0) ++row[pixel_of[i]];  // no other target: the self pair carries the weight
        out.attended_pairs += others == 0 ? 1 : others;
    }
    return out;
}

}  // namespace attn::approx
