// The emulated PTX instructions of ptx_primitives.hpp (emulation/ptx_emulation.hpp), checked
// against the PTX ISA's own description of each lane's registers. The fragment layouts here are
// written from the ISA's element tables (element a_i, b_i, c_i of a lane, by groupID and
// threadID_in_group), not from the emulation's register-wise form, so a slip in either shows.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cuda_compat.hpp"
#include "ptx_primitives.hpp"
#include "support.hpp"

namespace {

using namespace attn;
using namespace attn::test;

std::uint16_t bits_of(__half h) {
    std::uint16_t b;
    std::memcpy(&b, &h, 2);
    return b;
}
std::uint32_t pack(std::uint16_t low, std::uint16_t high) { return low | std::uint32_t{high} << 16; }

// PTX ISA, mma.m16n8k16 with .f16/.bf16 A: element a_i (i = 0..7) of a lane is at
//   row = groupID for i in {0, 1, 4, 5}, groupID + 8 otherwise;  col = 2 threadID_in_group + (i & 1) + 8 (i >= 4).
// B: b_i (i = 0..3) at row (k) = 2 threadID_in_group + (i & 1) + 8 (i >= 2), col (n) = groupID.
// C, D: c_i (i = 0..3) at row = groupID + 8 (i >= 2), col = 2 threadID_in_group + (i & 1).
// Register r holds elements 2r (low half) and 2r + 1.
__global__ void mma_from_documented_fragments(const __half* a, const __half* b, const float* c, float* d) {
    const int lane = static_cast<int>(threadIdx.x), group = lane >> 2, tig = lane % 4;
    std::uint32_t a_regs[4], b_regs[2];
    float c_regs[4], d_regs[4];
    std::uint16_t a_elements[8], b_elements[4];
    for (int i = 0; i < 8; ++i) {
        const int row = (i < 2 || (i >= 4 && i < 6)) ? group : group + 8;
        const int col = 2 * tig + (i & 1) + (i >= 4 ? 8 : 0);
        a_elements[i] = bits_of(a[row * 16 + col]);
    }
    for (int i = 0; i < 4; ++i) {
        const int k = 2 * tig + (i & 1) + (i >= 2 ? 8 : 0);
        b_elements[i] = bits_of(b[k * 8 + group]);
    }
    for (int r = 0; r < 4; ++r) a_regs[r] = pack(a_elements[2 * r], a_elements[2 * r + 1]);
    for (int r = 0; r < 2; ++r) b_regs[r] = pack(b_elements[2 * r], b_elements[2 * r + 1]);
    for (int i = 0; i < 4; ++i) c_regs[i] = c[(group + (i >= 2 ? 8 : 0)) * 8 + 2 * tig + (i & 1)];
    attn::cuda::ptx::mma_sync_m16n8k16<__half>(d_regs, a_regs, b_regs, c_regs);
    for (int i = 0; i < 4; ++i) d[(group + (i >= 2 ? 8 : 0)) * 8 + 2 * tig + (i & 1)] = d_regs[i];
}

TEST_CASE("emulated mma.sync m16n8k16 computes D = A B + C in the documented fragment layout") {
    const std::uint64_t seed = next_seed();
    INFO("seed " << seed);
    // Small integers: every product and sum is exact in float, so D must equal the double product.
    std::vector<__half> a(16 * 16), b(16 * 8);
    std::vector<float> c(16 * 8), d(16 * 8, -1.0f);
    auto small_int = [&](std::size_t n, std::uint64_t salt) { return std::floor(16 * uniform_from_hash(seed + salt, n)) - 8; };
    for (std::size_t n = 0; n < a.size(); ++n) a[n] = __float2half_rn(static_cast<float>(small_int(n, 1)));
    for (std::size_t n = 0; n < b.size(); ++n) b[n] = __float2half_rn(static_cast<float>(small_int(n, 2)));
    for (std::size_t n = 0; n < c.size(); ++n) c[n] = static_cast<float>(small_int(n, 3));
    cuda::launch_kernel("mma_from_documented_fragments", mma_from_documented_fragments, dim3(1), dim3(32), 0, nullptr,
                        a.data(), b.data(), c.data(), d.data());
    for (int i = 0; i < 16; ++i) {
        for (int j = 0; j < 8; ++j) {
            double sum = c[i * 8 + j];
            for (int k = 0; k < 16; ++k) sum += double(__half2float(a[i * 16 + k])) * __half2float(b[k * 8 + j]);
            CHECK(d[i * 8 + j] == sum);
        }
    }
}

// Shared memory holds four 8 x 8 matrices, element (m, row, col) = 100 m + 10 row + col, with
// rows 32 bytes apart (16 bytes of padding). Lanes give the rows of each matrix in reverse order,
// so a load that ignored the per-lane addresses would return rows in the wrong order.
template <int kMatrices, bool kTranspose>
__global__ void ldmatrix_documented(std::uint32_t* out) {
    ATTN_DYNAMIC_SHARED_MEMORY(raw, 16);
    auto* tile = reinterpret_cast<std::uint16_t*>(raw);
    const int lane = static_cast<int>(threadIdx.x);
    for (int n = lane; n < 4 * 8 * 16; n += 32) {
        const int m = n / 128, row = n / 16 % 8, col = n % 16;
        tile[n] = static_cast<std::uint16_t>(col < 8 ? 100 * m + 10 * row + col : 0xffff);
    }
    __syncwarp();
    const int m = lane / 8 % kMatrices, row = 7 - lane % 8;
    std::uint32_t r[kMatrices];
    attn::cuda::ptx::ldmatrix_sync_m8n8<kMatrices, kTranspose>(r, tile + m * 128 + row * 16);
    for (int i = 0; i < kMatrices; ++i) out[lane * 4 + i] = r[i];
}

template <int kMatrices, bool kTranspose>
void check_ldmatrix() {
    std::vector<std::uint32_t> out(32 * 4, 0);
    cuda::launch_kernel("ldmatrix_documented", ldmatrix_documented<kMatrices, kTranspose>, dim3(1), dim3(32),
                        4 * 8 * 32, nullptr, out.data());
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < kMatrices; ++i) {
            // The lane receives, of the rows as addressed (row r by lane 8i + r, stored row 7 - r),
            // row lane / 4, elements 2 (lane % 4) and + 1 of matrix i; with .trans those of the
            // transpose: (2 (lane % 4), lane / 4) and (2 (lane % 4) + 1, lane / 4).
            const int a = lane / 4, b = 2 * (lane % 4);
            auto element = [&](int row, int col) { return static_cast<std::uint16_t>(100 * i + 10 * (7 - row) + col); };
            const std::uint32_t expected =
                kTranspose ? pack(element(b, a), element(b + 1, a)) : pack(element(a, b), element(a, b + 1));
            INFO("x" << kMatrices << (kTranspose ? ".trans" : "") << ", lane " << lane << ", register " << i);
            CHECK(out[lane * 4 + i] == expected);
        }
    }
}

