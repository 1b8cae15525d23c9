#include "cuda_decode_benchmarks.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "attention_kernels.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"
#include "cuda_bench_runtime.hpp"
#include "cuda_elements.hpp"
#include "gpu_decode_plan.hpp"
#include "gpu_device.hpp"

namespace attn::bench {
namespace {

enum class KvElement { fp16, bf16 };
constexpr KvElement kKvElements[] = {KvElement::fp16, KvElement::bf16};

const char* element_name(KvElement e) { return e == KvElement::fp16 ? "fp16" : "bf16"; }

cuda::PagedDecodeShape kernel_shape(const DecodeLaunchShape& s) {
    return {s.num_seqs, s.q_heads, s.kv_heads, s.head_dim, s.block_size, s.num_blocks, s.max_blocks_per_seq};
}

int heuristic_splits(const DecodeLaunchShape& s) {
    return cuda::paged_decode_num_splits(s.num_seqs, s.kv_heads, s.max_context_len, cuda_device().sm_count);
}

// The device side of one decode call.
struct DecodeBuffers {
    DeviceBuffer q, keys, values, tables, context_lens, workspace, out, lse;
};

template <class T>
void launch_decode(const DecodeBuffers& b, const cuda::PagedDecodeShape& shape, int max_context_len, int splits) {
    cuda::paged_decode(static_cast<const float*>(b.q.get()), static_cast<const T*>(b.keys.get()),
                       static_cast<const T*>(b.values.get()), static_cast<const int*>(b.tables.get()),
                       static_cast<const int*>(b.context_lens.get()), shape, max_context_len, splits,
                       static_cast<float*>(b.workspace.get()), static_cast<float*>(b.out.get()),
                       static_cast<float*>(b.lse.get()), std::nullopt, runtime().stream);
}

// ---------------------------------------------------------------------------------------------
// The check before timing.

struct DecodeGpuCheck {
    std::string description, failure;  // failure: what went wrong besides the error (a launch error)
    std::vector<int> splits;           // the split counts checked
    double max_abs_error = 0;
    bool passed = false;
};

template <class T>
DecodeGpuCheck check_decode_typed(const DecodeShape& shape, const GpuDecodeLayout& layout) {
    const DecodeCheckCase c = make_decode_check_case(shape, layout, 0x5eedd3c0 + shape.q_heads + layout.block_size);
    DecodeGpuCheck r;
    r.description = c.description;
    try {
        const int seqs = static_cast<int>(c.context_lens.size());
        const int max_context = *std::max_element(c.context_lens.begin(), c.context_lens.end());
        const cuda::PagedDecodeShape ks{seqs,
                                        static_cast<int>(shape.q_heads),
                                        static_cast<int>(shape.kv_heads),
                                        static_cast<int>(shape.head_dim),
                                        static_cast<int>(layout.block_size),
                                        c.num_blocks,
                                        c.max_blocks_per_seq};
        DecodeBuffers b;
        b.q = upload(c.q);
        b.keys = upload(converted<T>(c.key_pool));
        b.values = upload(converted<T>(c.value_pool));
        b.tables = upload(c.block_tables);
        b.context_lens = upload(c.context_lens);
        b.out = device_alloc(c.expected_out.size() * sizeof(float));
        b.lse = device_alloc(c.expected_lse.size() * sizeof(float));
        // One split (no merge work), the heuristic's count for this GPU, and eight: the 1- and
        // 17-token sequences then have empty splits the merge must ignore.
        r.splits = {1, cuda::paged_decode_num_splits(seqs, ks.kv_heads, max_context, cuda_device().sm_count), 8};
        for (int splits : r.splits) {
            b.workspace = device_alloc(cuda::paged_decode_workspace_floats(ks, splits) * sizeof(float));
            launch_decode<T>(b, ks, max_context, splits);
            cuda_check(cudaStreamSynchronize(runtime().stream), "paged_decode (check run)");
            std::vector<float> out(c.expected_out.size()), lse(c.expected_lse.size());
            cuda_check(cudaMemcpy(out.data(), b.out.get(), out.size() * sizeof(float), cudaMemcpyDeviceToHost),
                       "cudaMemcpy to host");
            cuda_check(cudaMemcpy(lse.data(), b.lse.get(), lse.size() * sizeof(float), cudaMemcpyDeviceToHost),
                       "cudaMemcpy to host");
            r.max_abs_error = std::max(r.max_abs_error, compare_with_reference(c, out, lse).max_abs_error);
        }
        r.passed = r.max_abs_error <= kDecodeCheckTolerance;
    } catch (const std::exception& e) {
        r.failure = e.what();
        r.max_abs_error = INFINITY;
    }
    return r;
}

DecodeGpuCheck check_decode(const DecodeShape& shape, const GpuDecodeLayout& layout, KvElement e) {
    return e == KvElement::fp16 ? check_decode_typed<__half>(shape, layout) : check_decode_typed<__nv_bfloat16>(shape, layout);
}

std::string describe(const DecodeGpuCheck& c, KvElement e) {
    std::ostringstream s;
    s << "cuda/paged_decode " << element_name(e) << "  " << c.description << "  splits";
    for (int n : c.splits) s << " " << n;
    s << "  max|error| = " << c.max_abs_error << " (tolerance " << kDecodeCheckTolerance << ")";
    if (!c.failure.empty()) s << "  " << c.failure;
    return s.str();
}

const DecodeGpuCheck& checked(const DecodeShape& shape, const GpuDecodeLayout& layout, KvElement e) {
    static std::map<std::tuple<std::string, std::string_view, KvElement>, DecodeGpuCheck> done;
    const auto key = std::make_tuple(shape.model, layout.name, e);
    auto it = done.find(key);
    if (it == done.end()) it = done.emplace(key, check_decode(shape, layout, e)).first;
    return it->second;
}

// ---------------------------------------------------------------------------------------------
// The timed runs.

// A pool of `elements` N(0, 1) values: a 16 Mi-element chunk uploaded once, then copied on the
// device onto itself in doubling spans (a 16 GiB pool fills in tens of milliseconds, not the
// seconds drawing every value on the host would take). Decode's speed does not depend on the
// values, only on reading them.
template <class T>
DeviceBuffer filled_pool(std::size_t elements) {
    static const std::vector<T> chunk = converted<T>(tensor_cast<float>(random_normal({1, 1, 1, std::size_t{1} << 24}, 99)).data);
    DeviceBuffer pool = device_alloc(elements * sizeof(T));
    auto* base = static_cast<char*>(pool.get());
    const std::size_t total = elements * sizeof(T);
    std::size_t filled = std::min(total, chunk.size() * sizeof(T));
    cuda_check(cudaMemcpy(base, chunk.data(), filled, cudaMemcpyHostToDevice), "cudaMemcpy to device");
    while (filled < total) {
        const std::size_t span = std::min(filled, total - filled);
        cuda_check(cudaMemcpy(base + filled, base, span, cudaMemcpyDeviceToDevice), "cudaMemcpy on device");
        filled += span;
    }
    return pool;
}

template <class T>
void decode_benchmark(benchmark::State& state, const GpuDecodeProblem& p, KvElement e) {
    const std::string name = gpu_decode_benchmark_name(p, element_name(e));
    try {
        const DecodeGpuCheck& check = checked(p.shape, p.layout, e);
        if (!check.passed) {
            state.SkipWithError(("correctness check failed: " + describe(check, e)).c_str());
            return;
        }
        const DecodeLaunchShape ls = decode_launch_shape(p);
        const int splits = heuristic_splits(ls);
        const double device_bytes = decode_device_bytes(p, splits);
        std::size_t free_bytes = 0, total_bytes = 0;
        cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
        if (!fits_in_device_memory(device_bytes, static_cast<double>(free_bytes))) {
            std::ostringstream why;
            why << "out of device memory: the cache and buffers need " << device_bytes / (1 << 30) << " GiB, "
                << static_cast<double>(free_bytes) / (1 << 30) << " GiB free";
            state.SkipWithError(why.str().c_str());
            return;
        }
        const cuda::PagedDecodeShape ks = kernel_shape(ls);
        const std::size_t pool_elements = p.num_blocks() * p.shape.kv_heads * p.layout.block_size * p.shape.head_dim;
        const std::size_t rows = p.batch * p.shape.q_heads;
        DecodeBuffers b;
        b.keys = filled_pool<T>(pool_elements);
        b.values = filled_pool<T>(pool_elements);
        b.q = upload(tensor_cast<float>(random_normal({1, 1, rows, p.shape.head_dim}, 98)).data);
        b.tables = upload(decode_block_tables(p, 97));
        b.context_lens = upload(std::vector<int>(p.batch, ls.max_context_len));
        b.workspace = device_alloc(cuda::paged_decode_workspace_floats(ks, splits) * sizeof(float));
        b.out = device_alloc(rows * p.shape.head_dim * sizeof(float));
        b.lse = device_alloc(rows * sizeof(float));
        // The pools' device-to-device fills are asynchronous, and the timing stream does not wait for them.
        cuda_check(cudaDeviceSynchronize(), "filling the KV pools");

        const TimedLaunches timed =
            time_launches(state, [&] { launch_decode<T>(b, ks, ls.max_context_len, splits); }, name);

        using benchmark::Counter;
        const DecodeTraffic traffic = decode_traffic(p, splits);
        state.counters["bytes/s"] = Counter(traffic.headline_bytes(), Counter::kIsIterationInvariantRate);
        state.counters["overhead_bytes/s"] =
            Counter(traffic.table_bytes + traffic.workspace_bytes, Counter::kIsIterationInvariantRate);
        if (const cost::GpuPreset* preset = cuda_device().preset; preset && std::isfinite(preset->hbm_bytes_per_s.value)) {
            // headline bytes / HBM bandwidth * 100 per second measured: the share of the preset's bandwidth.
            state.counters["hbm_percent"] =
                Counter(100.0 * traffic.headline_bytes() / preset->hbm_bytes_per_s.value, Counter::kIsIterationInvariantRate);
        }
        state.counters["peak_device_bytes"] = Counter(device_bytes, Counter::kDefaults, Counter::kIs1024);
        state.counters["check_error"] = check.max_abs_error;
        set_spread_counters(state, timed);
        state.counters["splits"] = splits;
        state.counters["block_size"] = static_cast<double>(p.layout.block_size);
        state.counters["N"] = static_cast<double>(p.context);
        state.counters["d"] = static_cast<double>(p.shape.head_dim);
        state.counters["causal"] = 0;
        state.counters["batch"] = static_cast<double>(p.batch);
        state.counters["heads"] = static_cast<double>(p.shape.q_heads);
        state.counters["kv_heads"] = static_cast<double>(p.shape.kv_heads);
    } catch (const std::exception& ex) {
        state.SkipWithError(ex.what());
    }
}

}  // namespace

void register_cuda_decode_benchmarks(std::ostream& log) {
    const CudaDevice& device = cuda_device();
    if (!device.usable) return;
    const GpuDecodeSweep sweep =
        gpu_decode_sweep(device.memory_bytes, [](const GpuDecodeProblem& p) { return heuristic_splits(decode_launch_shape(p)); });
    if (!sweep.too_large.empty()) {
        log << "CUDA decode: " << sweep.too_large.size() << " problems of the sweep need more than the device's "
            << device.memory_bytes / (1 << 30) << " GiB and are left out (e.g. batch " << sweep.too_large.front().batch
            << " x context " << sweep.too_large.front().context << ")\n";
    }
    for (KvElement e : kKvElements) {
        for (const GpuDecodeProblem& p : sweep.problems) {
            benchmark::RegisterBenchmark(gpu_decode_benchmark_name(p, element_name(e)).c_str(),
                                         [p, e](benchmark::State& s) {
                                             if (e == KvElement::fp16) {
                                                 decode_benchmark<__half>(s, p, e);
                                             } else {
                                                 decode_benchmark<__nv_bfloat16>(s, p, e);
                                             }
                                         })
                ->UseManualTime()
                ->Unit(benchmark::kMicrosecond);
        }
    }
}

bool run_cuda_decode_checks(std::ostream& out) {
    const CudaDevice& device = cuda_device();
    if (!device.usable) {
        out << "CUDA decode checks skipped: no usable CUDA device (" << device.unavailable_reason << ")\n";
        return true;
    }
    out << "CUDA paged decode on " << device.name << " against attn::paged_decode in double:\n";
    bool all = true;
    for (KvElement e : kKvElements) {
        for (const DecodeShape& shape : decode_shapes()) {
            for (const GpuDecodeLayout& layout : kGpuDecodeLayouts) {
                const DecodeGpuCheck r = check_decode(shape, layout, e);
                out << "  " << (r.passed ? "ok  " : "FAIL") << "  " << describe(r, e) << "\n";
                all = all && r.passed;
            }
        }
    }
    return all;
}

}  // namespace attn::bench
