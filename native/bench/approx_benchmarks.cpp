#include "approx_benchmarks.hpp"

#include <benchmark/benchmark.h>

#include <cmath>
#include <functional>
#include <iomanip>
#include <map>
#include <memory>
#include <sstream>

#include "alloc_counter.hpp"
#include "approx_blas.hpp"
#include "attn/approx/linear_attention.hpp"
#include "attn/approx/linformer.hpp"
#include "attn/approx/lsh_attention.hpp"
#include "attn/approx/performer.hpp"
#include "attn/approx/sparse_patterns.hpp"
#include "attn/attention/flash_forward_fast.hpp"
#include "attn/random.hpp"
#include "bench_support.hpp"
#include "standard_attention_blas.hpp"
#include "summary.hpp"

namespace attn::bench {
namespace {

using Runner = std::function<Tensor4<float>(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&)>;

// The check problem: odd length, two heads, N(0, 1) inputs; each method with parameters small
// enough that its structure (buckets, chunks, the band's edges, k < N) is exercised at this N.
constexpr std::size_t kCheckLen = 257, kCheckHeads = 2;
// FP32 against double with at most a few hundred terms per sum: errors are ~1e-6.
constexpr double kApproxCheckTolerance = 1e-4;

std::vector<float> to_float(const std::vector<double>& x) { return {x.begin(), x.end()}; }

struct Method {
    std::string name;         // "performer"
    std::string description;  // with its parameters
    // The method, its random parameters drawn for length n (outside the timed region).
    std::function<Runner(std::size_t n)> prepare;
    // Max |this method - the core's double reference| on the check problem.
    std::function<double(const Tensor4<double>&, const Tensor4<double>&, const Tensor4<double>&)> check;
    bool shared_qk = false;  // its exact counterpart is shared-QK attention (LSH)
};

double max_abs_difference(const Tensor4<float>& a, const Tensor4<double>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i) {
        const double e = std::abs(static_cast<double>(a.data[i]) - b.data[i]);
        worst = std::isnan(e) ? INFINITY : std::max(worst, e);
    }
    return worst;
}

constexpr std::size_t kFeatures = 256, kProjected = 256, kWindow = 256, kBuckets = 64, kChunk = 64;

const std::vector<Method>& methods() {
    static const std::vector<Method> all = [] {
        std::vector<Method> m;
        m.push_back({"performer", "Performer FAVOR+, 256 orthogonal random features",
                     [](std::size_t) -> Runner {
                         const auto w = to_float(approx::performer_features(kFeatures, kApproxHeadDim, true, 1));
                         return [w](auto& q, auto& k, auto& v) { return performer_blas(q, k, v, w, kFeatures); };
                     },
                     [](auto& q, auto& k, auto& v) {
                         const std::size_t features = 64;
                         const auto w = to_float(approx::performer_features(features, q.shape.dim, true, 1));
                         approx::PerformerOptions o;
                         o.num_features = features;
                         o.seed = 1;
                         return max_abs_difference(performer_blas(tensor_cast<float>(q), tensor_cast<float>(k), tensor_cast<float>(v), w, features),
                                                   approx::performer(q, k, v, o).output);
                     }});
        m.push_back({"linformer", "Linformer, K and V projected to 256 rows (random N(0, 1/N) projections)",
                     [](std::size_t n) -> Runner {
                         const auto p = approx::linformer_random_projections(kProjected, n, 2);
                         return [e = to_float(p.e), f = to_float(p.f)](auto& q, auto& k, auto& v) {
                             return linformer_blas(q, k, v, e, f, kProjected);
                         };
                     },
                     [](auto& q, auto& k, auto& v) {
                         const auto p = approx::linformer_random_projections(32, q.shape.seq, 2);
                         return max_abs_difference(linformer_blas(tensor_cast<float>(q), tensor_cast<float>(k), tensor_cast<float>(v),
                                                                  to_float(p.e), to_float(p.f), 32),
                                                   approx::linformer(q, k, v, p).output);
                     }});
        m.push_back({"linear", "Linear Transformer, phi = elu + 1 (a different kernel, not softmax)",
                     [](std::size_t) -> Runner { return [](auto& q, auto& k, auto& v) { return linear_attention_blas(q, k, v); }; },
                     [](auto& q, auto& k, auto& v) {
                         return max_abs_difference(linear_attention_blas(tensor_cast<float>(q), tensor_cast<float>(k), tensor_cast<float>(v)),
                                                   approx::linear_attention(q, k, v).output);
                     }});
        m.push_back({"sliding_window", "Longformer sliding window, 256 keys on each side (no global tokens)",
                     [](std::size_t) -> Runner {
                         return [](auto& q, auto& k, auto& v) { return sliding_window_blas(q, k, v, kWindow); };
                     },
                     [](auto& q, auto& k, auto& v) {
                         const std::size_t window = 37;
                         return max_abs_difference(sliding_window_blas(tensor_cast<float>(q), tensor_cast<float>(k), tensor_cast<float>(v), window),
                                                   approx::sparse_attention(q, k, v, approx::longformer_pattern(window, 0)).output);
                     }});
        // The rotation R depends only on d, the bucket count and the seed: the core's LSH attention
        // on two tokens hands it over.
        auto rotation = [](std::size_t buckets, std::size_t d) {
            approx::LshOptions o;
            o.num_buckets = buckets;
            o.seed = 3;
            const Tensor4<double> two = random_normal({1, 1, 2, d}, 1);
            return approx::lsh_attention(two, two, two, o).rotations;
        };
        m.push_back({"lsh", "Reformer LSH, shared QK, 64 buckets, one round, chunks of 64",
                     [rotation](std::size_t) -> Runner {
                         return [r = to_float(rotation(kBuckets, kApproxHeadDim))](auto& q, auto&, auto& v) {
                             return lsh_attention_blas(q, v, r, kBuckets, kChunk);
                         };
                     },
                     [rotation](auto& q, auto& k, auto& v) {
                         approx::LshOptions o;
                         o.num_buckets = 8;
                         o.chunk_length = 16;
                         o.seed = 3;
                         return max_abs_difference(lsh_attention_blas(tensor_cast<float>(q), tensor_cast<float>(v),
                                                                      to_float(rotation(8, q.shape.dim)), 8, 16),
                                                   approx::lsh_attention(q, k, v, o).approx.output);
                     },
                     true});
        return m;
    }();
    return all;
}

double checked(const Method& m) {
    static std::map<std::string, double> done;
    auto it = done.find(m.name);
    if (it == done.end()) {
        const Tensor4<double> q = random_normal({1, kCheckHeads, kCheckLen, kApproxHeadDim}, 11);
        const Tensor4<double> k = random_normal({1, kCheckHeads, kCheckLen, kApproxHeadDim}, 12);
        const Tensor4<double> v = random_normal({1, kCheckHeads, kCheckLen, kApproxHeadDim}, 13);
        it = done.emplace(m.name, m.check(q, k, v)).first;
    }
    return it->second;
}

Inputs inputs_for(std::size_t n) {
    Problem p;
    p.heads = p.kv_heads = 1;
    p.seq = n;
    p.head_dim = kApproxHeadDim;
    return make_inputs(p, 42);
}

// The exact outputs of the timed inputs at each N, computed once: flash_fast's, and shared-QK
// attention's for LSH.
const Tensor4<float>& exact(std::size_t n, bool shared_qk) {
    static std::map<std::pair<std::size_t, bool>, Tensor4<float>> done;
    auto it = done.find({n, shared_qk});
    if (it == done.end()) {
        const Inputs in = inputs_for(n);
        it = done.emplace(std::make_pair(n, shared_qk),
                          shared_qk ? shared_qk_attention_blas(in.q, in.v) : flash_forward_fast(in.q, in.k, in.v).output)
                 .first;
    }
    return it->second;
}

double relative_error(const Tensor4<float>& out, const Tensor4<float>& ref) {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < out.data.size(); ++i) {
        const double e = static_cast<double>(out.data[i]) - ref.data[i];
        diff += e * e;
        norm += static_cast<double>(ref.data[i]) * ref.data[i];
    }
    return std::sqrt(diff / norm);
}

