#include "cuda_benchmarks.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "attention_kernels.hpp"
#include "attn/attention/sdpa.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"
#include "cpu_benchmarks.hpp"
#include "cuda_bench_runtime.hpp"
#include "cuda_elements.hpp"
#include "gpu_decode_plan.hpp"
#include "gpu_device.hpp"

namespace attn::bench {
namespace {

// ---------------------------------------------------------------------------------------------
// Element types (conversion on the host: cuda_elements.hpp) and the precision the checks'
// tolerances follow from.

enum class Element { fp32, fp16, bf16 };

std::size_t element_bytes(Element e) { return e == Element::fp32 ? 4 : 2; }

// Unit roundoff of the format the kernel stores P (before P V) and O in: 2^-11 for FP16 (11
// significand bits), 2^-8 for BF16 (8); 0 for the FP32 kernels, whose error is the FP32
// arithmetic's alone.
double unit_roundoff(Element e) { return e == Element::fp16 ? 0x1.0p-11 : e == Element::bf16 ? 0x1.0p-8 : 0.0; }

// ---------------------------------------------------------------------------------------------
// The kernels under test.

enum class KernelId { standard_cublas, flash_fp32, flash_tc_fp16, flash_tc_bf16, flash_mma_fp16, flash_mma_bf16 };

struct CudaKernel {
    KernelId id;
    std::string name;  // the benchmark family is "cuda/<name>"
    Element element;
    cost::Algorithm algorithm;   // for the roofline model
    cost::Precision precision;   // fp16 stands for bf16 too (same tensor-core rate on every preset)
    cost::FlashBlocks blocks{};  // the flash kernels' tiles (Br, Bc), for the modelled traffic

