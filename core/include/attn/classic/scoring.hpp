#pragma once
// The four alignment-score functions of the encoder-decoder era, each scoring every query (a
// decoder state s) against every key (an encoder state h):
//
//   additive   e = v_a^T tanh(W_a s + U_a h)   Bahdanau, Cho & Bengio 2015 (arXiv:1409.0473), eq. 6
//                                              and App. A.1.2; Luong et al.'s "concat"
//                                              v_a^T tanh(W_a [s; h]) is the same function with
//                                              W_a split column-wise into [W_a | U_a]
//   dot        e = s^T h                       Luong, Pham & Manning 2015 (arXiv:1508.04025), eq. 8
//   general    e = s^T W_a h                   Luong et al. 2015, eq. 8
//   scaled dot e = q^T k / sqrt(d_k)           Vaswani et al. 2017 (arXiv:1706.03762), eq. 1
//
// Queries are the rows of a [num_queries, query_dim] matrix, keys the rows of a
// [num_keys, key_dim] matrix; every function returns the [num_queries, num_keys] score matrix.
#include <cstdint>
#include <vector>

#include "attn/classic/matrix.hpp"

namespace attn::classic {

// Bahdanau's alignment model: a one-hidden-layer MLP of width attention_dim (n' = 1000 in the
// paper, App. A.1.2, with n = 1000 decoder units and 2n = 2000-wide bidirectional encoder states).
struct AdditiveParams {
    Matrix w;               // W_a: [attention_dim, query_dim]
    Matrix u;               // U_a: [attention_dim, key_dim]
    std::vector<double> v;  // v_a: [attention_dim]
};

// s^T h; query_dim must equal key_dim.
Matrix dot_scores(const Matrix& queries, const Matrix& keys);
// q^T k / sqrt(d); query_dim must equal key_dim (= d).
Matrix scaled_dot_scores(const Matrix& queries, const Matrix& keys);
// s^T W h with W of shape [query_dim, key_dim]: the only form whose query and key widths may differ
// without an MLP.
Matrix general_scores(const Matrix& queries, const Matrix& keys, const Matrix& w);
// v^T tanh(W s + U h). Computes U h once per key and W s once per query (the paper's own
// remark: "U_a h_j does not depend on i, we can pre-compute it"), so only the add, the tanh and
// the dot with v are done per pair.
Matrix additive_scores(const Matrix& queries, const Matrix& keys, const AdditiveParams& params);

enum class ScoreKind { additive, dot, general, scaled_dot };

struct ScoreDims {
    std::size_t query_dim = 0;      // d_s (= d for dot and scaled dot)
    std::size_t key_dim = 0;        // d_h (= d for dot and scaled dot)
    std::size_t attention_dim = 0;  // d_a, the MLP width; additive only (ignored otherwise)
};

// Floating-point operations of one score function, counting every multiplication, addition and
// tanh as one FLOP (a length-n dot product is n multiplications + n - 1 additions = 2n - 1).
// Scoring Q queries against K keys costs Q*K*per_pair + Q*per_query + K*per_key.
struct ScoreFlops {
    std::uint64_t per_pair = 0;   // spent on every (query, key) pair
    std::uint64_t per_query = 0;  // once per query, reused across every key
    std::uint64_t per_key = 0;    // once per key, reused across every query

    std::uint64_t total(std::uint64_t num_queries, std::uint64_t num_keys) const {
        return num_queries * num_keys * per_pair + num_queries * per_query + num_keys * per_key;
    }
};

// The exact counts, with d_s = query_dim, d_h = key_dim, d_a = attention_dim, d = d_s = d_h:
//
//                  reuse = false (all per pair)    reuse = true
//   dot            2d - 1                          same (nothing to hoist)
//   scaled dot     2d  (dot, then one multiply     per pair 2d - 1, per query d
//                  by the constant 1/sqrt d)       (1/sqrt d folded into the query once)
//   general        2 d_s d_h + d_s - 1             per pair 2 d_s - 1, per key d_s (2 d_h - 1)
//                  (W h, then s . (W h))           (W h_j hoisted: keys stay fixed while decoding)
//   additive       d_a (2 d_s + 2 d_h + 2) - 1     per pair 4 d_a - 1 (add, tanh, dot with v),
//                                                  per query d_a (2 d_s - 1), per key d_a (2 d_h - 1)
//
// The reuse column is what additive_scores and the other functions above actually do. Hoisting
// W h_j or U_a h_j always pays; folding 1/sqrt(d) into the query pays only when a query meets more
// than d keys (per query d multiplies instead of one per score). Even with
// everything hoisted, additive scoring keeps a d_a-wide tanh per pair that no matrix product can
// absorb, while dot-style scores are one row of a single matrix product Q K^T.
// Throws attn::Error if a dimension is 0 or above 2^20, or dot/scaled dot get query_dim != key_dim.
ScoreFlops score_flops(ScoreKind kind, const ScoreDims& dims, bool reuse);

}  // namespace attn::classic
