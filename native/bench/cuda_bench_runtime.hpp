#pragma once
// What every CUDA benchmark shares: CUDA errors as attn::Error, owned device memory, one stream
// and cuBLAS handle for the run, and the timing of back-to-back launches with its spread.
// Compiled only when the benchmark is built with CUDA (ATTN_ENABLE_CUDA).
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace attn::bench {

// Throws attn::Error "<what>: <error name> (<description>)" unless e is cudaSuccess.
void cuda_check(cudaError_t e, const char* what);

struct DeviceFree {
    void operator()(void* p) const { cudaFree(p); }  // at exit the runtime may be gone: nothing to report
};
using DeviceBuffer = std::unique_ptr<void, DeviceFree>;

DeviceBuffer device_alloc(std::size_t bytes);

// A device copy of `host`, complete on return. From pageable memory cudaMemcpy may return while
// its DMA is still under way, and the benchmarks' kernels run on a non-blocking stream that does
// not wait for it, so the copy is followed by a device synchronisation.
template <class T>
DeviceBuffer upload(const std::vector<T>& host) {
    DeviceBuffer d = device_alloc(host.size() * sizeof(T));
    cuda_check(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to device");
    cuda_check(cudaDeviceSynchronize(), "cudaMemcpy to device (completion)");
    return d;
}

// One stream, one cuBLAS handle and a pair of timing events for the whole run.
struct Runtime {
    cudaStream_t stream = nullptr;
    cublasHandle_t cublas = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;

    Runtime();
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;
    ~Runtime();
};
Runtime& runtime();

// Timing. A decode-sized kernel runs for microseconds, less than the gap between two launches, so
// one launch per pair of events would time the launch path. After warm-up launches (first-touch
// of the buffers, clocks ramping up, lazy module loading), each timed region holds enough
// back-to-back launches to last about kRegionSeconds, and the time per launch is the region's
// time divided by their count. Per-region times are kept, so the run reports its spread.
inline constexpr int kWarmupLaunches = 3;
inline constexpr double kRegionSeconds = 2e-3;
inline constexpr int kMaxLaunchesPerRegion = 1000;

struct TimedLaunches {
    int launches_per_region = 1;
    std::vector<double> seconds_per_launch;  // one entry per timed region
};

template <class Launch>
double time_region(Runtime& rt, const Launch& launch_once, int launches, const std::string& what) {
    cuda_check(cudaEventRecord(rt.start, rt.stream), "cudaEventRecord");
    for (int i = 0; i < launches; ++i) launch_once();
    cuda_check(cudaEventRecord(rt.stop, rt.stream), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(rt.stop), what.c_str());
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, rt.start, rt.stop), "cudaEventElapsedTime");
    return static_cast<double>(ms) / 1e3 / launches;
}

template <class Launch>
TimedLaunches time_launches(benchmark::State& state, const Launch& launch_once, const std::string& what) {
    Runtime& rt = runtime();
    TimedLaunches t;
    const double one = time_region(rt, launch_once, kWarmupLaunches, what);
    t.launches_per_region = static_cast<int>(std::clamp(std::ceil(kRegionSeconds / std::max(one, 1e-9)), 1.0,
                                                        static_cast<double>(kMaxLaunchesPerRegion)));
    for (auto _ : state) {
        const double seconds = time_region(rt, launch_once, t.launches_per_region, what);
        t.seconds_per_launch.push_back(seconds);
        state.SetIterationTime(seconds);
    }
    return t;
}

// The spread of the per-region times: minimum, median and maximum seconds per launch, and the
// launches each region held.
void set_spread_counters(benchmark::State& state, TimedLaunches t);

}  // namespace attn::bench