    // HBM traffic the cost model assigns to one call.
    double modelled_bytes(const Problem& p) const {
        if (algorithm == cost::Algorithm::standard) {
            // Each cuBLAS GEMM reads its operands once (block_q = L): Algorithm 0's count.
            return cost::standard_attention_io(p.cost_shape(), cost::Pass::forward, element_bytes(element), p.seq).bytes();
        }
        return cost::flash2_forward_io(p.cost_shape(), element_bytes(element), blocks).bytes();
    }
};

// The tiles are those stated in the kernels' header comments: flash_forward_fp32.cu uses 16 query
// rows by 32 keys, flash_forward_tensor_core.cu (v2) and flash_forward_mma.cu (v3) 64 by 64.
const std::vector<CudaKernel>& cuda_kernels() {
    static const std::vector<CudaKernel> kernels{
        {KernelId::standard_cublas, "standard_cublas", Element::fp32, cost::Algorithm::standard, cost::Precision::fp32, {}},
        {KernelId::flash_fp32, "flash_fp32", Element::fp32, cost::Algorithm::flash, cost::Precision::fp32, {16, 32}},
        {KernelId::flash_tc_fp16, "flash_tc_fp16", Element::fp16, cost::Algorithm::flash, cost::Precision::fp16, {64, 64}},
        {KernelId::flash_tc_bf16, "flash_tc_bf16", Element::bf16, cost::Algorithm::flash, cost::Precision::fp16, {64, 64}},
        {KernelId::flash_mma_fp16, "flash_mma_fp16", Element::fp16, cost::Algorithm::flash, cost::Precision::fp16, {64, 64}},
        {KernelId::flash_mma_bf16, "flash_mma_bf16", Element::bf16, cost::Algorithm::flash, cost::Precision::fp16, {64, 64}},
    };
    return kernels;
}

// Device pointers and sizes of one call; scores and probs only for standard attention.
struct DeviceCall {
    const void *q = nullptr, *k = nullptr, *v = nullptr;
    void* out = nullptr;
    float* lse = nullptr;
    float *scores = nullptr, *probs = nullptr;
    cuda::AttentionShape shape;
    cuda::KernelOptions options;
};

void launch(const CudaKernel& kernel, const DeviceCall& c) {
    Runtime& rt = runtime();
    switch (kernel.id) {
        case KernelId::standard_cublas:
            cuda::standard_attention_forward(rt.cublas, static_cast<const float*>(c.q), static_cast<const float*>(c.k),
                                             static_cast<const float*>(c.v), static_cast<float*>(c.out), c.lse, c.scores,
                                             c.probs, c.shape, c.options, rt.stream);
            return;
        case KernelId::flash_fp32:
            cuda::flash_forward_fp32(static_cast<const float*>(c.q), static_cast<const float*>(c.k),
                                     static_cast<const float*>(c.v), static_cast<float*>(c.out), c.lse, c.shape, c.options,
                                     rt.stream);
            return;
        case KernelId::flash_tc_fp16:
            cuda::flash_forward_tensor_core(static_cast<const __half*>(c.q), static_cast<const __half*>(c.k),
                                            static_cast<const __half*>(c.v), static_cast<__half*>(c.out), c.lse, c.shape,
                                            c.options, rt.stream);
            return;
        case KernelId::flash_tc_bf16:
            cuda::flash_forward_tensor_core(static_cast<const __nv_bfloat16*>(c.q), static_cast<const __nv_bfloat16*>(c.k),
                                            static_cast<const __nv_bfloat16*>(c.v), static_cast<__nv_bfloat16*>(c.out),
                                            c.lse, c.shape, c.options, rt.stream);
            return;
        case KernelId::flash_mma_fp16:
            cuda::flash_forward_mma(static_cast<const __half*>(c.q), static_cast<const __half*>(c.k),
                                    static_cast<const __half*>(c.v), static_cast<__half*>(c.out), c.lse, c.shape, c.options,
                                    rt.stream);
            return;
        case KernelId::flash_mma_bf16:
            cuda::flash_forward_mma(static_cast<const __nv_bfloat16*>(c.q), static_cast<const __nv_bfloat16*>(c.k),
                                    static_cast<const __nv_bfloat16*>(c.v), static_cast<__nv_bfloat16*>(c.out), c.lse,
                                    c.shape, c.options, rt.stream);
            return;
    }
}

cuda::AttentionShape kernel_shape(std::size_t batch, std::size_t q_heads, std::size_t kv_heads, std::size_t q_len,
                                  std::size_t kv_len, std::size_t head_dim) {
    auto as_int = [](std::size_t x) { return static_cast<int>(x); };
    return {as_int(batch), as_int(q_heads), as_int(kv_heads), as_int(q_len), as_int(kv_len), as_int(head_dim),
            as_int(head_dim)};
}

// ---------------------------------------------------------------------------------------------
// The correctness check run before a kernel is timed (and by --check).

struct GpuCheck {
    std::string kernel, problem, failure;  // failure: what went wrong besides the error (e.g. a launch error)
    double max_abs_error = 0, tolerance = 0;
    bool passed = false;
};

// |a - b| with NaN counted as infinite and equal infinities (the -inf lse of a row that sees no
// key) as 0.
double abs_error(double a, double b) {
    if (a == b) return 0;
    const double e = std::abs(a - b);
    return std::isnan(e) ? INFINITY : e;
}

// The kernel on 2 batches of 4 query heads over 2 K/V heads (GQA), 301 queries against 257 keys:
// odd lengths that leave partial tiles on both sides, and under bottom-right causal alignment the
// first 44 rows see no key (zero output, lse = -inf). Inputs are N(0, 1), rounded to the kernel's
// element type; the reference is attn::sdpa in double on those rounded values, so the error is the
// kernel's arithmetic alone. Output and log-sum-exp are both compared.
//
// Tolerance: 5e-5 (kCheckTolerance, as for the CPU implementations: FP32 accumulation over a few
// hundred keys errs by ~1e-6) plus, for the 16-bit kernels, 2 u max|V| with u the format's unit
// roundoff: P is rounded to FP16/BF16 before P V (relative error u on each weight, at most
// u max|V| on the weighted sum) and O is rounded once more (u |O| <= u max|V|). A wrong rescale,
// mask or head mapping errs by > 1e-1.
template <class T>
GpuCheck check_kernel_typed(const CudaKernel& kernel, std::size_t head_dim, Causal causal) {
    constexpr std::size_t kBatch = 2, kQHeads = 4, kKvHeads = 2, kQueries = 301, kKeys = 257;
    const std::uint64_t seed = 0x5eed1000 + head_dim * 3 + static_cast<std::uint64_t>(causal);
    auto draw = [&](std::size_t heads, std::size_t len, std::uint64_t s) {
        return tensor_cast<float>(random_normal({kBatch, heads, len, head_dim}, s));
    };
    const Tensor4<float> qf = draw(kQHeads, kQueries, seed), kf = draw(kKvHeads, kKeys, seed + 1),
                         vf = draw(kKvHeads, kKeys, seed + 2);
    const std::vector<T> q = converted<T>(qf.data), k = converted<T>(kf.data), v = converted<T>(vf.data);
    auto exact = [](const Shape4& shape, const std::vector<T>& values) {
        Tensor4<double> t(shape);
        for (std::size_t i = 0; i < values.size(); ++i) t.data[i] = ElementTraits<T>::to_double(values[i]);
        return t;
    };
    const Tensor4<double> qd = exact(qf.shape, q), kd = exact(kf.shape, k), vd = exact(vf.shape, v);
    SdpaOptions so;
    so.causal = causal;
    const SdpaResult<double> ref = sdpa(qd, kd, vd, so);

    GpuCheck r;
    r.kernel = "cuda/" + kernel.name;
    std::ostringstream problem;
    problem << "B=" << kBatch << " Hq=" << kQHeads << " Hkv=" << kKvHeads << " L=" << kQueries << " S=" << kKeys
            << " d=" << head_dim << " causal=" << causal_name(causal);
    r.problem = problem.str();
    double max_v = 0;
    for (double x : vd.data) max_v = std::max(max_v, std::abs(x));
    r.tolerance = kCheckTolerance + 2 * unit_roundoff(kernel.element) * max_v;

    try {
        DeviceCall call;
        call.shape = kernel_shape(kBatch, kQHeads, kKvHeads, kQueries, kKeys, head_dim);
        call.options.causal = causal;
        const DeviceBuffer dq = upload(q), dk = upload(k), dv = upload(v);
        const DeviceBuffer dout = device_alloc(ref.output.data.size() * sizeof(T));
        const DeviceBuffer dlse = device_alloc(ref.lse.size() * sizeof(float));
        DeviceBuffer scores, probs;
        if (kernel.id == KernelId::standard_cublas) {
            const std::size_t bytes = cuda::standard_attention_workspace_elements(call.shape) * sizeof(float);
            scores = device_alloc(bytes);
            probs = device_alloc(bytes);
        }
        call.q = dq.get();
        call.k = dk.get();
        call.v = dv.get();
        call.out = dout.get();
        call.lse = static_cast<float*>(dlse.get());
        call.scores = static_cast<float*>(scores.get());
        call.probs = static_cast<float*>(probs.get());
        launch(kernel, call);
        cuda_check(cudaStreamSynchronize(runtime().stream), (r.kernel + " (check run)").c_str());

        std::vector<T> out(ref.output.data.size());
        std::vector<float> lse(ref.lse.size());
        cuda_check(cudaMemcpy(out.data(), dout.get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
        cuda_check(cudaMemcpy(lse.data(), dlse.get(), lse.size() * sizeof(float), cudaMemcpyDeviceToHost),
                   "cudaMemcpy to host");
        for (std::size_t i = 0; i < out.size(); ++i) {
            r.max_abs_error = std::max(r.max_abs_error, abs_error(ElementTraits<T>::to_double(out[i]), ref.output.data[i]));
        }
        for (std::size_t i = 0; i < lse.size(); ++i) r.max_abs_error = std::max(r.max_abs_error, abs_error(lse[i], ref.lse[i]));
        r.passed = r.max_abs_error <= r.tolerance;
    } catch (const std::exception& e) {
        r.failure = e.what();
        r.max_abs_error = INFINITY;
    }
    return r;
}

GpuCheck check_kernel(const CudaKernel& kernel, std::size_t head_dim, Causal causal) {
    switch (kernel.element) {
        case Element::fp16: return check_kernel_typed<__half>(kernel, head_dim, causal);
        case Element::bf16: return check_kernel_typed<__nv_bfloat16>(kernel, head_dim, causal);
        case Element::fp32: break;
    }
    return check_kernel_typed<float>(kernel, head_dim, causal);
}

std::string describe(const GpuCheck& c) {
    std::ostringstream s;
    s << c.kernel << "  " << c.problem << "  max|error| = " << c.max_abs_error << " (tolerance " << c.tolerance << ")";
    if (!c.failure.empty()) s << "  " << c.failure;
    return s.str();
}

// Each (kernel, head_dim, causal) is checked once, before its first timed run.
const GpuCheck& checked(const CudaKernel& kernel, std::size_t d, Causal causal) {
    static std::map<std::tuple<KernelId, std::size_t, Causal>, GpuCheck> done;
    const auto key = std::make_tuple(kernel.id, d, causal);
    auto it = done.find(key);
    if (it == done.end()) it = done.emplace(key, check_kernel(kernel, d, causal)).first;
    return it->second;
}

// ---------------------------------------------------------------------------------------------
// The timed runs.

// Q, K, V and O of the sweep in one element type, on the device; every problem of the sweep has
// kGpuTokens * kGpuModelWidth elements per tensor, so one set serves them all. Filled on first use
// from N(0, 1) draws (the same values, rounded, for every element type).
struct DeviceTensors {
    DeviceBuffer q, k, v, out, lse;
};

const std::vector<float>& host_values(int which) {
    static std::map<int, std::vector<float>> values;
    auto it = values.find(which);
    if (it == values.end()) {
        const Shape4 shape{1, 1, kGpuTokens, kGpuModelWidth};
        it = values.emplace(which, tensor_cast<float>(random_normal(shape, 42 + static_cast<std::uint64_t>(which))).data)
                 .first;
    }
    return it->second;
}

template <class T>
DeviceTensors make_device_tensors() {
    DeviceTensors t;
    t.q = upload(converted<T>(host_values(0)));
    t.k = upload(converted<T>(host_values(1)));
    t.v = upload(converted<T>(host_values(2)));
    t.out = device_alloc(kGpuTokens * kGpuModelWidth * sizeof(T));
    // B * H * N log-sum-exps: kGpuTokens * kGpuModelWidth / d, largest for the smallest d.
    t.lse = device_alloc(kGpuTokens * kGpuModelWidth / kHeadDims[0] * sizeof(float));
    return t;
}

const DeviceTensors& device_tensors(Element e) {
    static std::map<Element, DeviceTensors> cache;
    auto it = cache.find(e);
    if (it == cache.end()) {
        it = cache.emplace(e, e == Element::fp16   ? make_device_tensors<__half>()
                              : e == Element::bf16 ? make_device_tensors<__nv_bfloat16>()
                                                   : make_device_tensors<float>())
                 .first;
    }
    return it->second;
}

void cuda_attention_benchmark(benchmark::State& state, const CudaKernel& kernel, const Problem& p) {
    try {
        const GpuCheck& check = checked(kernel, p.head_dim, p.causal);
        if (!check.passed) {
            state.SkipWithError(("correctness check failed: " + describe(check)).c_str());
            return;
        }
        const DeviceTensors& t = device_tensors(kernel.element);
        DeviceCall call;
        call.shape = kernel_shape(p.batch, p.heads, p.kv_heads, p.seq, p.kv_len(), p.head_dim);
        call.options.causal = p.causal;
        call.q = t.q.get();
        call.k = t.k.get();
        call.v = t.v.get();
        call.out = t.out.get();
        call.lse = static_cast<float*>(t.lse.get());
        double device_bytes = static_cast<double>(p.batch * p.heads * p.seq) *
                              (static_cast<double>(p.head_dim * element_bytes(kernel.element)) + sizeof(float));
        DeviceBuffer scores, probs;
        if (kernel.id == KernelId::standard_cublas) {
            // S and P, B H N^2 floats each. Like the "Pytorch" column of FlashAttention's benchmark,
            // a size whose matrices do not fit in the device's memory is reported as out of memory.
            const std::size_t bytes = cuda::standard_attention_workspace_elements(call.shape) * sizeof(float);
            std::size_t free_bytes = 0, total_bytes = 0;
            cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
            if (!fits_in_device_memory(2.0 * static_cast<double>(bytes), static_cast<double>(free_bytes))) {
                std::ostringstream why;
                why << "out of device memory: S and P need " << 2.0 * static_cast<double>(bytes) / (1 << 30) << " GiB, "
                    << static_cast<double>(free_bytes) / (1 << 30) << " GiB free";
                state.SkipWithError(why.str().c_str());
                return;
            }
            scores = device_alloc(bytes);
            probs = device_alloc(bytes);
            call.scores = static_cast<float*>(scores.get());
            call.probs = static_cast<float*>(probs.get());
            device_bytes += 2.0 * static_cast<double>(bytes);
        }

        const TimedLaunches timed = time_launches(state, [&] { launch(kernel, call); }, "cuda/" + kernel.name);

        using benchmark::Counter;
        state.counters["FLOP/s"] = Counter(p.convention_flops(), Counter::kIsIterationInvariantRate);
        state.counters["bytes/s"] = Counter(kernel.modelled_bytes(p), Counter::kIsIterationInvariantRate);
        state.counters["peak_device_bytes"] = Counter(device_bytes, Counter::kDefaults, Counter::kIs1024);
        state.counters["check_error"] = check.max_abs_error;
        set_spread_counters(state, timed);
        state.counters["N"] = static_cast<double>(p.seq);
        state.counters["S"] = static_cast<double>(p.kv_len());
        state.counters["d"] = static_cast<double>(p.head_dim);
        state.counters["causal"] = p.causal == Causal::none ? 0.0 : 1.0;
        state.counters["batch"] = static_cast<double>(p.batch);
        state.counters["heads"] = static_cast<double>(p.heads);
        if (const cost::GpuPreset* preset = cuda_device().preset) {
            try {
                const cost::AttentionPrediction pr =
                    cost::predict(p.cost_shape(), kernel.algorithm, cost::Pass::forward, *preset, kernel.precision);
                // predicted / measured * 100: a rate counter divides by the measured time per iteration.
                state.counters["roofline_percent"] = Counter(100.0 * pr.time_s, Counter::kIsIterationInvariantRate);
            } catch (const Error&) {
                // the preset lacks a number the model needs at this precision: no roofline column
            }
        }
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

}  // namespace

std::vector<Problem> register_cuda_benchmarks(std::ostream& log) {
    const CudaDevice& device = cuda_device();
    if (!device.usable) {
        log << "CUDA benchmarks skipped: no usable CUDA device (" << device.unavailable_reason << ")\n";
        return {};
    }
    log << "CUDA benchmarks on " << device.name << " (compute capability " << device.compute_major << "."
        << device.compute_minor << "); " << device.preset_note << "\n";

    std::vector<Problem> problems;
    // Sizes outermost, so the kernels compared at one size run one after another.
    for (std::size_t n : kGpuSeqLens) {
        for (std::size_t d : kHeadDims) {
            for (Causal causal : {Causal::none, Causal::top_left}) {
                Problem p;
                p.batch = kGpuTokens / n;
                p.heads = p.kv_heads = kGpuModelWidth / d;
                p.seq = n;
                p.head_dim = d;
                p.causal = causal;
                problems.push_back(p);
                for (const CudaKernel& kernel : cuda_kernels()) {
                    const std::string name = "cuda/" + kernel.name + "/N:" + std::to_string(n) + "/d:" + std::to_string(d) +
                                             "/causal:" + (causal == Causal::none ? "0" : "1");
                    benchmark::RegisterBenchmark(name.c_str(), [&kernel, p](benchmark::State& s) {
                        cuda_attention_benchmark(s, kernel, p);
                    })->UseManualTime()->Unit(benchmark::kMillisecond);
                }
            }
        }
    }
    // Chunked prefill: TFLOP/s of L != S problems; not in the returned list, whose predictions are
    // keyed by N alone.
    for (const PrefillChunk& chunk : kGpuPrefillChunks) {
        for (std::size_t d : kHeadDims) {
            Problem p;
            p.batch = kGpuTokens / chunk.kv_len;
            p.heads = p.kv_heads = kGpuModelWidth / d;
            p.seq = chunk.q_len;
            p.kv_seq = chunk.kv_len;
            p.head_dim = d;
            p.causal = Causal::bottom_right;
            for (const CudaKernel& kernel : cuda_kernels()) {
                const std::string name = "cuda/" + kernel.name + "/N:" + std::to_string(chunk.q_len) +
                                         "/S:" + std::to_string(chunk.kv_len) + "/d:" + std::to_string(d) + "/causal:1";
                benchmark::RegisterBenchmark(name.c_str(), [&kernel, p](benchmark::State& s) {
                    cuda_attention_benchmark(s, kernel, p);
                })->UseManualTime()->Unit(benchmark::kMillisecond);
            }
        }
    }
    return problems;
}

bool run_cuda_checks(std::ostream& out) {
    const CudaDevice& device = cuda_device();
    if (!device.usable) {
        out << "CUDA checks skipped: no usable CUDA device (" << device.unavailable_reason << ")\n";
        return true;
    }
    out << "CUDA kernels on " << device.name << " against attn::sdpa in double:\n";
    bool all = true;
    for (const CudaKernel& kernel : cuda_kernels()) {
        for (std::size_t d : kHeadDims) {
            for (Causal c : {Causal::none, Causal::top_left, Causal::bottom_right}) {
                const GpuCheck r = check_kernel(kernel, d, c);
                out << "  " << (r.passed ? "ok  " : "FAIL") << "  " << describe(r) << "\n";
                all = all && r.passed;
            }
        }
    }
    return all;
}

}  // namespace attn::bench
