#include "attn/attention/paged_decode_fast.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>

#include "attn/attention/fast_exp2.hpp"
#include "attn/attention/online_softmax.hpp"
#include "paged_decode_checks.hpp"
#include "parallel_tasks.hpp"
#include "simd_vec.hpp"

namespace attn {
namespace {

using detail::AlignedFloats;
using detail::kVec;
using detail::load_vec;
using detail::store_vec;
using detail::Vec;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Keys per online-softmax step: the state of every head is rescaled once per chunk, not once per
// key or per 16-token block, and the chunk's exponentials are one vectorised loop per head.
constexpr std::size_t kChunk = 64;
// Micro-tiles, sized to the vector registers (simd_vec.hpp). Scores: kScoreHeads x kScoreKeys
// dot products accumulate over head_dim in kVec registers, reduced by one sum_lanes tree; each K
// vector loaded serves kScoreHeads heads. P V: kPvHeads x kPvVecs accumulator registers stay put
// while the chunk's value rows stream past; each V vector loaded serves kPvHeads heads.
// Scores 4 x 4 with AVX-512 (measured faster than 2 x 8 and 8 x 2 for groups of 4), 4 x 2 with
// AVX2. A group a multiple of kWideScoreHeads (Llama 3 70B's 8) takes 8 x 2 tiles with AVX-512, so
// each chunk's K rows are read once rather than once per 4 heads: measured (Zen 5, 70B shape,
// cold caches, 2 threads) 24-26 -> 30-33 GB/s at 8k-32k tokens.
constexpr std::size_t kScoreHeads = 4;
constexpr std::size_t kScoreKeys = kVec / kScoreHeads;
constexpr std::size_t kWideScoreHeads = kVec >= 16 ? 8 : kScoreHeads;
constexpr std::size_t kPvHeads = 4;
constexpr std::size_t kPvVecs = detail::kVecRegisters / 8;  // 4 x 4 of 32 registers, 4 x 2 of 16
static_assert(kChunk % kScoreKeys == 0);
// Split-KV (Flash-Decoding): a task's context is cut into partitions of at least kMinTaskWork
// (token, KV head) steps, so that the whole call has about kTargetTasks tasks -- enough to keep up
// to that many threads busy when there are fewer (sequence, KV head) pairs than threads (batch 1,
// 8 KV heads). The floor keeps a task long against its fixed costs: scaling the group's queries,
// clearing and writing back its states (G x d floats per KV head), and its share of the merge,
// which the last task of a unit does alone. Measured on 2 threads (Zen 5, Llama-3 shapes, cold
// caches): with a floor of 512 steps, 70B's partitions at 1k-8k tokens were 64-128 tokens long,
// and its 1k and 4k contexts ran 20-30% slower than with 4,096. The cut depends on the problem
// only, never on the thread count, so every thread count gives the same result bit for bit.
constexpr std::size_t kMinTaskWork = 4096;
constexpr std::size_t kTargetTasks = 64;

struct Problem {
    std::size_t q_heads, kv_heads, group, d, dv, block_size;
    float scale_log2e;
    // KV heads per task: all of them when a block holds fewer than kChunk tokens (a paged cache).
    // A block's rows of every head lie together in the pool ([num_blocks, kv_heads, block_size,
    // dim]), so walking the heads inside each chunk reads the pool in long runs; one head per task
    // walks a long block (a contiguous cache) in one run instead.
    std::size_t task_heads;
};

// One task: the tokens [begin, end) of sequence `seq` for KV heads [kvh, kvh + task_heads) and
// their query heads; `part` of the unit's `parts` partitions (a unit = sequence x head range).
struct Task {
    std::size_t seq, kvh, begin, end, part, parts, unit;
};

// The K and V rows of up to kChunk visible tokens, in token order (masked tokens are left out:
// they are never read).
struct Chunk {
    const float* k[kChunk];
    const float* v[kChunk];
    std::size_t rows = 0;
};

// One worker's working set: the group's queries (times scale * log2 e), the chunk's scores then
// weights per head, each head's accumulator and state (m in log2 units), and two chunks of row
// addresses: the one being computed and the next, whose rows are being prefetched.
struct Scratch {
    AlignedFloats q, scores, acc;
    std::vector<float> m, l, alpha;
    Chunk chunks[2];
    Scratch(std::size_t heads, std::size_t group, std::size_t d, std::size_t dv)
        : q(heads * d), scores(group * kChunk), acc(heads * dv), m(heads), l(heads), alpha(heads) {}
};

// Collects the rows of the next visible tokens from `t` (up to `end`, at most kChunk) into c,
// and returns the token after the last one looked at.
std::size_t gather(const Tensor4<float>& key_pool, const Tensor4<float>& value_pool, const PagedSequence& seq,
                   std::size_t kvh, std::size_t block_size, std::size_t t, std::size_t end, Chunk& c) {
    c.rows = 0;
    const std::uint8_t* allowed = seq.key_allowed.empty() ? nullptr : seq.key_allowed.data();
    while (t < end && c.rows < kChunk) {
        const std::size_t lb = t / block_size, slot = t % block_size;
        const std::size_t stop = std::min(end, (lb + 1) * block_size);
        const float* k = key_pool.row(seq.block_table[lb], kvh, slot);
        const float* v = value_pool.row(seq.block_table[lb], kvh, slot);
        const std::size_t dk = key_pool.shape.dim, dv = value_pool.shape.dim;
        for (; t < stop && c.rows < kChunk; ++t, k += dk, v += dv) {
            if (allowed && !allowed[t]) continue;
            c.k[c.rows] = k;
            c.v[c.rows] = v;
            ++c.rows;
        }
    }
    return t;
}

// Asks for columns [x0, x1) of rows [j0, j1) ahead of their use. Paged blocks are scattered
// through the pool, so the hardware prefetcher loses the stream at every block boundary; the walk
// asks for the next (chunk, head) step's rows a few at a time from inside the current step's
// loops: a burst of a whole step's ~1,000 lines overflows the core's miss buffers and stalls.
// The lines are asked into L2 (prefetcht1), not L1: measured on Zen 4 (2 threads, cold caches,
// 32k tokens), Llama-3-8B 11.6 -> 21.6 GB/s and 70B 13.5 -> 18.3 GB/s against asking into L1;
// into L3 only was about the same as L2, non-temporal no better than L1.
// Measured and slower: the burst (Zen 5 into L1, Zen 4 into L2); asking for every 4th or 8th row
// only, which the hardware does not complete (Zen 5); a real load per row to warm the TLB (Zen 5),
// or one per 4 KiB page (Zen 4, 17-30% slower); a chunk of 32 keys and no prefetching of a
// contiguous cache (Zen 5). No gain (Zen 4): a chunk of 128 keys, and spreading a large group's
// requests over all its passes of heads.
void prefetch_rows(const float* const* rows, std::size_t j0, std::size_t j1, std::size_t x0, std::size_t x1) {
#if defined(__x86_64__)
    constexpr std::size_t kLine = 64 / sizeof(float);
    for (std::size_t j = j0; j < j1; ++j) {
        for (std::size_t x = x0; x < x1; x += kLine) __builtin_prefetch(rows[j] + x, 0, 2);
    }
#else
    (void)rows, (void)j0, (void)j1, (void)x0, (void)x1;  // elsewhere (WebAssembly) the hardware's own prefetching only
#endif
}

// v, forced into a register. In the wide tile GCC otherwise folds the load of each query vector
// into every multiply-add that uses it: J loads of it where one would do, and more loads than the
// core issues per multiply-add. Measured (Zen 4, Llama-3-70B shape, 8 x 2 tiles): in cache 15.3 ->
// 16.8 GB/s on one thread; cold, two threads, 15-17 -> 18-19 GB/s at 8k tokens and 18-19 -> 19-20
// at 32k. The 4 x 4 tile of a group of 4 gained nothing from it. Unused where there is no wide
// tile (vectors narrower than AVX-512's).
[[gnu::always_inline, maybe_unused]] inline Vec in_register(Vec v) {
#if defined(__x86_64__)
    asm("" : "+v"(v));
#endif
    return v;
}

// sc[g][j] = q[g] . k[j] for H heads and J keys: H x J accumulators over head_dim, each K vector
// loaded once for the H heads, then one lane-sum tree for all H x J dot products. `check` gains
// s - s for every score: NaN once one of them is not finite.
template <std::size_t H, std::size_t J>
void score_tile(const float* __restrict q, std::size_t d, const float* const* k, float* __restrict sc, Vec& check) {
    Vec acc[H * J] = {};
    std::size_t c = 0;
    for (; c + kVec <= d; c += kVec) {
        Vec kv[J];
        for (std::size_t j = 0; j < J; ++j) kv[j] = load_vec(k[j] + c);
        for (std::size_t h = 0; h < H; ++h) {
            Vec qv = load_vec(q + h * d + c);
            if constexpr (H > kScoreHeads) qv = in_register(qv);
            for (std::size_t j = 0; j < J; ++j) acc[h * J + j] += qv * kv[j];
        }
    }
    alignas(sizeof(Vec)) float sums[kVec];  // lanes past H x J are 0
    store_vec(sums, detail::sum_lanes(acc));
    for (std::size_t n = 0; c < d && n < H * J; ++n) {  // head_dim not a multiple of kVec
        for (std::size_t x = c; x < d; ++x) sums[n] += q[n / J * d + x] * k[n % J][x];
    }
    const Vec all = load_vec(sums);
    check += all - all;
    for (std::size_t h = 0; h < H; ++h) {
        for (std::size_t j = 0; j < J; ++j) sc[h * kChunk + j] = sums[h * J + j];
    }
}

// The scores of H heads for the chunk's keys, K keys per tile; asks for the K rows of `ahead`
// (if not null) as it goes, as many rows after each tile as it scored.
template <std::size_t H>
void score_heads(const float* q, std::size_t d, const Chunk& c, float* sc, Vec& check, const Chunk* ahead) {
    constexpr std::size_t K = kVec / std::max(H, kScoreHeads);  // keys per tile: H x K sums fill one vector
    const std::size_t ahead_rows = ahead ? ahead->rows : 0;
    std::size_t j = 0;
    for (; j + K <= c.rows; j += K) {
        score_tile<H, K>(q, d, c.k + j, sc + j, check);
        if (j < ahead_rows) prefetch_rows(ahead->k, j, std::min(j + K, ahead_rows), 0, d);
    }
    const std::size_t rest = c.rows - j;
    const auto tail = [&]<std::size_t... J>(std::index_sequence<J...>) {
        ((rest == J + 1 ? score_tile<H, J + 1>(q, d, c.k + j, sc + j, check) : void()), ...);
    };
    tail(std::make_index_sequence<K - 1>{});
    if (j < ahead_rows) prefetch_rows(ahead->k, j, ahead_rows, 0, d);
}

// acc[g] = alpha[g] acc[g] + sum_j p[g][j] v[j] for H heads over W vectors of value columns from
// column c0: the H x W accumulators stay in registers while the chunk's value rows pass. Not
// inlined: inside the walk, GCC kept the walk's values in registers across this loop and spilled
// three of each row's four V vectors to the stack, to be read back by every multiply-add. Measured
// (Zen 5, 2 threads, 2k tokens in L3): 8B 54-55 -> 56-57 GB/s, 70B 42-43 -> 48-49.
template <std::size_t H, std::size_t W>
[[gnu::noinline]] void pv_tile(const float* __restrict p, const float* __restrict alpha, const Chunk& c,
                               std::size_t c0, float* __restrict acc, std::size_t dv, const Chunk* ahead) {
    const std::size_t ahead_rows = ahead ? ahead->rows : 0;
    Vec a[H][W];
    for (std::size_t h = 0; h < H; ++h) {
        for (std::size_t w = 0; w < W; ++w) a[h][w] = alpha[h] * load_vec(acc + h * dv + c0 + w * kVec);
    }
    for (std::size_t j = 0; j < c.rows; ++j) {
        Vec vj[W];
        for (std::size_t w = 0; w < W; ++w) vj[w] = load_vec(c.v[j] + c0 + w * kVec);
        for (std::size_t h = 0; h < H; ++h) {
            const float pj = p[h * kChunk + j];
            for (std::size_t w = 0; w < W; ++w) a[h][w] += pj * vj[w];
        }
        if (j < ahead_rows) prefetch_rows(ahead->v, j, j + 1, c0, c0 + W * kVec);
    }
    for (std::size_t h = 0; h < H; ++h) {
        for (std::size_t w = 0; w < W; ++w) store_vec(acc + h * dv + c0 + w * kVec, a[h][w]);
    }
}

// P V for H heads; asks for the V rows of `ahead` (if not null) as it goes, each pass over the
// chunk's rows for its own columns of the same rows ahead.
template <std::size_t H>
void pv_heads(const float* p, const float* alpha, const Chunk& c, float* acc, std::size_t dv, const Chunk* ahead) {
    std::size_t c0 = 0;
    for (; c0 + kPvVecs * kVec <= dv; c0 += kPvVecs * kVec) pv_tile<H, kPvVecs>(p, alpha, c, c0, acc, dv, ahead);
    for (; c0 + kVec <= dv; c0 += kVec) pv_tile<H, 1>(p, alpha, c, c0, acc, dv, ahead);
    for (std::size_t h = 0; h < H; ++h) {  // value_dim not a multiple of kVec
        for (std::size_t x = c0; x < dv; ++x) {
            float a = acc[h * dv + x] * alpha[h];
            for (std::size_t j = 0; j < c.rows; ++j) a += p[h * kChunk + j] * c.v[j][x];
            acc[h * dv + x] = a;
        }
    }
    if (ahead) {  // the columns and rows the passes did not ask for
        prefetch_rows(ahead->v, 0, std::min(c.rows, ahead->rows), c0, dv);
        prefetch_rows(ahead->v, std::min(c.rows, ahead->rows), ahead->rows, 0, dv);
    }
}

// Calls f.template operator()<H>(g0) for the group's heads in runs of Max (the last run shorter).
template <std::size_t Max, class F>
void for_head_runs(std::size_t group, const F& f) {
    std::size_t g = 0;
    for (; g + Max <= group; g += Max) f.template operator()<Max>(g);
    const std::size_t rest = group - g;
    [&]<std::size_t... R>(std::index_sequence<R...>) {
        ((rest == R + 1 ? f.template operator()<R + 1>(g) : void()), ...);
    }(std::make_index_sequence<Max - 1>{});
}

float max_lane(Vec v) {
    alignas(sizeof(Vec)) float lanes[kVec];
    store_vec(lanes, v);
    float m = lanes[0];
    for (std::size_t i = 1; i < kVec; ++i) m = std::max(m, lanes[i]);
    return m;
}

// Folds one chunk of visible keys of one KV head into the states of its group's query heads, the
// task's heads [h0, h0 + group) (online_softmax::update's math for a whole chunk, exp2 of
// log2-scaled scores). Returns false if a score came out non-finite.
bool fold_chunk(const Problem& p, Scratch& w, std::size_t h0, const Chunk& c, const Chunk& ahead) {
    static_assert(kChunk % kVec == 0);
    const std::size_t G = p.group, D = p.d, Dv = p.dv;
    float* const sc = w.scores.data();
    const float* const q = w.q.data() + h0 * D;
    float* const m = w.m.data() + h0;
    float* const l = w.l.data() + h0;
    float* const alpha = w.alpha.data() + h0;
    float* const acc = w.acc.data() + h0 * Dv;
    Vec check{};
    const auto scores = [&]<std::size_t H>(std::size_t g0) {
        score_heads<H>(q + g0 * D, D, c, sc + g0 * kChunk, check, g0 == 0 ? &ahead : nullptr);
    };
    if (G % kWideScoreHeads == 0) for_head_runs<kWideScoreHeads>(G, scores);  // whole wide runs only
    else for_head_runs<kScoreHeads>(G, scores);
    for (std::size_t g = 0; g < G; ++g) {
        // Whole-chunk vector loops: a short chunk's missing keys score -inf and weigh exp2(-inf) = 0.
        float* s = sc + g * kChunk;
        std::fill(s + c.rows, s + kChunk, kNegInf);
        Vec top = load_vec(s);
        for (std::size_t j = kVec; j < kChunk; j += kVec) {
            const Vec x = load_vec(s + j);
            top = x > top ? x : top;
        }
        const float m_new = std::max(m[g], max_lane(top));  // finite: the chunk is not empty
        alpha[g] = fast_exp2(m[g] - m_new);                // exp2(-inf) = 0 for an empty state
        for (std::size_t j = 0; j < kChunk; ++j) s[j] = fast_exp2(s[j] - m_new);
        Vec sum = load_vec(s);
        for (std::size_t j = kVec; j < kChunk; j += kVec) sum += load_vec(s + j);
        l[g] = l[g] * alpha[g] + detail::sum_lanes<1>({sum})[0];
        m[g] = m_new;
    }
    for_head_runs<kPvHeads>(G, [&]<std::size_t H>(std::size_t g0) {
        pv_heads<H>(sc + g0 * kChunk, alpha + g0, c, acc + g0 * Dv, Dv, g0 == 0 ? &ahead : nullptr);
    });
    alignas(sizeof(Vec)) float lanes[kVec];
    store_vec(lanes, check);
    bool finite = true;
    for (float x : lanes) finite = finite && x == 0.0f;
    return finite;
}

// Walks the task's tokens chunk by chunk, and in each chunk its KV heads one after the other,
// gathering the next (chunk, head) step before folding the current one, whose loops prefetch the
// next step's rows. Leaves each query head's state in w (task-relative heads); returns false if a
// score came out non-finite.
bool run_walk(const Tensor4<float>& q, const Tensor4<float>& key_pool, const Tensor4<float>& value_pool,
              const PagedSequence& seq, const Task& task, const Problem& p, Scratch& w) {
    const std::size_t G = p.group, D = p.d, heads = p.task_heads * G;
    for (std::size_t h = 0; h < heads; ++h) {
        const float* qh = q.row(task.seq, task.kvh * G + h, 0);
        for (std::size_t c = 0; c < D; ++c) w.q.data()[h * D + c] = qh[c] * p.scale_log2e;
    }
    std::fill(w.acc.data(), w.acc.data() + heads * p.dv, 0.0f);
    std::fill(w.m.begin(), w.m.end(), kNegInf);
    std::fill(w.l.begin(), w.l.end(), 0.0f);
    bool finite = true;
    // The current step: KV head task.kvh + k over the chunk of tokens [start, end).
    std::size_t start = task.begin, k = 0;
    std::size_t end = gather(key_pool, value_pool, seq, task.kvh, p.block_size, start, task.end, w.chunks[0]);
    for (std::size_t i = 0; w.chunks[i % 2].rows > 0; ++i) {
        // Every head sees the same tokens: a chunk with no visible token ends the walk for all.
        const bool last_head = k + 1 == p.task_heads;
        const std::size_t next_start = last_head ? end : start, next_k = last_head ? 0 : k + 1;
        Chunk& next = w.chunks[(i + 1) % 2];
        const std::size_t next_end =
            gather(key_pool, value_pool, seq, task.kvh + next_k, p.block_size, next_start, task.end, next);
        finite = fold_chunk(p, w, k * G, w.chunks[i % 2], next) && finite;
        start = next_start, end = next_end, k = next_k;
    }
    return finite;
}

}  // namespace

FastPagedDecodeResult paged_decode_fast(const Tensor4<float>& q, const Tensor4<float>& key_pool,
                                        const Tensor4<float>& value_pool, const std::vector<PagedSequence>& sequences,
                                        const FastPagedDecodeOptions& options) {
    detail::validate_paged_decode(q, key_pool, value_pool, sequences, options.scale, false);
    if (options.num_threads > kMaxWorkers) {
        throw Error("num_threads: must be in [0, " + std::to_string(kMaxWorkers) +
                    "] (0 = hardware concurrency), got " + std::to_string(options.num_threads));
    }
    const Shape4& qs = q.shape;
    const std::size_t kv_heads = key_pool.shape.heads;
    const std::size_t block_size = key_pool.shape.seq;
    const Problem p{qs.heads, kv_heads, qs.heads / kv_heads, qs.dim, value_pool.shape.dim, block_size,
                    static_cast<float>(options.scale.value_or(1.0 / std::sqrt(static_cast<double>(qs.dim))) *
                                       std::numbers::log2e),
                    block_size < kChunk ? kv_heads : 1};
    FastPagedDecodeResult r{Tensor4<float>({qs.batch, qs.heads, 1, p.dv}), std::vector<float>(qs.batch * qs.heads)};

    // The partitions, sized in (token, KV head) steps of work (64-bit sums: in wasm32 a size_t
    // total of many long sequences could wrap).
    std::uint64_t total_work = 0;
    for (const PagedSequence& s : sequences) total_work += std::uint64_t{s.context_len} * kv_heads;
    const std::uint64_t task_work = std::max<std::uint64_t>(kMinTaskWork, (total_work + kTargetTasks - 1) / kTargetTasks);
    const std::uint64_t partition = ((task_work + p.task_heads - 1) / p.task_heads + kChunk - 1) / kChunk * kChunk;
    const std::size_t head_ranges = kv_heads / p.task_heads;
    std::vector<Task> tasks;
    bool split = false;
    for (std::size_t s = 0; s < sequences.size(); ++s) {
        const std::size_t len = sequences[s].context_len;
        const auto parts = static_cast<std::size_t>((len + partition - 1) / partition);
        // Even cuts on chunk boundaries: the last partition is the shortest.
        const std::size_t per = (len + parts - 1) / parts, step = (per + kChunk - 1) / kChunk * kChunk;
        split = split || parts > 1;
        for (std::size_t range = 0; range < head_ranges; ++range) {
            for (std::size_t part = 0; part < parts; ++part) {
                tasks.push_back({s, range * p.task_heads, std::min(len, part * step), std::min(len, (part + 1) * step),
                                 part, parts, s * head_ranges + range});
            }
        }
    }
    // A split unit's partitions leave their states here (per query head: m in natural units, l,
    // then acc); the last one to finish merges them in partition order.
    const std::size_t task_q_heads = p.task_heads * p.group, head_floats = p.dv + 2;
    const std::size_t state_floats = task_q_heads * head_floats;
    std::vector<float> partials(split ? tasks.size() * state_floats : 0);
    std::vector<std::atomic<std::size_t>> unfinished(sequences.size() * head_ranges);
    for (const Task& t : tasks) unfinished[t.unit].store(t.parts, std::memory_order_relaxed);

    std::vector<Scratch> scratch;
    const std::size_t workers = detail::worker_count(options.num_threads, tasks.size());
    scratch.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w) scratch.emplace_back(task_q_heads, p.group, p.d, p.dv);

