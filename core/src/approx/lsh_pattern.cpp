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
    const std::size_t buckets = std::max<std::size_t>(1, 2 * half);
    std::vector<std::uint32_t> bucket(rounds * n), order(rounds * n), rank(rounds * n), bucket_start(rounds * (buckets + 1));
    for (std::size_t r = 0; r < rounds; ++r) {
        detail::lsh_hash_and_sort(q.data.data(), n, d, rotations.empty() ? nullptr : rotations.data() + r * d * half, half,
                                  bucket.data() + r * n, order.data() + r * n, rank.data() + r * n,
                                  bucket_start.data() + r * (buckets + 1));
    }
    // The pixel of every position, and of every sorted slot of every round, so the inner loop
    // neither divides nor looks a position up.
    std::vector<std::uint32_t> pixel_of(n), slot_pixel(rounds * n);
    for (std::size_t p = 0; p < pixels; ++p) {
        std::fill(pixel_of.begin() + static_cast<std::ptrdiff_t>(out.image.edges[p]),
                  pixel_of.begin() + static_cast<std::ptrdiff_t>(out.image.edges[p + 1]), static_cast<std::uint32_t>(p));
    }
    for (std::size_t s = 0; s < rounds * n; ++s) slot_pixel[s] = pixel_of[order[s]];

    // Query i of round r attends the keys of its bucket in its chunk and the one before: sorted by
    // (bucket, position), those are one run of slots, where its bucket's slots meet its chunk window.
    // So a query's keys are found without testing the bucket of every key in the window.
    struct Run {
        std::size_t begin, end;
    };
    auto keys_of = [&](std::size_t r, std::size_t i) {
        const std::size_t slot = rank[r * n + i], chunk = slot / m;
        const std::uint32_t* starts = bucket_start.data() + r * (buckets + 1);
        const std::uint32_t b = bucket[r * n + i];
        return Run{std::max<std::size_t>(chunk > 0 ? (chunk - 1) * m : 0, starts[b]),
                   std::min<std::size_t>(std::min(n, (chunk + 1) * m), starts[b + 1])};
    };
    std::uint64_t* image = out.image.allowed.data();
    if (rounds == 1) {
        // One round holds each key once: the run, i itself included (its slot is in its own run),
        // is counted as is, and i is taken back out unless it is the only one.
        for (std::size_t i = 0; i < n; ++i) {
            const Run run = keys_of(0, i);
            std::uint64_t* row = image + std::size_t{pixel_of[i]} * pixels;
            for (std::size_t s = run.begin; s < run.end; ++s) ++row[slot_pixel[s]];
            if (run.end - run.begin > 1) --row[pixel_of[i]];
            out.attended_pairs += run.end - run.begin > 1 ? run.end - run.begin - 1 : 1;
        }
        return out;
    }
    // Several rounds may attend the same pair: seen[j] == i + 1 marks key j counted for query i (and
    // i itself, so that it is skipped), so a pair counts once.
    std::vector<std::uint32_t> seen(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const auto stamp = static_cast<std::uint32_t>(i + 1);
        std::uint64_t* row = image + std::size_t{pixel_of[i]} * pixels;
        std::uint64_t others = 0;
        seen[i] = stamp;
        for (std::size_t r = 0; r < rounds; ++r) {
            const Run run = keys_of(r, i);
            const std::uint32_t* ord = order.data() + r * n;
            const std::uint32_t* pix = slot_pixel.data() + r * n;
            for (std::size_t s = run.begin; s < run.end; ++s) {
                const std::uint32_t j = ord[s];
                if (seen[j] == stamp) continue;
                seen[j] = stamp;
                ++row[pix[s]];
                ++others;
            }
        }
        if (others == 0) ++row[pixel_of[i]];  // no other target: the self pair carries the weight
        out.attended_pairs += others == 0 ? 1 : others;
    }
    return out;
}

}  // namespace attn::approx
