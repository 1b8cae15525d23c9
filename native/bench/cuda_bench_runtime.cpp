#include "cuda_bench_runtime.hpp"

#include "attn/error.hpp"

namespace attn::bench {

void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

DeviceBuffer device_alloc(std::size_t bytes) {
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, bytes), ("cudaMalloc of " + std::to_string(bytes) + " bytes").c_str());
    return DeviceBuffer(p);
}

Runtime::Runtime() {
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) throw Error("cublasCreate failed");
    cuda_check(cudaEventCreate(&start), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
}

Runtime::~Runtime() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cublasDestroy(cublas);
    cudaStreamDestroy(stream);
}

Runtime& runtime() {
    static Runtime r;
    return r;
}

void set_spread_counters(benchmark::State& state, TimedLaunches t) {
    if (t.seconds_per_launch.empty()) return;
    std::sort(t.seconds_per_launch.begin(), t.seconds_per_launch.end());
    const std::vector<double>& s = t.seconds_per_launch;
    state.counters["launch_s_min"] = s.front();
    state.counters["launch_s_median"] = s[s.size() / 2];
    state.counters["launch_s_max"] = s.back();
    state.counters["launches_per_region"] = t.launches_per_region;
}

}  // namespace attn::bench
