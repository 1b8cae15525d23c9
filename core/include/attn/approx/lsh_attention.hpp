#pragma once
// Reformer's LSH attention (Kitaev, Kaiser & Levskaya 2020, arXiv:2001.04451, Section 2 and
// its multi-round LSH attention, Appendix A), non-causal, one (b, h) after another:
//
//   shared-QK (Section 2, "Shared-QK Transformer"): keys are the queries normalised to unit
//     length, k_j = q_j / ||q_j||; the `k` input is not used.
//   hash (Section 2, "Hashing attention"): per round r a random matrix R_r of shape
//     [d, n_buckets / 2] with i.i.d. N(0, 1) entries, h_r(x) = argmax([x R_r ; -x R_r]).
//     Hashing q_j or k_j gives the same bucket (a positive rescaling does not move the argmax).
//   sort (Figure 2): positions sorted by (bucket, position) -- stable in position.
//   chunk (Section 2): the sorted sequence is cut into chunks of m; query i attends to the keys of its
//     own chunk and of the previous one (the first chunk has no previous chunk: no wrap-around),
//     and only to keys of its own bucket (the mask m(j, P_i) = inf outside P_i).
//   rounds (Appendix A): o_i = sum_r exp(z_i^(r) - z_i) o_i^(r), z_i = logsumexp_r z_i^(r),
//     where round r's scores are penalised by 1e5 on i = j (a token attends to itself only when
//     it has no other target) and by log N_ij, N_ij = the number of rounds in which i attends j.
//
// Deviations, stated: scores are scaled by 1/sqrt(d) (or `scale`) as in Eq. 1 (the paper drops
// the factor from its later equations for readability); N_ij counts rounds in which j is in i's chunk
// window *and* bucket (the appendix writes P_i^(r'), the bucket alone), which makes the combined
// output exactly softmax over the union of the attended sets, each key counted once; one random
// R_r per round is shared by every batch entry and head; n_buckets = 1 is allowed and puts
// every token in bucket 0 (no hashing), so with m >= N LSH attention is dense shared-QK
// attention without self-attention.
//
// Error is measured against that dense shared-QK attention (keys = unit queries, scaled scores,
// the diagonal masked), so it isolates what hashing and chunking drop.
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/approx/approx_report.hpp"

namespace attn::approx {

struct LshOptions {
    std::size_t num_buckets = 8;    // 1 (no hashing) or even in [2, 4096]
    std::size_t num_rounds = 1;     // in [1, 64]
    std::size_t chunk_length = 64;  // m, in [1, 2^24]; clamped to N
    std::uint64_t seed = 0;         // the rotations R_r and the 2-D projection derive from it
    std::optional<double> scale;    // default 1/sqrt(d); must be finite
    // Fill LshAttentionResult::attended_rounds (for drawing the mask); B * H * N^2 <= 2^24.
    bool record_attended = false;
};

struct LshAttentionResult {
    ApproxResult approx;
    std::size_t chunk_length = 0;  // m used (clamped to N)
    // Bucket of token j in round r for each (b, h): index ((b * H + h) * rounds + r) * N + j.
    std::vector<std::uint32_t> buckets;
    // The keys (unit queries) projected to 2-D for drawing: [B, H, N, 2]. For d <= 2 the
    // projection is the identity (zero-padded), so the hash regions are exact angular sectors;
    // for d > 2 it is onto a random orthonormal plane drawn from the seed (Gaussian d x 2,
    // Gram-Schmidt), the same for every head.
    Tensor4<double> points_2d;
    // R_r for each round, [rounds, d, n_buckets / 2] row-major; empty when n_buckets = 1.
    std::vector<double> rotations;
    // With options.record_attended, for each (b, h) the N x N count of rounds in which query i
    // formed a score with key j inside its bucket (the entries softmax used; the diagonal is
    // formed in every round but penalised, see above): index ((b * H + h) * N + i) * N + j.
    // Empty otherwise.
    std::vector<std::uint8_t> attended_rounds;
};

// The hash of one vector x[d] under one round's rotation R [d, n_buckets / 2] (row-major):
// argmax over [x R ; -x R], the first maximum on ties; 0 when n_buckets = 1 (rotation unused).
// lsh_attention hashes every token with it.
std::uint32_t lsh_hash(const double* x, std::size_t d, const double* rotation, std::size_t num_buckets);

// For d = 2, where a bucket is a sector of the plane (the cone where one column of [R ; -R]
// wins): the arcs of each round's hash, counter-clockwise, covering the circle once. Angles in
// radians, begin in [-pi, pi), end = begin + width (it may pass pi).
struct LshSector {
    std::uint32_t round = 0, bucket = 0;
    double begin = 0, end = 0;
};

// The sectors of lsh_attention's hash for head_dim 2 with the same num_buckets, num_rounds and
// seed (the rotations are drawn the same way); num_buckets <= 64 here (the sweep is cubic in it).
// n_buckets = 1 gives one full circle per round.
std::vector<LshSector> lsh_sectors_2d(const LshOptions& options);

// LSH attention of q (shared-QK) over values v. `k` is used only for shape checks; the keys are
// the unit-normalised queries (see above). q, k are [B, H, N, d], v is [B, H, N, Dv]; k and v must
// have N rows. Throws attn::Error on bad shapes or options.
LshAttentionResult lsh_attention(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                                 const LshOptions& options = {});

// The cost lsh_attention counts, without running it (for the complexity curves):
//   per (b, h), with m = min(chunk_length, N), chunk lengths m_c (the last one N - (C-1) m):
//   score_entries = rounds * sum_c m_c (m_c + m_{c-1})           (own + previous chunk, m_{-1} = 0)
//   flops = N (3d + 1)                                           (unit keys: squares, sqrt, divisions)
//         + rounds * N * d * n_buckets      [n_buckets >= 2]     (x R_r: N d (n_b / 2) multiply-adds)
//         + score_entries * (2d + 2Dv + 2)                       (q.k, p v, exp, normalise: as dense)
//         + N * rounds * (2Dv + 2)          [rounds >= 2]        (combining the rounds)
//   peak elements = N d + rounds * d * n_buckets / 2 + rounds * N (3 + Dv + 1) + m * min(2m, N)
//   (unit keys, rotations, per round buckets/sorted order/sort position, per-round outputs and
//   log-normalisers, one chunk's score block); peak_bytes = 8 * peak elements.
CostCounts lsh_attention_cost(std::size_t batch_heads, std::size_t seq_len, std::size_t head_dim,
                              std::size_t value_dim, const LshOptions& options);

}  // namespace attn::approx
