#include "attn/approx/lsh_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "attn/error.hpp"
#include "attn/random.hpp"
#include "lsh_hashing.hpp"
#include "method_args.hpp"

namespace attn::approx {
namespace {

// Appendix A: the penalty on i = j, large enough that exp(-1e5) vanishes next to any other
// target, finite so that a token with no other target still attends to itself.
constexpr double kSelfPenalty = 1e5;
// The attended-rounds record is N^2 bytes per head: 16 MiB at most.
constexpr std::size_t kMaxRecordedPairs = std::size_t{1} << 24;
// lsh_sectors_2d sweeps O(n_buckets^2) candidate boundaries, each hashed in O(n_buckets).
constexpr std::size_t kMaxSectorBuckets = 64;
constexpr double kPi = std::numbers::pi;

// The 2-D drawing projection (see the header): identity for d <= 2, else a random orthonormal
// plane -- two Gaussian columns, Gram-Schmidt.
std::vector<double> drawing_plane(std::size_t d, std::uint64_t seed) {
    std::vector<double> p(d * 2, 0.0);
    if (d <= 2) {
        for (std::size_t c = 0; c < d; ++c) p[c * 2 + c] = 1.0;
        return p;
    }
    std::vector<double> g = detail::gaussian_matrix(2, d, 1.0, splitmix64(seed ^ 0x2D2D2Dull));
    double* u = g.data();
    double* w = g.data() + d;
    const double nu = std::sqrt(detail::dot(u, u, d));
    for (std::size_t c = 0; c < d; ++c) u[c] /= nu;
    const double proj = detail::dot(u, w, d);
    for (std::size_t c = 0; c < d; ++c) w[c] -= proj * u[c];
    const double nw = std::sqrt(detail::dot(w, w, d));
    for (std::size_t c = 0; c < d; ++c) w[c] /= nw;
    for (std::size_t c = 0; c < d; ++c) p[c * 2] = u[c], p[c * 2 + 1] = w[c];
    return p;
}

using detail::lsh_chunk_length;

double wrap_angle(double a) {  // into [-pi, pi)
    a = std::fmod(a + kPi, 2 * kPi);
    return (a < 0 ? a + 2 * kPi : a) - kPi;
}

}  // namespace

std::uint32_t lsh_hash(const double* x, std::size_t d, const double* rot, std::size_t num_buckets) {
    const std::size_t half = num_buckets / 2;
    std::uint32_t best = 0;
    double best_value = -std::numeric_limits<double>::infinity();
    // argmax over [xR ; -xR], taken column by column: entry col is xR, entry half + col is -xR.
    auto consider = [&](double xr, std::size_t col) {
        if (xr > best_value) best_value = xr, best = static_cast<std::uint32_t>(col);
        if (-xr > best_value) best_value = -xr, best = static_cast<std::uint32_t>(half + col);
    };
    // Four columns at a time, one accumulator each, reading a row of R contiguously: four independent
    // chains of additions instead of one (the hash is most of lsh_pattern's work at the zoo's sizes).
    // Each xR still adds x[c] R[c][col] for c = 0, 1, ..., d - 1 in that order, so every value, and the
    // bucket, is bit for bit that of the plain dot product the remainder columns use.
    std::size_t col = 0;
    for (; col + 4 <= half; col += 4) {
        double xr0 = 0, xr1 = 0, xr2 = 0, xr3 = 0;
        const double* r = rot + col;
        for (std::size_t c = 0; c < d; ++c, r += half) {
            xr0 += x[c] * r[0];
            xr1 += x[c] * r[1];
            xr2 += x[c] * r[2];
            xr3 += x[c] * r[3];
        }
        consider(xr0, col);
        consider(xr1, col + 1);
        consider(xr2, col + 2);
        consider(xr3, col + 3);
    }
    for (; col < half; ++col) {
        double xr = 0;
        for (std::size_t c = 0; c < d; ++c) xr += x[c] * rot[c * half + col];
        consider(xr, col);
    }
    return best;
}

std::vector<LshSector> lsh_sectors_2d(const LshOptions& o) {
    detail::check_lsh_options(o);
    if (o.num_buckets > kMaxSectorBuckets) {
        throw Error("num_buckets: must be at most " + std::to_string(kMaxSectorBuckets) + " for the 2-D sectors, got " +
                    std::to_string(o.num_buckets));
    }
    std::vector<LshSector> sectors;
    const std::vector<double> rotations = detail::lsh_rotations(2, o);  // the draw lsh_attention makes at d = 2
    for (std::size_t round = 0; round < o.num_rounds; ++round) {
        const auto r32 = static_cast<std::uint32_t>(round);
        if (o.num_buckets == 1) {
            sectors.push_back({r32, 0, -kPi, kPi});
            continue;
        }
        const std::size_t half = o.num_buckets / 2;
        const std::vector<double> rot(rotations.begin() + round * 2 * half, rotations.begin() + (round + 1) * 2 * half);
        // Bucket b's direction: column b of R for b < half, minus column b - half otherwise. Two
        // buckets trade places only where x . (c_a - c_b) = 0, so every boundary is among these.
        auto direction = [&](std::size_t b, std::size_t axis) {
            const double c = rot[axis * half + b % half];
            return b < half ? c : -c;
        };
        std::vector<double> cuts;
        for (std::size_t a = 0; a < o.num_buckets; ++a) {
            for (std::size_t b = a + 1; b < o.num_buckets; ++b) {
                const double wx = direction(a, 0) - direction(b, 0), wy = direction(a, 1) - direction(b, 1);
                if (wx == 0 && wy == 0) continue;
                const double normal = std::atan2(wy, wx);
                cuts.push_back(wrap_angle(normal + kPi / 2));
                cuts.push_back(wrap_angle(normal - kPi / 2));
            }
        }
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
        // Hash the middle of every arc between neighbouring cuts; join neighbours of one bucket.
        std::vector<LshSector> arcs;
        for (std::size_t c = 0; c < cuts.size(); ++c) {
            const double begin = cuts[c], end = c + 1 < cuts.size() ? cuts[c + 1] : cuts[0] + 2 * kPi;
            const double mid = (begin + end) / 2, x[2] = {std::cos(mid), std::sin(mid)};
            const std::uint32_t bucket = lsh_hash(x, 2, rot.data(), o.num_buckets);
            if (!arcs.empty() && arcs.back().bucket == bucket) arcs.back().end = end;
            else arcs.push_back({r32, bucket, begin, end});
        }
        if (arcs.size() > 1 && arcs.back().bucket == arcs.front().bucket) {  // the arc across the first cut
            arcs.front().begin = wrap_angle(arcs.back().begin);
            arcs.front().end = arcs.front().begin + (arcs.back().end - arcs.back().begin) +
                               (arcs.front().end - cuts[0]);
            arcs.pop_back();
        }
        sectors.insert(sectors.end(), arcs.begin(), arcs.end());
    }
    return sectors;
}

CostCounts lsh_attention_cost(std::size_t batch_heads, std::size_t n, std::size_t d, std::size_t dv,
                              const LshOptions& o) {
    detail::check_lsh_options(o);
    if (batch_heads == 0 || n == 0 || d == 0 || dv == 0) throw Error("lsh_attention_cost: sizes must be >= 1");
    const std::uint64_t m = std::min(o.chunk_length, n), chunks = (n + m - 1) / m, rounds = o.num_rounds;
    std::uint64_t entries = 0;
    for (std::uint64_t c = 0; c < chunks; ++c) {
        entries += lsh_chunk_length(c, n, m) * (lsh_chunk_length(c, n, m) + (c > 0 ? lsh_chunk_length(c - 1, n, m) : 0));
    }
    entries *= rounds;
    std::uint64_t flops = n * (3 * d + 1) + entries * (2 * d + 2 * dv + 2);
    if (o.num_buckets >= 2) flops += rounds * n * d * o.num_buckets;
    if (rounds >= 2) flops += n * rounds * (2 * dv + 2);
    const std::uint64_t rotation_elements = o.num_buckets >= 2 ? rounds * d * (o.num_buckets / 2) : 0;
    const std::uint64_t peak = n * d + rotation_elements + rounds * n * (3 + dv + 1) + m * std::min<std::uint64_t>(2 * m, n);
    return {entries * batch_heads, flops * batch_heads, 8 * peak};
}

LshAttentionResult lsh_attention(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                                 const LshOptions& o) {
    detail::check_lsh_options(o);
    const AttentionProblem p = detail::check_qkv(q, k, v, o.scale);
    if (p.kv_len != p.q_len) {
        throw Error("key: shared-QK LSH attention needs as many keys as queries (" + std::to_string(p.q_len) +
                    "), got " + std::to_string(p.kv_len));
    }
    const std::size_t n = p.q_len, d = p.head_dim, dv = p.value_dim, rounds = o.num_rounds;
    const std::size_t half = o.num_buckets / 2, m = std::min(o.chunk_length, n), chunks = (n + m - 1) / m;

    LshAttentionResult r;
    r.chunk_length = m;
    r.approx.output = Tensor4<double>(p.output_shape());
    r.buckets.resize(p.batch * p.q_heads * rounds * n);
    r.points_2d = Tensor4<double>({p.batch, p.q_heads, n, 2});
    r.rotations = detail::lsh_rotations(d, o);
    if (o.record_attended) {
        if (static_cast<double>(p.batch * p.q_heads) * static_cast<double>(n) * static_cast<double>(n) > kMaxRecordedPairs) {
            throw Error("record_attended: B * H * N^2 must be at most " + std::to_string(kMaxRecordedPairs) + ", got " +
                        std::to_string(p.batch * p.q_heads) + " * " + std::to_string(n) + "^2");
        }
        r.attended_rounds.assign(p.batch * p.q_heads * n * n, 0);
    }
    const std::vector<double> plane = drawing_plane(d, o.seed);

    // Working storage of one (b, h); its total size is the peak the cost formula states.
    std::vector<double> keys(n * d);                  // unit queries
    std::vector<std::uint32_t> sorted(rounds * n);    // round r: positions in (bucket, position) order
    std::vector<std::uint32_t> rank(rounds * n);      // round r: where position j sits in that order
    std::vector<std::uint32_t> bucket_start(std::max<std::size_t>(1, 2 * half) + 1);  // the hash's counting sort (not counted)
    std::vector<double> round_out(rounds * n * dv);   // o_i^(r)
    std::vector<double> round_lse(rounds * n);        // z_i^(r)
    std::vector<double> block(m * std::min(2 * m, n));
    std::vector<const double*> v_rows;  // value rows of one query's kept keys (pointers, not counted)

    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            detail::unit_rows(q, b, h, keys.data());
            for (std::size_t j = 0; j < n; ++j) {
                for (std::size_t a = 0; a < 2; ++a) r.points_2d.at(b, h, j, a) = 0;
                for (std::size_t c = 0; c < d; ++c) {
                    r.points_2d.at(b, h, j, 0) += keys[j * d + c] * plane[c * 2];
                    r.points_2d.at(b, h, j, 1) += keys[j * d + c] * plane[c * 2 + 1];
                }
            }
            std::uint32_t* bucket = r.buckets.data() + (b * p.q_heads + h) * rounds * n;
            std::uint8_t* attended =
                o.record_attended ? r.attended_rounds.data() + (b * p.q_heads + h) * n * n : nullptr;

            // Hash and sort every round first: the multi-round count N_ij needs all of them.
            for (std::size_t round = 0; round < rounds; ++round) {
                const double* rot = o.num_buckets >= 2 ? r.rotations.data() + round * d * half : nullptr;
                detail::lsh_hash_and_sort(q.row(b, h, 0), n, d, rot, half, bucket + round * n, sorted.data() + round * n,
                                          rank.data() + round * n, bucket_start.data());
            }
            // Whether query i attends key j in round r: same bucket, and j's chunk is i's or the one before.
            auto attends = [&](std::size_t round, std::size_t i, std::size_t j) {
                if (bucket[round * n + i] != bucket[round * n + j]) return false;
                const std::size_t ci = rank[round * n + i] / m, cj = rank[round * n + j] / m;
                return cj == ci || cj + 1 == ci;
            };

            for (std::size_t round = 0; round < rounds; ++round) {
                const std::uint32_t* order = sorted.data() + round * n;
                for (std::size_t c = 0; c < chunks; ++c) {
                    const std::size_t col_begin = c > 0 ? (c - 1) * m : 0, col_end = c * m + lsh_chunk_length(c, n, m);
                    const std::size_t cols = col_end - col_begin;
                    for (std::size_t s = c * m; s < col_end; ++s) {
                        const std::size_t i = order[s];
                        double* row = block.data() + (s - c * m) * cols;
                        for (std::size_t t = col_begin; t < col_end; ++t) {
                            const std::size_t j = order[t];
                            // Every entry of the chunk block is computed (as a batched implementation
                            // does); entries outside i's bucket are then masked.
                            row[t - col_begin] = p.scale * detail::dot(q.row(b, h, i), keys.data() + j * d, d);
                        }
                        // Keep the entries of i's bucket, compacted to the front of the row in place.
                        std::size_t kept = 0;
                        v_rows.clear();
                        for (std::size_t t = col_begin; t < col_end; ++t) {
                            const std::size_t j = order[t];
                            if (bucket[round * n + i] != bucket[round * n + j]) continue;
                            double s_ij = row[t - col_begin];
                            if (i == j) s_ij -= kSelfPenalty;
                            if (rounds > 1) {
                                std::size_t count = 0;
                                for (std::size_t r2 = 0; r2 < rounds; ++r2) count += attends(r2, i, j) ? 1 : 0;
                                s_ij -= std::log(static_cast<double>(count));
                            }
                            row[kept++] = s_ij;
                            v_rows.push_back(v.row(b, h, j));
                            if (attended != nullptr) ++attended[i * n + j];
                        }
                        round_lse[round * n + i] =
                            detail::softmax_combine(row, kept, v_rows, dv, round_out.data() + (round * n + i) * dv);
                    }
                }
            }

            // Appendix A: weight each round by exp(z^(r) - logsumexp_r z^(r)).
            for (std::size_t i = 0; i < n; ++i) {
                double z_max = -std::numeric_limits<double>::infinity();
                for (std::size_t round = 0; round < rounds; ++round) z_max = std::max(z_max, round_lse[round * n + i]);
                double sum = 0;
                for (std::size_t round = 0; round < rounds; ++round) sum += std::exp(round_lse[round * n + i] - z_max);
                double* out = r.approx.output.row(b, h, i);
                for (std::size_t round = 0; round < rounds; ++round) {
                    const double w = std::exp(round_lse[round * n + i] - z_max) / sum;
                    const double* o_r = round_out.data() + (round * n + i) * dv;
                    for (std::size_t c = 0; c < dv; ++c) out[c] += w * o_r[c];
                }
            }
        }
    }

    r.approx.cost = lsh_attention_cost(p.batch * p.q_heads, n, d, dv, o);
    // The exact counterpart: dense attention over the same keys (unit queries), diagonal masked.
    Tensor4<double> unit_keys(q.shape);
    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) detail::unit_rows(q, b, h, unit_keys.row(b, h, 0));
    }
    SdpaOptions dense;
    dense.scale = p.scale;
    if (n > 1) {
        std::vector<std::uint8_t> allowed(n * n, 1);
        for (std::size_t i = 0; i < n; ++i) allowed[i * n + i] = 0;
        dense.mask = AttentionMask::boolean({1, 1, n, n}, std::move(allowed));
    }
    r.approx.error = compare_with_dense(r.approx.output, q, unit_keys, v, dense);
    return r;
}

}  // namespace attn::approx
