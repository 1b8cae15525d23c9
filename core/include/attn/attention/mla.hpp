#pragma once
// Multi-head latent attention (DeepSeek-V2, arXiv:2405.04434, Sec. 2.1.2-2.1.3), one layer, in
// two algebraically equal forms.
//
// Every token t is compressed to a latent c_t = W_DKV x_t of d_c values (eq. 9). Head i's
// content key and value are rebuilt from it, k^C_{t,i} = W_UK,i c_t and v_{t,i} = W_UV,i c_t
// (eqs. 10-11). Position enters through a decoupled part (eqs. 14-17): one RoPE key
// k^R_t = RoPE(W_KR x_t) of d_R values shared by all heads, and per-head RoPE queries
// q^R_{t,i} = RoPE(W_QR,i x_t). Head i scores [q^C; q^R] . [k^C; k^R] / sqrt(d_h + d_R) (eq. 18)
// and the output is u_t = W_O [o_{t,1}; ...; o_{t,H}] (eq. 19).
//
//   explicit: materialise every head's K = [k^C; k^R] and V from the latent, then attend --
//             what training does; a cache of these would hold H (d_h + d_R + d_v) per token.
//   absorbed: since q^C . (W_UK,i c) = (W_UK,i^T q^C) . c, fold W_UK,i into the query side and,
//             since W_O,i (W_UV,i sum_j p_j c_j) = (W_O,i W_UV,i) sum_j p_j c_j, W_UV,i into the
//             output side (Sec. 2.1.2, "we can absorb W_UK into W_Q and W_UV into W_O"). Every
//             head then attends to the same keys [c; k^R] and values c: multi-query attention
//             with head dimension d_c + d_R against a cache of d_c + d_R values per token. RoPE
//             cannot be folded this way (a position-dependent rotation would sit between W_Q and
//             W_UK), which is why its part is kept apart.
//
// Simplification: the queries come straight from x (W_Q, W_QR); DeepSeek-V2 first compresses
// them through a latent c^Q of d'_c values (eqs. 12-13), which saves activation memory in
// training and changes nothing about the cache or the absorption.
#include <cstdint>
#include <vector>

#include "attn/attention/causal.hpp"
#include "attn/attention/rope.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct MlaShape {
    std::size_t model_dim = 0;   // d
    std::size_t heads = 0;       // n_h
    std::size_t latent_dim = 0;  // d_c
    std::size_t nope_dim = 0;    // d_h, each head's content part of q and k
    std::size_t rope_dim = 0;    // d_R (even: RoPE rotates pairs)
    std::size_t value_dim = 0;   // d_v
};

// Row-major matrices; head i's rows of a stacked matrix are rows i * dim .. (i + 1) * dim - 1.
struct MlaWeights {
    MlaShape shape;
    std::vector<double> w_dkv;  // [d_c, d]        eq. 9
    std::vector<double> w_uk;   // [H d_h, d_c]    eq. 10
    std::vector<double> w_uv;   // [H d_v, d_c]    eq. 11
    std::vector<double> w_kr;   // [d_R, d]        eq. 15
    std::vector<double> w_q;    // [H d_h, d]      content queries
    std::vector<double> w_qr;   // [H d_R, d]      eq. 14
    std::vector<double> w_o;    // [d, H d_v]      eq. 19
};

// Throws attn::Error naming the field: sizes in [1, 4096] (rope_dim even), matrix sizes, finite.
void validate_mla_weights(const MlaWeights& w);

// Entries i.i.d. N(0, 1 / fan_in), so activations stay O(1) for unit-variance inputs.
MlaWeights random_mla_weights(const MlaShape& shape, std::uint64_t seed);

struct MlaOptions {
    // Queries are the last query_len tokens of x (positions S - query_len ..); 0 = all S tokens.
    std::size_t query_len = 0;
    // bottom_right is decoding's alignment (the last query sees every key); see causal.hpp.
    Causal causal = Causal::bottom_right;
    RopeOptions rope;
};

// What the absorbed form keeps per token: exactly d_c + d_R values.
struct MlaCache {
    Tensor4<double> latent;    // [B, 1, S, d_c]: c^KV
    Tensor4<double> rope_key;  // [B, 1, S, d_R]: k^R, already rotated to its position

    std::size_t tokens() const { return latent.shape.seq; }
    std::size_t elements_per_token() const { return latent.shape.dim + rope_key.shape.dim; }
    // Appends `tail`'s tokens (same batch and widths); an empty cache takes tail's shape.
    void append(const MlaCache& tail);
};

// The cache entries of x's tokens ([B, 1, S, d]) at positions first_position, first_position + 1, ...
MlaCache mla_compress(const MlaWeights& w, const Tensor4<double>& x, std::uint64_t first_position,
                      const RopeOptions& rope = {});

struct MlaExplicitResult {
    Tensor4<double> output;  // [B, 1, L, d]
    Tensor4<double> k;       // [B, H, S, d_h + d_R]: the per-head keys this form materialises
    Tensor4<double> v;       // [B, H, S, d_v]
};

// Self-attention of x ([B, 1, S, d]) with per-head K and V rebuilt from the latent.
MlaExplicitResult mla_explicit(const MlaWeights& w, const Tensor4<double>& x, const MlaOptions& options = {});

// W_UK folded into the query side and W_UV into the output side.
struct AbsorbedMla {
    MlaShape shape;
    std::vector<double> w_q_latent;  // [H d_c, d]:  head i's block is W_UK,i^T W_Q,i
    std::vector<double> w_o_latent;  // [d, H d_c]:  head i's block is W_O,i W_UV,i
    std::vector<double> w_qr;        // [H d_R, d], unchanged: RoPE does not fold
};

AbsorbedMla absorb_mla(const MlaWeights& w);

// Attention of the queries x_q ([B, 1, L, d], positions first_query_position ..) against a
// cache of S tokens, computed on the latent directly. causal as in causal.hpp (bottom_right
// when the queries are the cache's last L tokens).
Tensor4<double> mla_absorbed_attend(const AbsorbedMla& a, const MlaCache& cache, const Tensor4<double>& x_q,
                                    std::uint64_t first_query_position, Causal causal,
                                    const RopeOptions& rope = {});

struct MlaAbsorbedResult {
    Tensor4<double> output;  // [B, 1, L, d]
    MlaCache cache;          // everything the form keeps: d_c + d_R per token
};

// Self-attention of x: compress every token, then attend with the absorbed weights.
MlaAbsorbedResult mla_absorbed(const MlaWeights& w, const Tensor4<double>& x, const MlaOptions& options = {});

}  // namespace attn
