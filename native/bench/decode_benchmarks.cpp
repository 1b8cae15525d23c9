#include "decode_benchmarks.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <unistd.h>

#include "attn/attention/paged_decode_fast.hpp"
#include "attn/attention/sdpa.hpp"
#include "attn/random.hpp"
#include "attn/worker_pool.hpp"
#include "bench_support.hpp"
#include "paired_reads.hpp"
#include "summary.hpp"

namespace attn::bench {
namespace {

// One sequence's cache in a pool: paged (a shuffled table of kDecodeBlockSize-token blocks) or
// contiguous (a single block holding the whole context, the layout of a preallocated cache).
template <class T>
struct Cache {
    Tensor4<T> keys, values;
    PagedSequence sequence;
};

// Values that only have to be deterministic and cheap to make: a 1 GiB cache would take seconds
// with a normal generator. Uniform in [-1, 1).
void fill_uniform(std::vector<float>& data, std::uint64_t seed) {
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (float& e : data) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        e = static_cast<float>(x >> 40) * 0x1p-23f - 1.0f;
    }
}

template <class T>
Cache<T> make_cache(const DecodeShape& s, std::size_t context, bool paged, std::uint64_t seed) {
    const std::size_t block = paged ? kDecodeBlockSize : context;
    const std::size_t blocks = (context + block - 1) / block;
    Cache<T> c;
    c.sequence.context_len = context;
    c.sequence.block_table.resize(blocks);
    std::iota(c.sequence.block_table.begin(), c.sequence.block_table.end(), std::size_t{0});
    std::mt19937_64 rng(seed);
    std::shuffle(c.sequence.block_table.begin(), c.sequence.block_table.end(), rng);
    if constexpr (std::is_same_v<T, float>) {
        c.keys = Tensor4<float>({blocks, s.kv_heads, block, s.head_dim});
        c.values = Tensor4<float>({blocks, s.kv_heads, block, s.head_dim});
        fill_uniform(c.keys.data, seed + 1);
        fill_uniform(c.values.data, seed + 2);
    } else {
        c.keys = random_normal({blocks, s.kv_heads, block, s.head_dim}, seed + 1);
        c.values = random_normal({blocks, s.kv_heads, block, s.head_dim}, seed + 2);
    }
    return c;
}

double kv_bytes(const DecodeShape& s, std::size_t context) {
    return 2.0 * static_cast<double>(s.kv_heads * context * s.head_dim * sizeof(float));
}

// paged_decode_fast on float copies of a double cache against sdpa in double over the gathered
// sequence, at an odd context with a partial last block.
double check_error(const DecodeShape& s, bool paged) {
    constexpr std::size_t kContext = 1037;
    const Cache<double> c = make_cache<double>(s, kContext, paged, 0x5eedd00d + s.q_heads);
    const Tensor4<double> q = random_normal({1, s.q_heads, 1, s.head_dim}, 0x5eedd00d);
    const auto [k, v] = gather_paged_kv(c.keys, c.values, c.sequence);
    const auto ref = sdpa(q, k, v);
    const auto out = paged_decode_fast(tensor_cast<float>(q), tensor_cast<float>(c.keys), tensor_cast<float>(c.values),
                                       {c.sequence}).output;
    double worst = 0;
    for (std::size_t n = 0; n < out.data.size(); ++n) {
        const double e = std::abs(static_cast<double>(out.data[n]) - ref.output.data[n]);
        worst = std::isnan(e) ? INFINITY : std::max(worst, e);
    }
    return worst;
}

double checked_error(const DecodeShape& s, bool paged) {
    static std::map<std::pair<std::string, bool>, double> done;
    const auto key = std::make_pair(s.model, paged);
    auto it = done.find(key);
    if (it == done.end()) it = done.emplace(key, check_error(s, paged)).first;
    return it->second;
}

// Sum of n floats with independent partial sums: a loop the vectoriser turns into wide loads.
float stream_sum(const float* __restrict data, std::size_t n) {
    constexpr std::size_t kLanes = 32;
    float part[kLanes] = {};
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        for (std::size_t l = 0; l < kLanes; ++l) part[l] += data[i + l];
    }
    float sum = 0;
    for (; i < n; ++i) sum += data[i];
    for (float p : part) sum += p;
    return sum;
}