    // The first sequence whose walk met a non-finite score or output (sequences.size() = none).
    std::atomic<std::size_t> bad_sequence{sequences.size()};
    const auto report_bad = [&](std::size_t s) {
        std::size_t none = sequences.size();
        bad_sequence.compare_exchange_strong(none, s);
    };
    // Normalises the merged state of the task's query head h into the output: acc / l and
    // lse = m + ln l.
    const auto finalize = [&](const Task& t, std::size_t h, online_softmax::State<float> state, const float* acc) {
        const std::size_t head = t.kvh * p.group + h;
        float* out = r.output.row(t.seq, head, 0);
        float& lse = r.lse[t.seq * p.q_heads + head];
        lse = online_softmax::finalize(state, acc, p.dv, out);
        bool finite = !std::isnan(lse) && lse != INFINITY;
        for (std::size_t c = 0; c < p.dv; ++c) finite = finite && std::isfinite(out[c]);
        if (!finite) report_bad(t.seq);
    };
    const float ln2 = std::numbers::ln2_v<float>;
    detail::run_tasks(tasks.size(), scratch, [&](Scratch& w, std::size_t index) {
        const Task& t = tasks[index];
        if (!run_walk(q, key_pool, value_pool, sequences[t.seq], t, p, w)) report_bad(t.seq);
        if (t.parts == 1) {
            for (std::size_t h = 0; h < task_q_heads; ++h) finalize(t, h, {w.m[h] * ln2, w.l[h]}, w.acc.data() + h * p.dv);
            return;
        }
        float* mine = partials.data() + index * state_floats;
        for (std::size_t h = 0; h < task_q_heads; ++h) {
            mine[h * head_floats] = w.m[h] * ln2;
            mine[h * head_floats + 1] = w.l[h];
            std::copy_n(w.acc.data() + h * p.dv, p.dv, mine + h * head_floats + 2);
        }
        // acq_rel: the merging task sees every other partition's writes.
        if (unfinished[t.unit].fetch_sub(1, std::memory_order_acq_rel) != 1) return;
        const float* first = partials.data() + (index - t.part) * state_floats;  // the unit's tasks are adjacent
        for (std::size_t h = 0; h < task_q_heads; ++h) {
            const float* s0 = first + h * head_floats;
            online_softmax::State<float> state{s0[0], s0[1]};
            float* acc = w.acc.data() + h * p.dv;
            std::copy_n(s0 + 2, p.dv, acc);
            for (std::size_t part = 1; part < t.parts; ++part) {
                const float* sp = s0 + part * state_floats;
                online_softmax::merge(state, acc, online_softmax::State<float>{sp[0], sp[1]}, sp + 2, p.dv);
            }
            finalize(t, h, state, acc);
        }
    });
    if (const std::size_t s = bad_sequence.load(); s != sequences.size()) {
        throw Error("key_pool/value_pool: a row sequences[" + std::to_string(s) +
                    "] reads is not finite (its scores or output came out non-finite)");
    }
    return r;
}

}  // namespace attn