void timed(benchmark::State& state, std::size_t n, const Runner& run, bool shared_qk, double check_error) {
    const Inputs in = inputs_for(n);
    const double rel = relative_error(run(in.q, in.k, in.v), exact(n, shared_qk));
    const std::size_t before = heap_bytes_in_use();
    reset_heap_peak();
    for (auto _ : state) benchmark::DoNotOptimize(run(in.q, in.k, in.v));
    using benchmark::Counter;
    state.counters["peak_heap_bytes"] = Counter(static_cast<double>(heap_bytes_peak() - before), Counter::kDefaults, Counter::kIs1024);
    state.counters["rel_error"] = rel;
    state.counters["check_error"] = check_error;
    state.counters["N"] = static_cast<double>(n);
    state.counters["d"] = static_cast<double>(kApproxHeadDim);
    state.counters["causal"] = 0;
    state.counters["batch"] = 1;
    state.counters["heads"] = 1;
}

void register_one(const std::string& family, std::size_t n, std::function<void(benchmark::State&)> body) {
    benchmark::RegisterBenchmark((family + "/N:" + std::to_string(n)).c_str(), std::move(body))
        ->UseRealTime()->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
}

}  // namespace

void register_approx_benchmarks() {
    // Per N, the exact baselines and then every method, adjacent: a change of background load hits
    // both sides of each comparison alike.
    for (std::size_t n : kApproxSeqLens) {
        register_one("cpu/approx_flash_fast", n, [n](benchmark::State& s) {
            timed(s, n, [](auto& q, auto& k, auto& v) { return flash_forward_fast(q, k, v).output; }, false, 0);
        });
        register_one("cpu/approx_standard_blas", n, [n](benchmark::State& s) {
            timed(s, n, [](auto& q, auto& k, auto& v) { return standard_attention_blas(q, k, v, Causal::none); }, false, 0);
        });
        for (const Method& m : methods()) {
            register_one("cpu/approx_" + m.name, n, [&m, n](benchmark::State& s) {
                const double error = checked(m);
                if (!(error <= kApproxCheckTolerance)) {
                    s.SkipWithError(("check against the core's reference failed: max |error| " + std::to_string(error)).c_str());
                    return;
                }
                timed(s, n, m.prepare(n), m.shared_qk, error);
            });
        }
    }
}

