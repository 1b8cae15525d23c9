#pragma once
// The PTX warp-level instructions of ptx_primitives.hpp, emulated on the CPU with the register
// layouts the PTX ISA documents (PTX ISA 8.x, "Warp-level matrix instructions": mma.m16n8k16
// fragments for .f16/.bf16, ldmatrix; "Data movement": cp.async and its groups). Each function
// has the name and the operands of the device function it stands for; where a lane's result
// depends on other lanes' registers or addresses, the lanes exchange them with warp_gather, so
// a kernel that puts an element in the wrong register, or passes a wrong row address, gets the
// wrong answer here exactly as on a GPU.
//
// Lane roles, from the PTX ISA: groupID = lane >> 2, threadID_in_group = lane % 4 (t below).
//   A (16 x 16, row):  a[0] = (g, 2t..2t+1)  a[1] = (g+8, 2t..2t+1)  a[2] = (g, 2t+8..2t+9)  a[3] = (g+8, 2t+8..2t+9)
//   B (16 x 8, col):   b[0] = (k 2t..2t+1, n g)  b[1] = (k 2t+8..2t+9, n g)
//   C, D (16 x 8, f32): c[0], c[1] = (g, 2t), (g, 2t+1)  c[2], c[3] = (g+8, 2t), (g+8, 2t+1)
// A 32-bit register holds two 16-bit elements, the lower-indexed one in the low half.
//   ldmatrix .m8n8 .x1/.x2/.x4: lanes 8i .. 8i+7 give the row addresses of matrix i (16 bytes
//   each, 16-byte aligned, in shared memory); lane l receives in r[i] row l/4, elements 2(l%4)
//   and 2(l%4)+1 of matrix i, or with .trans elements (2(l%4), l/4) and (2(l%4)+1, l/4).
//   cp.async .cg 16 bytes: queued by the issuing thread; commit_group closes the queued copies
//   into a group; wait_group N retires all but the N newest groups. The emulation copies when a
//   group retires, which is the latest a GPU may: reading the destination before the wait sees
//   what was there before, so a missing or too-weak wait shows up as stale data, and a missing
//   __syncthreads after it as an unpublished write (check_published).
#include <cstdint>
#include <cstring>
#include <string>

#include "cuda_emulation.hpp"

namespace attn::cuda::ptx {

namespace detail {

template <class T>
float to_float(std::uint16_t bits) {
    T value;
    std::memcpy(static_cast<void*>(&value), &bits, sizeof bits);
    return static_cast<float>(value);
}

inline std::uint16_t low_half(std::uint32_t r) { return static_cast<std::uint16_t>(r & 0xffffu); }
inline std::uint16_t high_half(std::uint32_t r) { return static_cast<std::uint16_t>(r >> 16); }
inline std::uint32_t pack(std::uint16_t low, std::uint16_t high) { return low | std::uint32_t{high} << 16; }

// A 16-bit element of shared memory read by a warp-collective load: it must be published.
inline std::uint16_t load_shared_b16(const char* operation, const unsigned char* p) {
    cuda_emulation::check_published(operation, p, 2);
    std::uint16_t bits;
    std::memcpy(&bits, p, 2);
    return bits;
}

struct MmaOperands {
    std::uint32_t a[4];
    std::uint32_t b[2];
};

}  // namespace detail

// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32: d = A B + c. Products of
// 16-bit values are exact in float; the sum is float, in k order.
template <class T>
void mma_sync_m16n8k16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2], const float (&c)[4]) {
    detail::MmaOperands mine;
    std::memcpy(mine.a, a, sizeof mine.a);
    std::memcpy(mine.b, b, sizeof mine.b);
    const auto all = cuda_emulation::warp_gather(mine);
    const int self = static_cast<int>(cuda_emulation::lane_id()), g = self >> 2, t = self % 4;
    // This lane's D elements need rows g and g + 8 of A (held by lanes 4g .. 4g + 3) and columns
    // 2t, 2t + 1 of B (held by lanes 8t .. 8t + 7): only those are decoded.
    float a_rows[2][16], b_cols[16][2];
    for (int lane = 0; lane < 32; ++lane) {
        const int lane_g = lane >> 2, lane_t = lane % 4;
        const detail::MmaOperands& f = all[static_cast<std::size_t>(lane)];
        if (lane_g == g) {
            for (int r = 0; r < 4; ++r) {
                const int col = 2 * lane_t + 8 * (r / 2);
                a_rows[r % 2][col] = detail::to_float<T>(detail::low_half(f.a[r]));
                a_rows[r % 2][col + 1] = detail::to_float<T>(detail::high_half(f.a[r]));
            }
        }
        if (lane_g / 2 == t) {
            for (int r = 0; r < 2; ++r) {
                b_cols[2 * lane_t + 8 * r][lane_g % 2] = detail::to_float<T>(detail::low_half(f.b[r]));
                b_cols[2 * lane_t + 8 * r + 1][lane_g % 2] = detail::to_float<T>(detail::high_half(f.b[r]));
            }
        }
    }
    float result[4];
    for (int i = 0; i < 4; ++i) {  // d[i] is (g + 8 (i / 2), 2t + i % 2)
        float sum = c[i];
        for (int k = 0; k < 16; ++k) sum += a_rows[i / 2][k] * b_cols[k][i % 2];
        result[i] = sum;
    }
    std::memcpy(d, result, sizeof result);  // d may alias c
}

// ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: kMatrices 8 x 8 matrices of 16-bit
// elements, whose rows lanes 0 .. 8 kMatrices - 1 address.
template <int kMatrices, bool kTranspose>
void ldmatrix_sync_m8n8(std::uint32_t (&r)[kMatrices], const void* row_address) {
    static_assert(kMatrices == 1 || kMatrices == 2 || kMatrices == 4, "ldmatrix loads 1, 2 or 4 matrices");
    constexpr const char* kOperation = kTranspose ? "ldmatrix.trans" : "ldmatrix";
    const int lane = static_cast<int>(cuda_emulation::lane_id());
    bool valid = true;
    if (lane < 8 * kMatrices) {  // the other lanes' addresses are ignored, as on the GPU
        valid = cuda_emulation::require_aligned(kOperation, row_address, 16);
        if (valid && !cuda_emulation::in_dynamic_shared(row_address, 16)) {
            cuda_emulation::report(cudaErrorMisalignedAddress, std::string(kOperation) + ": row address " +
                                                                   cuda_emulation::address(row_address) +
                                                                   " is not in shared memory");
            valid = false;
        }
    }
    struct Row {
        const unsigned char* address;
        bool valid;
    };
    const auto rows = cuda_emulation::warp_gather(Row{static_cast<const unsigned char*>(row_address), valid});
    for (int lane_i = 0; lane_i < 8 * kMatrices; ++lane_i) {
        if (!rows[static_cast<std::size_t>(lane_i)].valid) return;  // reported by that lane
    }
    const int group = lane >> 2, t = lane % 4;
    for (int i = 0; i < kMatrices; ++i) {
        const Row* matrix = rows.data() + 8 * i;
        if constexpr (kTranspose) {
            r[i] = detail::pack(detail::load_shared_b16(kOperation, matrix[2 * t].address + 2 * group),
                                detail::load_shared_b16(kOperation, matrix[2 * t + 1].address + 2 * group));
        } else {
            r[i] = detail::pack(detail::load_shared_b16(kOperation, matrix[group].address + 4 * t),
                                detail::load_shared_b16(kOperation, matrix[group].address + 4 * t + 2));
        }
    }
}

// cp.async.cg.shared.global [destination], [source], 16, src_bytes: src_bytes 16 copies, 0
// zero-fills (source is then not read).
inline void cp_async_cg_16(void* destination, const void* source, bool copy) {
    if (!cuda_emulation::require_aligned("cp.async (shared destination)", destination, 16) ||
        !cuda_emulation::require_aligned("cp.async (global source)", source, 16)) {
        return;
    }
    if (!cuda_emulation::in_dynamic_shared(destination, 16)) {
        cuda_emulation::report(cudaErrorMisalignedAddress,
                               "cp.async: destination " + cuda_emulation::address(destination) + " is not in shared memory");
        return;
    }
    cuda_emulation::current_thread.async.uncommitted.push_back({destination, copy ? source : nullptr});
}

// cp.async.commit_group: the copies issued since the last commit become one group (maybe empty).
inline void cp_async_commit_group() {
    cuda_emulation::AsyncCopies& async = cuda_emulation::current_thread.async;
    async.groups.push_back(std::move(async.uncommitted));
    async.uncommitted.clear();
}

// cp.async.wait_group kPending: this thread's copies in all but its kPending newest groups have
// landed. Other threads see them only after a barrier.
template <int kPending>
void cp_async_wait_group() {
    static_assert(kPending >= 0);
    cuda_emulation::AsyncCopies& async = cuda_emulation::current_thread.async;
    const std::size_t retire = async.groups.size() > kPending ? async.groups.size() - kPending : 0;
    for (std::size_t n = 0; n < retire; ++n) {
        for (const cuda_emulation::AsyncCopy& c : async.groups[n]) {
            if (c.source != nullptr) {
                std::memcpy(c.destination, c.source, 16);
            } else {
                std::memset(c.destination, 0, 16);
            }
        }
    }
    async.groups.erase(async.groups.begin(), async.groups.begin() + static_cast<std::ptrdiff_t>(retire));
}

}  // namespace attn::cuda::ptx
