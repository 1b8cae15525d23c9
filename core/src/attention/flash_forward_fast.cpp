#include "attn/attention/flash_forward_fast.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <string>

#include "attn/attention/causal.hpp"
#include "attn/attention/fast_exp2.hpp"
#include "parallel_tasks.hpp"
#include "simd_vec.hpp"

namespace attn {
namespace {

constexpr std::size_t kBr = kFastFlashBlockQ;  // query rows per task: a multiple of every SIMD width
constexpr std::size_t kBc = kFastFlashBlockK;  // keys per tile
constexpr std::size_t kScoreRows = 6;          // keys per score micro-tile
constexpr std::size_t kPvRows = 4;             // query rows per P V micro-tile
// The micro-tiles' widths follow the vector registers this file is compiled for (simd_vec.hpp):
// their accumulators must stay in registers through the inner loop.
using detail::AlignedFloats;
using detail::kVec;
using detail::load_vec;
using detail::store_vec;
using detail::Vec;
#if defined(__AVX512F__)
constexpr std::size_t kScoreCols = kBr;  // query rows per score micro-tile: 6 x 64 accumulators fill
                                         // 24 of AVX-512's 32 registers
constexpr std::size_t kPvCols = 64;      // value columns per P V micro-tile: 4 x 64 = 16 registers
#else
constexpr std::size_t kScoreCols = 16;   // AVX2: 6 x 16 accumulators take 12 of 16 registers, the Q
                                         // row 2, the key 1
constexpr std::size_t kPvCols = 16;      // 4 x 16 accumulators take 8, the V row 2
#endif
static_assert(kBr % kScoreCols == 0 && kScoreCols % kVec == 0 && kPvCols % kVec == 0);
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// One worker's on-chip working set (see the header): reused for every task the worker takes.
struct Scratch {
    AlignedFloats qt;   // head_dim x kBr: Q_i transposed, times scale * log2(e)
    AlignedFloats st;   // kBc x kBr: the tile's scores transposed (key j, query r), then its weights
    AlignedFloats acc;  // kBr x value_dim: unnormalised output rows
    AlignedFloats m, l, alpha, m_safe, tile_max, tile_sum;  // kBr each, per query row
    std::vector<std::int64_t> key_end;                       // kBr: one past the last visible key

