#include "attn/attention/paged_decode_fast.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "attn/attention/fast_exp2.hpp"
#include "paged_decode_checks.hpp"
#include "parallel_tasks.hpp"

namespace attn {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr std::size_t kDotLanes = 16;  // independent partial sums: two AVX2 vectors, one AVX-512
constexpr std::size_t kPvCols = 32;    // accumulator columns held in registers while a block's rows pass
constexpr std::size_t kRowsPerPass = 32;  // K/V rows scored and accumulated by every head of the group in turn

float dot(const float* __restrict a, const float* __restrict b, std::size_t n) {
    float part[kDotLanes] = {};
    std::size_t c = 0;
    for (; c + kDotLanes <= n; c += kDotLanes) {
        for (std::size_t i = 0; i < kDotLanes; ++i) part[i] += a[c + i] * b[c + i];
    }
    float sum = 0;
    for (; c < n; ++c) sum += a[c] * b[c];
    for (float p : part) sum += p;
    return sum;
}

// acc[c] = acc[c] * alpha + sum_j p[j] v[j][c], one slice of kPvCols columns at a time so that the
// slice stays in registers while the block's `rows` value rows stream past.
void rescale_and_accumulate(float* __restrict acc, float alpha, const float* __restrict p, const float* __restrict v,
                            std::size_t rows, std::size_t dv) {
    std::size_t c0 = 0;
    for (; c0 + kPvCols <= dv; c0 += kPvCols) {
        float slice[kPvCols];
        for (std::size_t i = 0; i < kPvCols; ++i) slice[i] = acc[c0 + i] * alpha;
        for (std::size_t j = 0; j < rows; ++j) {
            const float pj = p[j];
            const float* vr = v + j * dv + c0;
            for (std::size_t i = 0; i < kPvCols; ++i) slice[i] += pj * vr[i];
        }
        for (std::size_t i = 0; i < kPvCols; ++i) acc[c0 + i] = slice[i];
    }
    for (std::size_t c = c0; c < dv; ++c) {
        float a = acc[c] * alpha;
        for (std::size_t j = 0; j < rows; ++j) a += p[j] * v[j * dv + c];
        acc[c] = a;
    }
}

// One worker's working set for one (sequence, KV head): the group's queries (times
// scale * log2 e), the scores of kRowsPerPass rows per query head, and each head's state.
struct Scratch {
    std::vector<float> q, scores, acc, m, l;
    Scratch(std::size_t group, std::size_t d, std::size_t dv)
        : q(group * d), scores(group * kRowsPerPass), acc(group * dv), m(group), l(group) {}
};

struct Problem {
    std::size_t q_heads, group, d, dv, block_size;
    float scale_log2e;
};

// Walks sequence s's blocks for KV head kvh and the `group` query heads that read it. Returns false
// if a score or an output came out non-finite (a non-finite K or V row in the walk).
bool run_task(const Tensor4<float>& q, const Tensor4<float>& key_pool, const Tensor4<float>& value_pool,
              const PagedSequence& seq, std::size_t s, std::size_t kvh, const Problem& p, Scratch& w,
              FastPagedDecodeResult& r) {
    const std::size_t G = p.group, D = p.d, Dv = p.dv, bs = p.block_size;
    for (std::size_t g = 0; g < G; ++g) {
        const float* qh = q.row(s, kvh * G + g, 0);
        for (std::size_t c = 0; c < D; ++c) w.q[g * D + c] = qh[c] * p.scale_log2e;
    }
    std::fill(w.acc.begin(), w.acc.end(), 0.0f);
    std::fill(w.m.begin(), w.m.end(), kNegInf);
    std::fill(w.l.begin(), w.l.end(), 0.0f);
    bool finite = true;
    const std::size_t blocks = (seq.context_len + bs - 1) / bs;
    for (std::size_t lb = 0; lb < blocks; ++lb) {
        const std::size_t pb = seq.block_table[lb], t0 = lb * bs;
        const std::size_t block_rows = std::min(bs, seq.context_len - t0);  // the last block may be partial
        // A long block (a contiguous cache is a single one) is walked kRowsPerPass rows at a time, so
        // the rows the group's heads share are still in L1 when the next head reads them.
        for (std::size_t r0 = 0; r0 < block_rows; r0 += kRowsPerPass) {
            const std::size_t rows = std::min(kRowsPerPass, block_rows - r0);
            const float* k = key_pool.row(pb, kvh, r0);
            const float* v = value_pool.row(pb, kvh, r0);
            const std::uint8_t* allowed = seq.key_allowed.empty() ? nullptr : seq.key_allowed.data() + t0 + r0;
            for (std::size_t g = 0; g < G; ++g) {
                float* sc = w.scores.data() + g * kRowsPerPass;
                float tile_max = kNegInf;
                for (std::size_t j = 0; j < rows; ++j) {
                    if (allowed && !allowed[j]) {
                        sc[j] = kNegInf;
                        continue;
                    }
                    sc[j] = dot(w.q.data() + g * D, k + j * D, D);
                    finite = finite && std::isfinite(sc[j]);
                    tile_max = std::max(tile_max, sc[j]);
                }
                const float m_new = std::max(w.m[g], tile_max);
                if (m_new == kNegInf) continue;  // every key so far masked: the state stays empty
                // exp2(-inf - m_new) = 0: nothing accumulated before, nothing to rescale.
                const float alpha = fast_exp2(w.m[g] - m_new);
                float sum = 0;
                for (std::size_t j = 0; j < rows; ++j) {
                    sc[j] = fast_exp2(sc[j] - m_new);
                    sum += sc[j];
                }
                w.l[g] = w.l[g] * alpha + sum;
                w.m[g] = m_new;
                rescale_and_accumulate(w.acc.data() + g * Dv, alpha, sc, v, rows, Dv);
            }
        }
    }
    for (std::size_t g = 0; g < G; ++g) {
        const std::size_t h = kvh * G + g;
        float* out = r.output.row(s, h, 0);
        float& lse = r.lse[s * p.q_heads + h];
        if (w.l[g] == 0.0f) {
            std::fill(out, out + Dv, 0.0f);
            lse = kNegInf;
            continue;
        }
        const float inv_l = 1.0f / w.l[g];
        for (std::size_t c = 0; c < Dv; ++c) {
            out[c] = w.acc[g * Dv + c] * inv_l;
            finite = finite && std::isfinite(out[c]);
        }
        lse = w.m[g] * std::numbers::ln2_v<float> + std::log(w.l[g]);
    }
    return finite;
}

}  // namespace