// Reads every float of `pools` once, each pool split evenly over the workers the decode kernel
// runs on by default (attn::run_on_workers, one per hardware thread): the same threads, as ready
// as they are for the kernel.
void parallel_read(std::initializer_list<const std::vector<float>*> pools) {
    const std::size_t workers = default_workers();
    std::vector<float> partial(pools.size() * workers);
    run_on_workers(workers, [&](std::size_t w) {
        std::size_t i = 0;
        for (const std::vector<float>* pool : pools) {
            const std::size_t n = pool->size(), begin = n * w / workers, end = n * (w + 1) / workers;
            partial[i++ * workers + w] = stream_sum(pool->data() + begin, end - begin);
        }
    });
    benchmark::DoNotOptimize(partial.data());
    benchmark::ClobberMemory();
}

// The last-level cache of the CPU this process runs on, in bytes: the kernel's own account
// (/sys/devices/system/cpu/cpu0/cache/index3/size, "32768K", as lscpu prints it) first. glibc's
// sysconf(_SC_LEVEL3_CACHE_SIZE) reads CPUID, which in a virtual machine can describe the host's
// whole L3 (384 MiB on a 32 MiB EPYC guest): an eviction twelve times too large, which made every
// iteration slow and the page walks of the next call colder than any model would see. 64 MiB when
// neither is known.
std::size_t last_level_cache_bytes() {
    std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index3/size");
    std::size_t amount = 0;
    char unit = 0;
    if (f >> amount >> unit && amount > 0) return amount << (unit == 'M' ? 20 : unit == 'K' ? 10 : 0);
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return l3 > 0 ? static_cast<std::size_t>(l3) : std::size_t{64} << 20;
}

// In a model, a layer's KV cache is cold when its decode step starts: every other layer's cache
// and weights (gigabytes) have passed through the CPU's caches since the layer was last read. So
// before each timed read, untimed, every thread reads a buffer twice the size of the last-level
// cache. Without it, a cache a small multiple of the L3 (8k tokens of Llama 3 = 64 MiB against
// 32 MiB) is partly still cached from the read before -- more for the streaming read, which a
// victim L3 favours, than for the decode kernel -- which no model in service sees.
void evict_caches() {
    static const std::vector<float> buffer(2 * last_level_cache_bytes() / sizeof(float), 1.0f);
    parallel_read({&buffer});
}

// The three reads of one shape and context, timed in turn inside every iteration, each from its
// own cold start: the streaming read of the paged pool's bytes (the ceiling), the kernel over the
// paged pool, and the kernel over the contiguous cache. The machine's bandwidth moves by tens of
// per cent within seconds (other tenants of the host), so reads timed in separate runs, one after
// the other, compare different moments; taken in turn, with the order rotating every iteration,
// each ratio compares neighbouring moments, and the medians ignore a burst. The iteration time is
// the three reads' sum.
void decode_benchmark(benchmark::State& state, const DecodeShape& s, std::size_t context) {
    const double paged_error = checked_error(s, true), contiguous_error = checked_error(s, false);
    if (!(paged_error <= kCheckTolerance && contiguous_error <= kCheckTolerance)) {
        state.SkipWithError(("correctness check failed: max |error| paged " + std::to_string(paged_error) +
                             ", contiguous " + std::to_string(contiguous_error)).c_str());
        return;
    }
    const Cache<float> paged = make_cache<float>(s, context, true, 7), contiguous = make_cache<float>(s, context, false, 7);
    Tensor4<float> q({1, s.q_heads, 1, s.head_dim});
    fill_uniform(q.data, 11);
    const std::vector<PagedSequence> paged_sequences{paged.sequence}, contiguous_sequences{contiguous.sequence};
    const std::function<void()> reads[] = {
        [&] { parallel_read({&paged.keys.data, &paged.values.data}); },
        [&] { benchmark::DoNotOptimize(paged_decode_fast(q, paged.keys, paged.values, paged_sequences)); },
        [&] { benchmark::DoNotOptimize(paged_decode_fast(q, contiguous.keys, contiguous.values, contiguous_sequences)); },
    };
    constexpr std::size_t kReads = std::size(reads);
    std::vector<double> seconds[kReads];
    std::size_t first = 0;
    for (auto _ : state) {
        double iteration = 0;
        for (std::size_t k = 0; k < kReads; ++k) {
            const std::size_t r = (first + k) % kReads;
            evict_caches();
            const auto start = std::chrono::steady_clock::now();
            reads[r]();
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            seconds[r].push_back(elapsed);
            iteration += elapsed;
        }
        first = (first + 1) % kReads;
        state.SetIterationTime(iteration);
    }
    const double bytes = kv_bytes(s, context);
    state.counters["paged_percent_of_stream"] = median_speed_percent(seconds[1], seconds[0]);
    state.counters["paged_percent_of_contiguous"] = median_speed_percent(seconds[1], seconds[2]);
    state.counters["stream_bytes/s"] = bytes / median(seconds[0]);
    state.counters["paged_bytes/s"] = bytes / median(seconds[1]);
    state.counters["contiguous_bytes/s"] = bytes / median(seconds[2]);
    state.counters["N"] = static_cast<double>(context);
    state.counters["d"] = static_cast<double>(s.head_dim);
    state.counters["causal"] = 0;
    state.counters["q_heads"] = static_cast<double>(s.q_heads);
    state.counters["kv_heads"] = static_cast<double>(s.kv_heads);
    state.counters["check_error"] = std::max(paged_error, contiguous_error);
}

}  // namespace