bool run_approx_checks(std::ostream& out) {
    bool all = true;
    for (const Method& m : methods()) {
        const double e = checked(m);
        const bool ok = e <= kApproxCheckTolerance;
        out << "  " << (ok ? "ok  " : "FAIL") << "  approx_" << m.name << "  B=1 H=" << kCheckHeads << " N=" << kCheckLen
            << " d=" << kApproxHeadDim << " vs the core's double reference  max|error| = " << e << "\n";
        all = all && ok;
    }
    return all;
}

std::string report_approx(const std::vector<MeasuredRun>& runs, std::ostream& out) {
    const double d = static_cast<double>(kApproxHeadDim);
    auto run = [&](const std::string& name, std::size_t n) { return find_run(runs, "cpu/approx_" + name, double(n), d, 0); };
    auto seconds = [&](const std::string& name, std::size_t n) {
        const MeasuredRun* r = run(name, n);
        return r ? r->seconds_per_iteration : NAN;
    };
    out << "\n(e) approximate attention against exact flash_fast, one head, d = 64, FP32: time of each / flash_fast's time"
           " (< 1 = faster), and ||O - O_exact|| / ||O_exact||\n";
    std::ostringstream json;
    json << "{\"methods\":[";
    bool first_method = true;
    for (const Method& m : methods()) {
        json << (first_method ? "" : ",") << "{\"name\":\"" << m.name << "\",\"description\":\"" << m.description << "\",\"runs\":[";
        first_method = false;
        out << "    " << std::left << std::setw(15) << m.name << std::right;
        bool first = true;
        for (std::size_t n : kApproxSeqLens) {
            const double ratio = seconds(m.name, n) / seconds("flash_fast", n);
            out << "  N=" << n << ": " << std::fixed << std::setprecision(2) << ratio << "x";
            json << (first ? "" : ",") << "{\"N\":" << n << ",\"seconds\":" << json_number(seconds(m.name, n))
                 << ",\"flash_seconds\":" << json_number(seconds("flash_fast", n))
                 << ",\"standard_seconds\":" << json_number(seconds("standard_blas", n))
                 << ",\"time_vs_flash\":" << json_number(ratio)
                 << ",\"peak_heap_bytes\":" << json_number(run_counter(run(m.name, n), "peak_heap_bytes"))
                 << ",\"rel_error\":" << json_number(run_counter(run(m.name, n), "rel_error")) << "}";
            first = false;
        }
        // The crossover: the smallest N from which the method is faster at every larger N measured.
        std::size_t crossover = 0;
        for (auto it = std::rbegin(kApproxSeqLens); it != std::rend(kApproxSeqLens); ++it) {
            if (!(seconds(m.name, *it) < seconds("flash_fast", *it))) break;
            crossover = *it;
        }
        json << "],\"crossover_N\":" << (crossover ? std::to_string(crossover) : "null")
             << ",\"rel_error_at_crossover\":" << json_number(crossover ? run_counter(run(m.name, crossover), "rel_error") : NAN) << "}";
        out << std::defaultfloat << "\n      crossover: ";
        if (crossover) {
            out << "N = " << crossover << ", where its relative error is " << std::setprecision(3)
                << run_counter(run(m.name, crossover), "rel_error") << "\n";
        } else {
            out << "none up to N = " << kApproxSeqLens[std::size(kApproxSeqLens) - 1] << "\n";
        }
    }
    json << "]}";
    out << std::setprecision(6);
    return json.str();
}

}  // namespace attn::bench