FastPagedDecodeResult paged_decode_fast(const Tensor4<float>& q, const Tensor4<float>& key_pool,
                                        const Tensor4<float>& value_pool, const std::vector<PagedSequence>& sequences,
                                        const FastPagedDecodeOptions& options) {
    detail::validate_paged_decode(q, key_pool, value_pool, sequences, options.scale, false);
    if (options.num_threads > 1024) {
        throw Error("num_threads: must be in [0, 1024] (0 = hardware concurrency), got " +
                    std::to_string(options.num_threads));
    }
    const Shape4& qs = q.shape;
    const std::size_t kv_heads = key_pool.shape.heads;
    const Problem p{qs.heads, qs.heads / kv_heads, qs.dim, value_pool.shape.dim, key_pool.shape.seq,
                    static_cast<float>(options.scale.value_or(1.0 / std::sqrt(static_cast<double>(qs.dim))) *
                                       std::numbers::log2e)};
    FastPagedDecodeResult r{Tensor4<float>({qs.batch, qs.heads, 1, p.dv}), std::vector<float>(qs.batch * qs.heads)};

    const std::size_t tasks = qs.batch * kv_heads;
    std::vector<Scratch> scratch;
    const std::size_t workers = detail::worker_count(options.num_threads, tasks);
    scratch.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w) scratch.emplace_back(p.group, p.d, p.dv);

    // The first sequence whose walk met a non-finite score or output (tasks.size() = none).
    std::atomic<std::size_t> bad_sequence{tasks};
    detail::run_tasks(tasks, scratch, [&](Scratch& w, std::size_t t) {
        const std::size_t s = t / kv_heads, kvh = t % kv_heads;
        if (!run_task(q, key_pool, value_pool, sequences[s], s, kvh, p, w, r)) {
            std::size_t none = tasks;
            bad_sequence.compare_exchange_strong(none, s);
        }
    });
    if (const std::size_t s = bad_sequence.load(); s != tasks) {
        throw Error("key_pool/value_pool: a row sequences[" + std::to_string(s) +
                    "] reads is not finite (its scores or output came out non-finite)");
    }
    return r;
}

}  // namespace attn