void register_decode_benchmarks() {
    // A fixed count of iterations reading about 4 GB per layout: left to itself, the library would
    // time ever more iterations of a short context, each behind its untimed evictions.
    for (const DecodeShape& s : decode_shapes()) {
        for (std::size_t n : kDecodeContexts) {
            const auto iterations = static_cast<benchmark::IterationCount>(std::max(10.0, 4e9 / kv_bytes(s, n)));
            benchmark::RegisterBenchmark(("cpu/decode/" + s.model + "/N:" + std::to_string(n)).c_str(),
                                         [s, n](benchmark::State& st) { decode_benchmark(st, s, n); })
                ->UseManualTime()->Iterations(iterations)->Unit(benchmark::kMillisecond);
        }
    }
}

bool run_decode_checks(std::ostream& out) {
    bool all = true;
    for (const DecodeShape& s : decode_shapes()) {
        for (bool paged : {true, false}) {
            const double e = check_error(s, paged);
            const bool ok = e <= kCheckTolerance;
            out << "  " << (ok ? "ok  " : "FAIL") << "  decode_" << (paged ? "paged" : "contiguous") << "  " << s.model
                << " Hq=" << s.q_heads << " Hkv=" << s.kv_heads << " d=" << s.head_dim << " context=1037  max|error| = " << e
                << "\n";
            all = all && ok;
        }
    }
    return all;
}

std::string report_decode_ratios(const std::vector<MeasuredRun>& runs, std::ostream& out) {
    out << "\n(d) decode, one token over one layer's KV cache (paged_decode_fast, FP32), GB/s of K/V read;"
           " shares are medians of per-iteration ratios; target: paged >= 70% of the streaming read at context >= 8k,"
           " and within 10% of contiguous\n";
    std::ostringstream json;
    json << "[";
    bool first = true;
    for (const DecodeShape& s : decode_shapes()) {
        out << "    " << s.model << " (Hq=" << s.q_heads << ", Hkv=" << s.kv_heads << ", d=" << s.head_dim << ")\n";
        for (std::size_t n : kDecodeContexts) {
            const double d = static_cast<double>(s.head_dim), ctx = static_cast<double>(n);
            const MeasuredRun* run = find_run(runs, "cpu/decode/" + s.model, ctx, d, 0);
            const double paged = run_counter(run, "paged_bytes/s");
            const double contiguous = run_counter(run, "contiguous_bytes/s");
            const double stream = run_counter(run, "stream_bytes/s");
            const double of_stream = run_counter(run, "paged_percent_of_stream");
            const double of_contiguous = run_counter(run, "paged_percent_of_contiguous");
            out << "      context " << std::setw(6) << n << std::fixed << std::setprecision(1) << ": paged "
                << paged / 1e9 << " GB/s, contiguous " << contiguous / 1e9 << " GB/s, stream " << stream / 1e9
                << " GB/s -> paged = " << std::setprecision(0) << of_stream << "% of stream, "
                << of_contiguous << "% of contiguous\n"
                << std::defaultfloat << std::setprecision(6);
            json << (first ? "" : ",") << "{\"model\":\"" << s.model << "\",\"q_heads\":" << s.q_heads
                 << ",\"kv_heads\":" << s.kv_heads << ",\"d\":" << s.head_dim << ",\"context\":" << n
                 << ",\"kv_bytes\":" << static_cast<std::uint64_t>(kv_bytes(s, n)) << ",\"paged_bytes_per_s\":" << json_number(paged)
                 << ",\"contiguous_bytes_per_s\":" << json_number(contiguous) << ",\"stream_bytes_per_s\":" << json_number(stream)
                 << ",\"paged_percent_of_stream\":" << json_number(of_stream)
                 << ",\"paged_percent_of_contiguous\":" << json_number(of_contiguous) << "}";
            first = false;
        }
    }
    json << "]";
    return json.str();
}

}  // namespace attn::bench
