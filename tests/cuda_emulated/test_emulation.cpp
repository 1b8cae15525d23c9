// The CPU emulation itself (native/cuda/emulation/): the kernel tests are only as good as the
// emulated barriers, shuffles, shared memory and WMMA operations, so each is checked against its
// documented CUDA semantics here.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "cuda_compat.hpp"
#include "support.hpp"

namespace {

using namespace attn;
using namespace attn::test;

// Every thread writes its slot of a shared array, waits at __syncthreads, then reads its
// neighbour's slot: without a working barrier some reads would see the previous block's value.
__global__ void rotate_within_block(int* out) {
    __shared__ int slots[128];
    const int t = static_cast<int>(threadIdx.x + blockDim.x * threadIdx.y);
    const int threads = static_cast<int>(blockDim.x * blockDim.y);
    const int block = static_cast<int>(blockIdx.x + gridDim.x * blockIdx.y);
    slots[t] = block * 1000 + t;
    __syncthreads();
    out[block * threads + t] = slots[(t + 1) % threads];
    __syncthreads();  // nobody overwrites a slot before its reader is done
}

TEST_CASE("emulated __syncthreads orders shared memory between the threads of a block") {
    const dim3 grid(3, 2), block(32, 4);
    std::vector<int> out(6 * 128, -1);
    cuda::launch_kernel("rotate_within_block", rotate_within_block, grid, block, 0, nullptr, out.data());
    for (int b = 0; b < 6; ++b) {
        for (int t = 0; t < 128; ++t) CHECK(out[b * 128 + t] == b * 1000 + (t + 1) % 128);
    }
}

// Butterfly sum with __shfl_xor_sync and a broadcast with __shfl_sync inside 8-lane segments.
__global__ void shuffles(float* sums, int* broadcast) {
    const int t = static_cast<int>(threadIdx.x), lane = t % 32;
    float x = static_cast<float>(t);
    for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
    sums[t] = x;
    broadcast[t] = __shfl_sync(0xffffffffu, t * 10, 3, 8);  // lane 3 of each 8-lane segment
    (void)lane;
}

TEST_CASE("emulated warp shuffles exchange values within each warp") {
    std::vector<float> sums(64);
    std::vector<int> broadcast(64);
    cuda::launch_kernel("shuffles", shuffles, dim3(1), dim3(64), 0, nullptr, sums.data(), broadcast.data());
    for (int t = 0; t < 64; ++t) {
        const int warp_base = t / 32 * 32;
        CHECK(sums[t] == static_cast<float>(32 * warp_base + 31 * 32 / 2));
        CHECK(broadcast[t] == (t / 8 * 8 + 3) * 10);
    }
}

// Reads dynamic shared memory before any thread wrote it (NaN fill), then writes and reads it.
__global__ void dynamic_shared(float* first_read, float* second_read) {
    ATTN_DYNAMIC_SHARED_MEMORY(raw, 16);
    float* values = reinterpret_cast<float*>(raw);
    const int t = static_cast<int>(threadIdx.x);
    const int index = static_cast<int>(blockIdx.x * blockDim.x) + t;
    first_read[index] = values[t];
    __syncthreads();
    values[t] = static_cast<float>(index);
    __syncthreads();
    second_read[index] = values[(t + 1) % 32];
}

TEST_CASE("emulated dynamic shared memory starts as NaN in every block") {
    std::vector<float> first(64), second(64);
    cuda::launch_kernel("dynamic_shared", dynamic_shared, dim3(2), dim3(32), 32 * sizeof(float), nullptr,
                        first.data(), second.data());
    for (int i = 0; i < 64; ++i) {
        CHECK(std::isnan(first[i]));  // block 1 too: the fill is repeated between blocks
        CHECK(second[i] == static_cast<float>(i / 32 * 32 + (i % 32 + 1) % 32));
    }
}

TEST_CASE("emulated launches report bad configurations as CUDA does") {
    std::vector<float> a(64), b(64);
    check_error([&] { cuda::launch_kernel("dynamic_shared", dynamic_shared, dim3(1), dim3(48), 256, nullptr,
                                          a.data(), b.data()); },
                "dynamic_shared: launch failed: invalid configuration argument");
    check_error([&] { cuda::launch_kernel("dynamic_shared", dynamic_shared, dim3(1), dim3(32), 300 * 1024, nullptr,
                                          a.data(), b.data()); },
                "dynamic_shared: launch failed: invalid argument");
    CHECK(cudaGetLastError() == cudaSuccess);  // reading the error clears it
}

// Each test kernel below has its own instantiation, so function attributes set by one test do
// not leak into another.
template <int kInstance>
__global__ void touch_dynamic_shared(float* out) {
    ATTN_DYNAMIC_SHARED_MEMORY(raw, 16);
    float* values = reinterpret_cast<float*>(raw);
    values[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = values[(threadIdx.x + 1) % 32];
}

TEST_CASE("emulated launches need an opt-in above 48 KB of dynamic shared memory, up to the device maximum") {
    namespace emulation = attn::cuda_emulation;
    std::vector<float> out(32);
    auto launch = [&](auto kernel, std::size_t bytes) {
        return [=, &out] { cuda::launch_kernel("touch", kernel, dim3(1), dim3(32), bytes, nullptr, out.data()); };
    };
    launch(touch_dynamic_shared<0>, 48 * 1024)();  // the default limit needs no opt-in
    check_error(launch(touch_dynamic_shared<0>, 48 * 1024 + 16), "exceed the kernel's limit of 49152 bytes");

    CHECK(cudaFuncSetAttribute(touch_dynamic_shared<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024) ==
          cudaSuccess);
    launch(touch_dynamic_shared<0>, 100 * 1024)();
    CHECK(out[0] == 1.0f);
    check_error(launch(touch_dynamic_shared<0>, 100 * 1024 + 16), "exceed the kernel's limit of 102400 bytes");
    check_error(launch(touch_dynamic_shared<1>, 100 * 1024), "limit of 49152 bytes");  // per kernel

    // sm_90 allows 227 KB per block, sm_80 163 KB.
    CHECK(cudaFuncSetAttribute(touch_dynamic_shared<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024) ==
          cudaSuccess);
    launch(touch_dynamic_shared<2>, 227 * 1024)();
    CHECK(cudaFuncSetAttribute(touch_dynamic_shared<2>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               227 * 1024 + 1) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    emulation::device() = emulation::kSm80;
    check_error(launch(touch_dynamic_shared<2>, 227 * 1024), "exceed the kernel's limit of 166912 bytes");
    CHECK(cudaFuncSetAttribute(touch_dynamic_shared<2>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               163 * 1024 + 1) == cudaErrorInvalidValue);
    int max_bytes = 0;
    CHECK(cudaDeviceGetAttribute(&max_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
    CHECK(max_bytes == 163 * 1024);
    emulation::device() = emulation::kSm90;
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
}

// Dynamic shared memory is exactly as aligned as declared: a 16-byte declaration is not 32-byte
// aligned, so a WMMA tile at its base fails.
template <int kAlignment>
__global__ void shared_base(std::uintptr_t* remainder_32) {
    ATTN_DYNAMIC_SHARED_MEMORY(raw, kAlignment);
    if (threadIdx.x == 0) *remainder_32 = reinterpret_cast<std::uintptr_t>(raw) % 32;
}

TEST_CASE("emulated dynamic shared memory has the declared base alignment and no more") {
    std::uintptr_t remainder = 99;
    cuda::launch_kernel("shared_base", shared_base<16>, dim3(1), dim3(32), 64, nullptr, &remainder);
    CHECK(remainder == 16);
    cuda::launch_kernel("shared_base", shared_base<32>, dim3(1), dim3(32), 64, nullptr, &remainder);
    CHECK(remainder == 0);
}

// The race a shuffle does not prevent: lane 0 writes a tile, the warp shuffles (a value, not a
// memory fence), then the whole warp loads the tile with WMMA. With `publish`, a __syncwarp
// between the two makes the write visible, as it must be.
template <bool kPublish>
__global__ void write_then_wmma_load(float* out) {
    namespace wmma = nvcuda::wmma;
    ATTN_DYNAMIC_SHARED_MEMORY(raw, 32);
    __half* tile = reinterpret_cast<__half*>(raw);
    const int lane = static_cast<int>(threadIdx.x);
    if (lane == 0) {
        for (int i = 0; i < 256; ++i) tile[i] = __float2half_rn(1.0f);
    }
    const int ready = __shfl_sync(0xffffffffu, lane, 0);
    if constexpr (kPublish) __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::load_matrix_sync(a, tile, 16);
    wmma::load_matrix_sync(b, tile, 16);
    wmma::fill_fragment(c, static_cast<float>(ready));
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(out, c, 16, wmma::mem_row_major);
}

TEST_CASE("emulated shuffles do not publish shared memory: a WMMA load of an unpublished write fails") {
    alignas(32) float out[256];
    cuda::launch_kernel("write_then_wmma_load", write_then_wmma_load<true>, dim3(1), dim3(32), 512, nullptr, out);
    for (float x : out) CHECK(x == 16.0f);
    // The racy launch: under ThreadSanitizer its report is the expected outcome, which the tsan
    // build checks with the kMissingSyncwarp kernel mutation instead.
    if (attn::cuda_emulation::kThreadSanitizer) return;
    check_error(
        [&] {
            cuda::launch_kernel("write_then_wmma_load", write_then_wmma_load<false>, dim3(1), dim3(32), 512, nullptr,
                                out);
        },
        "write_then_wmma_load: launch failed: unspecified launch failure (emulated: wmma::load_matrix_sync "
        "(matrix_a): warp 0 reads shared memory");
}

// A WMMA load at `offset` halves into a 32-byte aligned buffer with leading dimension `ldm`.
__global__ void wmma_load_at(const __half* base, int offset, unsigned ldm) {
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __half, nvcuda::wmma::row_major> a;
    nvcuda::wmma::load_matrix_sync(a, base + offset, ldm);
}

TEST_CASE("emulated WMMA loads and stores require 32-byte aligned tiles and 16-byte multiple strides") {
    alignas(32) static __half buffer[16 * 80];
    auto load = [&](int offset, unsigned ldm) {
        return [=] { cuda::launch_kernel("wmma_load_at", wmma_load_at, dim3(1), dim3(32), 0, nullptr, buffer, offset, ldm); };
    };
    load(0, 16)();
    load(16, 72)();  // 32 bytes in, 144-byte rows
    check_error(load(8, 16), "misaligned address (emulated: wmma::load_matrix_sync (matrix_a): address");
    check_error(load(8, 16), "is not 32-byte aligned");
    check_error(load(0, 68), "ldm = 68 elements of 2 bytes is not a multiple of 16 bytes");
    check_error(load(0, 8), "ldm = 8 elements");  // shorter than a tile row
}

__global__ void copy_vector(unsigned char* destination, const unsigned char* source) {
    if (threadIdx.x == 0) cuda::copy_16_bytes(destination, source);
}

TEST_CASE("emulated 16-byte vector copies require 16-byte aligned addresses") {
    alignas(16) unsigned char from[48] = {}, to[48] = {};
    from[16] = 7;
    cuda::launch_kernel("copy_vector", copy_vector, dim3(1), dim3(32), 0, nullptr, to + 16, from + 16);
    CHECK(to[16] == 7);
    check_error([&] { cuda::launch_kernel("copy_vector", copy_vector, dim3(1), dim3(32), 0, nullptr, to + 8, from); },
                "copy_16_bytes (destination): address");
    check_error([&] { cuda::launch_kernel("copy_vector", copy_vector, dim3(1), dim3(32), 0, nullptr, to, from + 4); },
                "copy_16_bytes (source): address");
}

// D = A B + C on one 16x16x16 tile, A row-major or B column-major, FP32 accumulators.
template <class T, class LayoutB>
__global__ void one_mma(const T* a, const T* b, const float* c, float* d) {
    namespace wmma = nvcuda::wmma;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, LayoutB> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c_frag;
    wmma::load_matrix_sync(a_frag, a, 16);
    wmma::load_matrix_sync(b_frag, b, 16);
    wmma::fill_fragment(c_frag, 0.5f);
    wmma::mma_sync(c_frag, a_frag, b_frag, c_frag);
    wmma::mma_sync(c_frag, a_frag, b_frag, c_frag);  // accumulates: 2 A B + 0.5
    (void)c;
    wmma::store_matrix_sync(d, c_frag, 16, wmma::mem_col_major);
}

template <class T, class LayoutB, class Convert>
void check_mma(Convert convert) {
    const std::uint64_t seed = next_seed();
    INFO("seed " << seed);
    const auto values = randn({1, 1, 2, 256}, seed).data;
    alignas(32) T a[256], b[256];  // WMMA needs 32-byte aligned tiles
    for (int i = 0; i < 256; ++i) a[i] = convert(values[i]);
    for (int i = 0; i < 256; ++i) b[i] = convert(values[256 + i]);
    alignas(32) float d[256];
    for (float& x : d) x = NAN;
    cuda::launch_kernel("one_mma", one_mma<T, LayoutB>, dim3(1), dim3(32), 0, nullptr, a, b,
                        static_cast<const float*>(nullptr), d);
    const bool b_col_major = std::is_same_v<LayoutB, nvcuda::wmma::col_major>;
    double worst = 0;
    for (int i = 0; i < 16; ++i) {
        for (int j = 0; j < 16; ++j) {
            double sum = 0;
            for (int k = 0; k < 16; ++k) {
                const float b_kj = static_cast<float>(b_col_major ? b[j * 16 + k] : b[k * 16 + j]);
                sum += static_cast<double>(static_cast<float>(a[i * 16 + k])) * b_kj;
            }
            worst = std::max(worst, std::abs(d[j * 16 + i] - (2 * sum + 0.5)));  // stored column-major
        }
    }
    CHECK(worst < 1e-5);  // exact products, 32 FP32 additions of terms < 20
}

TEST_CASE("emulated WMMA computes A B + C with 16-bit inputs and FP32 accumulation") {
    check_mma<__half, nvcuda::wmma::row_major>([](double x) { return __float2half_rn(static_cast<float>(x)); });
    check_mma<__half, nvcuda::wmma::col_major>([](double x) { return __float2half_rn(static_cast<float>(x)); });
    check_mma<__nv_bfloat16, nvcuda::wmma::col_major>(
        [](double x) { return __float2bfloat16_rn(static_cast<float>(x)); });
}

}  // namespace