TEST_CASE("emulated ldmatrix x1, x2, x4 give each lane its documented elements, with and without .trans") {
    check_ldmatrix<1, false>();
    check_ldmatrix<2, false>();
    check_ldmatrix<4, false>();
    check_ldmatrix<1, true>();
    check_ldmatrix<2, true>();
    check_ldmatrix<4, true>();
}

__global__ void ldmatrix_misaligned(std::uint32_t* out) {
    ATTN_DYNAMIC_SHARED_MEMORY(raw, 16);
    std::memset(raw + threadIdx.x * 16, 0, 16);
    __syncwarp();
    std::uint32_t r[1];
    const int lane = static_cast<int>(threadIdx.x);
    attn::cuda::ptx::ldmatrix_sync_m8n8<1, false>(r, raw + lane % 8 * 16 + (lane == 3 ? 8 : 0));
    out[lane] = r[0];
}

TEST_CASE("emulated ldmatrix fails the launch on a row address that is not 16-byte aligned") {
    std::vector<std::uint32_t> out(32);
    CHECK_THROWS_WITH_AS(cuda::launch_kernel("ldmatrix_misaligned", ldmatrix_misaligned, dim3(1), dim3(32), 512,
                                             nullptr, out.data()),
                         doctest::Contains("ldmatrix: address"), Error);
}

// Each thread copies two 16-byte chunks in two groups. Before any wait its destination still holds
// what was there (here its own marker); wait_group 1 lands the older group only; wait_group 0 the
// rest. Zero-fill copies (copy = false) write zeros without reading the source.
__global__ void cp_async_groups(const std::uint32_t* source, std::uint32_t* seen) {
    ATTN_DYNAMIC_SHARED_MEMORY(raw, 16);
    auto* words = reinterpret_cast<std::uint32_t*>(raw);
    const int t = static_cast<int>(threadIdx.x);
    std::uint32_t* first = words + 8 * t;  // two chunks of 4 words per thread
    std::uint32_t* second = first + 4;
    for (int w = 0; w < 8; ++w) first[w] = 0xabcdu;
    namespace ptx = attn::cuda::ptx;
    ptx::cp_async_cg_16(first, source + 4 * t, true);
    ptx::cp_async_commit_group();
    ptx::cp_async_cg_16(second, source + 4 * t, t % 2 == 0);  // odd threads zero-fill
    ptx::cp_async_commit_group();
    seen[3 * t] = first[0];  // before any wait: stale
    ptx::cp_async_wait_group<1>();
    seen[3 * t + 1] = first[0] + 0x10000u * (second[0] == 0xabcdu);  // first landed, second not yet
    ptx::cp_async_wait_group<0>();
    seen[3 * t + 2] = second[0];
}

TEST_CASE("emulated cp.async copies when its group is waited for, not before") {
    std::vector<std::uint32_t> source(32 * 4), seen(32 * 3);
    for (std::size_t n = 0; n < source.size(); ++n) source[n] = static_cast<std::uint32_t>(n + 1);
    cuda::launch_kernel("cp_async_groups", cp_async_groups, dim3(1), dim3(32), 32 * 32, nullptr, source.data(),
                        seen.data());
    for (int t = 0; t < 32; ++t) {
        CHECK(seen[3 * t] == 0xabcdu);
        CHECK(seen[3 * t + 1] == static_cast<std::uint32_t>(4 * t + 1) + 0x10000u);
        CHECK(seen[3 * t + 2] == (t % 2 == 0 ? static_cast<std::uint32_t>(4 * t + 1) : 0u));
    }
}

__global__ void cp_async_to_global(std::uint32_t* destination, const std::uint32_t* source) {
    attn::cuda::ptx::cp_async_cg_16(destination + 4 * threadIdx.x, source + 4 * threadIdx.x, true);
    attn::cuda::ptx::cp_async_commit_group();
    attn::cuda::ptx::cp_async_wait_group<0>();
}

TEST_CASE("emulated cp.async fails the launch when its destination is not shared memory") {
    alignas(16) std::uint32_t destination[32 * 4], source[32 * 4] = {};
    CHECK_THROWS_WITH_AS(cuda::launch_kernel("cp_async_to_global", cp_async_to_global, dim3(1), dim3(32), 0, nullptr,
                                             destination, source),
                         doctest::Contains("is not in shared memory"), Error);
}

}  // namespace