    Scratch(std::size_t head_dim, std::size_t value_dim)
        : qt(head_dim * kBr), st(kBc * kBr), acc(kBr * value_dim), m(kBr), l(kBr), alpha(kBr), m_safe(kBr),
          tile_max(kBr), tile_sum(kBr), key_end(kBr) {}
};

// st[j][r] = sum_c k[j][c] * qt[c][r] for J consecutive keys and kScoreCols query rows (qt and st
// point at the micro-tile's first row; rows of both are kBr apart): J x kScoreCols accumulators that
// stay in registers while the head dimension streams through (an outer-product micro-kernel).
template <std::size_t J>
void score_keys(const float* __restrict k, std::size_t head_dim, const float* __restrict qt, float* __restrict st) {
    constexpr std::size_t V = kScoreCols / kVec;
    Vec acc[J][V] = {};
    for (std::size_t c = 0; c < head_dim; ++c) {
        Vec qc[V];
        for (std::size_t v = 0; v < V; ++v) qc[v] = load_vec(qt + c * kBr + v * kVec);
        for (std::size_t j = 0; j < J; ++j) {
            const float kj = k[j * head_dim + c];
            for (std::size_t v = 0; v < V; ++v) acc[j][v] += kj * qc[v];
        }
    }
    for (std::size_t j = 0; j < J; ++j) {
        for (std::size_t v = 0; v < V; ++v) store_vec(st + j * kBr + v * kVec, acc[j][v]);
    }
}

// The score tile for `cols` keys starting at k: per strip of query rows, full micro-tiles, then one
// for the remainder.
void score_tile(const float* k, std::size_t cols, std::size_t head_dim, const float* qt, float* st) {
    for (std::size_t r0 = 0; r0 < kBr; r0 += kScoreCols) {
        std::size_t j = 0;
        for (; j + kScoreRows <= cols; j += kScoreRows) {
            score_keys<kScoreRows>(k + j * head_dim, head_dim, qt + r0, st + j * kBr + r0);
        }
        const float* kr = k + j * head_dim;
        float* sr = st + j * kBr + r0;
        switch (cols - j) {
            case 5: score_keys<5>(kr, head_dim, qt + r0, sr); break;
            case 4: score_keys<4>(kr, head_dim, qt + r0, sr); break;
            case 3: score_keys<3>(kr, head_dim, qt + r0, sr); break;
            case 2: score_keys<2>(kr, head_dim, qt + r0, sr); break;
            case 1: score_keys<1>(kr, head_dim, qt + r0, sr); break;
            default: break;
        }
    }
}

// acc[i][w] = alpha[i] * acc[i][w] + sum_j p[j][i] * v[j][w] for kPvRows query rows and W value
// columns: the rescale of the online softmax folded into the load of the accumulator.
template <std::size_t W>
void pv_block(const float* __restrict p, std::size_t cols, const float* __restrict v, std::size_t value_dim,
              const float* __restrict alpha, float* __restrict acc) {
    constexpr std::size_t V = W / kVec;
    Vec a[kPvRows][V];
    for (std::size_t i = 0; i < kPvRows; ++i) {
        for (std::size_t w = 0; w < V; ++w) a[i][w] = alpha[i] * load_vec(acc + i * value_dim + w * kVec);
    }
    for (std::size_t j = 0; j < cols; ++j) {
        Vec vj[V];
        for (std::size_t w = 0; w < V; ++w) vj[w] = load_vec(v + j * value_dim + w * kVec);
        for (std::size_t i = 0; i < kPvRows; ++i) {
            const float pji = p[j * kBr + i];
            for (std::size_t w = 0; w < V; ++w) a[i][w] += pji * vj[w];
        }
    }
    for (std::size_t i = 0; i < kPvRows; ++i) {
        for (std::size_t w = 0; w < V; ++w) store_vec(acc + i * value_dim + w * kVec, a[i][w]);
    }
}

// The same for a last strip of fewer than kVec value columns, updated in place.
void pv_block_narrow(const float* p, std::size_t cols, const float* v, std::size_t value_dim, const float* alpha,
                     float* acc, std::size_t width) {
    for (std::size_t i = 0; i < kPvRows; ++i) {
        float* row = acc + i * value_dim;
        for (std::size_t w = 0; w < width; ++w) row[w] *= alpha[i];
        for (std::size_t j = 0; j < cols; ++j) {
            const float pji = p[j * kBr + i];
            for (std::size_t w = 0; w < width; ++w) row[w] += pji * v[j * value_dim + w];
        }
    }
}

void pv_tile(const float* p, std::size_t cols, const float* v, std::size_t value_dim, const float* alpha, float* acc) {
    for (std::size_t r = 0; r < kBr; r += kPvRows) {
        const float* pr = p + r;
        float* ar = acc + r * value_dim;
        std::size_t c = 0;
        for (; c + kPvCols <= value_dim; c += kPvCols) pv_block<kPvCols>(pr, cols, v + c, value_dim, alpha + r, ar + c);
        for (; c + kVec <= value_dim; c += kVec) pv_block<kVec>(pr, cols, v + c, value_dim, alpha + r, ar + c);
        if (c < value_dim) pv_block_narrow(pr, cols, v + c, value_dim, alpha + r, ar + c, value_dim - c);
    }
}

// One task: query rows [row0, row0 + rows) of head h in batch b against every visible K/V block
// (FA2 Algorithm 1, lines 4-15, for one i).
void run_task(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v, const AttentionProblem& p,
              Causal causal, std::size_t b, std::size_t h, std::size_t row0, Scratch& s, FastFlashResult& r) {
    const std::size_t d = p.head_dim, dv = p.value_dim, rows = std::min(kBr, p.q_len - row0);
    float* const qt = s.qt.data();
    float* const st = s.st.data();
    float* const acc = s.acc.data();
    float* const m = s.m.data();
    float* const l = s.l.data();
    float* const alpha = s.alpha.data();
    float* const m_safe = s.m_safe.data();
    float* const tile_max = s.tile_max.data();
    float* const tile_sum = s.tile_sum.data();

    // Q_i, transposed so the 64 rows are contiguous, pre-scaled so that exp2 gives the softmax's
    // exp: exp(scale * q.k - m) = 2^(scale * log2(e) * q.k - m'). Padding rows are zero.
    const float q_scale = static_cast<float>(p.scale * std::numbers::log2e);
    for (std::size_t i = 0; i < kBr; ++i) {
        const float* qi = i < rows ? q.row(b, h, row0 + i) : nullptr;
        for (std::size_t c = 0; c < d; ++c) qt[c * kBr + i] = qi ? qi[c] * q_scale : 0.0f;
    }
    std::fill(acc, acc + kBr * dv, 0.0f);
    std::fill(m, m + kBr, kNegInf);
    std::fill(l, l + kBr, 0.0f);
    for (std::size_t i = 0; i < kBr; ++i) {
        // Padding rows see every key: they are never written out, and unmasked they stay finite.
        s.key_end[i] = static_cast<std::int64_t>(i < rows ? causal_key_end(row0 + i, p.q_len, p.kv_len, causal) : p.kv_len);
    }
    // Causal ends grow with the row: the block's last row bounds every key it can see and its
    // first row every key all of its rows can see.
    const std::size_t key_limit = causal_key_end(row0 + rows - 1, p.q_len, p.kv_len, causal);
    const auto all_see = static_cast<std::size_t>(s.key_end[0]);

    const std::size_t kvh = p.kv_head_of(h);
    const float* const k_head = k.row(b, kvh, 0);
    const float* const v_head = v.row(b, kvh, 0);
    for (std::size_t col0 = 0; col0 < key_limit; col0 += kBc) {
        const std::size_t cols = std::min(kBc, p.kv_len - col0);
        score_tile(k_head + col0 * d, cols, d, qt, st);
        if (col0 + cols > all_see) {  // the tile crosses the causal boundary of some row
            const std::int64_t* key_end = s.key_end.data();
            for (std::size_t j = 0; j < cols; ++j) {
                const auto key = static_cast<std::int64_t>(col0 + j);
                for (std::size_t i = 0; i < kBr; ++i) st[j * kBr + i] = key < key_end[i] ? st[j * kBr + i] : kNegInf;
            }
        }
        // Online softmax (online_softmax::update's math, vectorised across the 64 rows): new
        // maximum, rescale factor exp(m_old - m_new), weights exp(s - m_new) and their sum.
        std::fill(tile_max, tile_max + kBr, kNegInf);
        for (std::size_t j = 0; j < cols; ++j) {
            const float* sj = st + j * kBr;
            for (std::size_t i = 0; i < kBr; ++i) tile_max[i] = sj[i] > tile_max[i] ? sj[i] : tile_max[i];
        }
        for (std::size_t i = 0; i < kBr; ++i) {
            const float m_new = tile_max[i] > m[i] ? tile_max[i] : m[i];
            // A row that has seen only masked keys keeps m = -inf; subtracting 0 instead keeps its
            // weights exp2(-inf) = 0 rather than exp2(-inf + inf) = NaN (FA2's kernels do the same).
            m_safe[i] = m_new == kNegInf ? 0.0f : m_new;
            alpha[i] = fast_exp2(m[i] - m_safe[i]);
            m[i] = m_new;
            tile_sum[i] = 0.0f;
        }
        for (std::size_t j = 0; j < cols; ++j) {
            float* sj = st + j * kBr;
            for (std::size_t i = 0; i < kBr; ++i) {
                sj[i] = fast_exp2(sj[i] - m_safe[i]);
                tile_sum[i] += sj[i];
            }
        }
        for (std::size_t i = 0; i < kBr; ++i) l[i] = alpha[i] * l[i] + tile_sum[i];
        pv_tile(st, cols, v_head + col0 * dv, dv, alpha, acc);
    }

    // O_i = acc / l, lse = m ln 2 + ln l (m is in log2 units); rows that saw no key give zeros.
    for (std::size_t i = 0; i < rows; ++i) {
        float* out = r.output.row(b, h, row0 + i);
        const float* a = acc + i * dv;
        float& lse = r.lse[(b * p.q_heads + h) * p.q_len + row0 + i];
        if (l[i] == 0.0f) {
            std::fill(out, out + dv, 0.0f);
            lse = kNegInf;
            continue;
        }
        const float inv_l = 1.0f / l[i];
        for (std::size_t c = 0; c < dv; ++c) out[c] = a[c] * inv_l;
        lse = m[i] * std::numbers::ln2_v<float> + std::log(l[i]);
    }
}

}  // namespace

FastFlashResult flash_forward_fast(const Tensor4<float>& q, const Tensor4<float>& k, const Tensor4<float>& v,
                                   const FastFlashOptions& options) {
    const AttentionProblem p = validate_attention(q, k, v, options);
    if (options.mask.kind != AttentionMask::Kind::none) {
        throw Error("attn_mask: flash_forward_fast supports causal masking only (Causal); use flash_forward for an attn_mask");
    }
    if (options.num_threads > kMaxWorkers) {
        throw Error("num_threads: must be in [0, " + std::to_string(kMaxWorkers) +
                    "] (0 = hardware concurrency), got " + std::to_string(options.num_threads));
    }
    FastFlashResult r{Tensor4<float>(p.output_shape()), std::vector<float>(p.batch * p.q_heads * p.q_len)};

    const std::size_t q_blocks = (p.q_len + kBr - 1) / kBr, tasks = p.batch * p.q_heads * q_blocks;
    const std::size_t workers = detail::worker_count(options.num_threads, tasks);
    // Scratch is allocated here, on the calling thread, so an allocation failure throws to the
    // caller instead of terminating inside a worker.
    std::vector<Scratch> scratch;
    scratch.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w) scratch.emplace_back(p.head_dim, p.value_dim);

    // Tasks are handed out in decreasing query-block order: under a causal mask the last blocks
    // see the most keys, and starting with them balances the workers' loads at the end.
    detail::run_tasks(tasks, scratch, [&](Scratch& s, std::size_t t) {
        const std::size_t qb = q_blocks - 1 - t % q_blocks, bh = t / q_blocks;
        run_task(q, k, v, p, options.causal, bh / p.q_heads, bh % p.q_heads, qb * kBr, s, r);
    });
    return r;
}

}  // namespace attn
