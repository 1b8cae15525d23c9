#pragma once
// Linformer (Wang et al. 2020, arXiv:2006.04768, Section 4): keys and values are
// compressed along the sequence axis by projections E, F in R^{k x N} before attention,
//
//   O = softmax(scale * Q (E K)^T) (F V),   E K in R^{k x d},  F V in R^{k x Dv},
//
// so the score matrix is N x k instead of N x N. In the paper E and F are learned; here they are
// inputs, and linformer_random_projections draws them untrained as i.i.d. N(0, 1/N) entries, so
// that a projected row sum_j E_tj k_j has on average the squared norm of one key (and F V rows
// that of one value): the scores keep the scale of dense attention's. (The N(0, 1/k) scaling of
// the paper's Johnson-Lindenstrauss argument, Theorem 1, makes the projected rows N/k times
// larger in variance, so the softmax far sharper; at N = 1024 it gave several times the error.)
// One E and one F serve every batch entry and head (the paper's "headwise sharing", Section 4).
// With k = N and E = F = I the method is exact; no random choice converges to dense attention as
// k grows, since softmax(Q K^T E^T) F V differs from softmax(Q K^T) V for any E, F but I.
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/approx/approx_report.hpp"

namespace attn::approx {

struct LinformerProjections {
    std::size_t projected_length = 0;  // k
    std::size_t seq_len = 0;           // N
    std::vector<double> e, f;          // k x N each, row-major
};

// E, F with i.i.d. N(0, 1/N) entries from `seed` (E and F independent). k in [1, 2^20],
// N in [1, 2^24], k * N <= 2^26.
LinformerProjections linformer_random_projections(std::size_t projected_length, std::size_t seq_len,
                                                  std::uint64_t seed);
// E = F = I_N (k = N): the special case in which Linformer is dense attention.
LinformerProjections linformer_identity_projections(std::size_t seq_len);

// q is [B, H, L, d], k and v [B, H, N, d] and [B, H, N, Dv] with N = projections.seq_len.
ApproxResult linformer(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                       const LinformerProjections& projections, std::optional<double> scale = {});

// The cost linformer counts, per (b, h), with k = projected_length:
//   score_entries = L k
//   flops = 2 k N d + 2 k N Dv                 (E K and F V)
//         + L k (2d + 2Dv + 2)                 (scores, p v, exp, normalise: as dense, over k keys)
//   peak elements = k d + k Dv + L k           (E K, F V, the L x k scores); peak_bytes = 8 * that
CostCounts linformer_cost(std::size_t batch_heads, std::size_t q_len, std::size_t seq_len, std::size_t head_dim,
                          std::size_t value_dim, std::size_t projected_length);

}  // namespace attn::approx
