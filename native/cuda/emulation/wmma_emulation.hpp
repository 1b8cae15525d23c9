#pragma once
// The subset of CUDA's warp matrix functions (nvcuda::wmma, <mma.h>) the tensor-core kernel
// uses, emulated on the CPU with the semantics of the CUDA Programming Guide ("Warp Matrix
// Functions"): only the 16x16x16 shape, __half or __nv_bfloat16 multiplicands, float
// accumulators.
//
//   load_matrix_sync(a, p, ldm)       a(i, k) = p[i * ldm + k] (row_major) or p[k * ldm + i] (col_major)
//   load_matrix_sync(b, p, ldm)       b(k, j) = p[k * ldm + j] (row_major) or p[j * ldm + k] (col_major)
//   mma_sync(d, a, b, c)              d = a * b + c: products of the 16-bit inputs are exact in
//                                     float (11- or 8-bit significands), sums are float, in k order
//   store_matrix_sync(p, c, ldm, l)   writes the accumulator tile, row- or column-major
//
// The real operations are warp-collective and each lane holds an unspecified part of every
// fragment. Here accumulator element (i, j) belongs to lane (16 i + j) % 32, that is, lane
// 16 h + j owns column j in the rows i with i % 2 == h: mma_sync computes, and store_matrix_sync
// writes, just the lane's own elements, and load_matrix_sync fetches just the multiplicand rows
// and column those need (8 rows of A, 1 column of B), converted to float once. So, as on a GPU,
// the accumulator's contents are only usable through store_matrix_sync, and a lane reading what
// another lane stored needs __syncwarp() first. Element-wise access to fragments (frag.x[]) is
// not provided: its layout is unspecified.
//
// Loads and stores check what the hardware requires and report a violation as the launch's
// cudaErrorMisalignedAddress: a 32-byte (256-bit) aligned pointer and a leading dimension that
// is a multiple of 16 bytes (8 halves, 4 floats). Loads from shared memory also check that the
// warp's last barrier published what they read (check_published in cuda_emulation.hpp).
#include <cstddef>
#include <string>
#include <type_traits>

#include "cuda_emulation.hpp"

namespace nvcuda::wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

inline constexpr int kTile = 16;

template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
    static_assert(M == kTile && N == kTile && K == kTile, "only the 16x16x16 WMMA shape is emulated");
    float element[kTile * kTile];  // multiplicands as float: a(i, k) at 16 i + k, b(k, j) at 16 k + j
};

template <int M, int N, int K>
struct fragment<accumulator, M, N, K, float, void> {
    static_assert(M == kTile && N == kTile && K == kTile, "only the 16x16x16 WMMA shape is emulated");
    float element[kTile * kTile];  // (i, j) at 16 i + j; meaningful only where owned by this lane
};

namespace detail {
// The accumulator column this lane owns, and the parity of its rows.
inline int owned_column() { return static_cast<int>(attn::cuda_emulation::lane_id() % 16); }
inline int owned_row_parity() { return static_cast<int>(attn::cuda_emulation::lane_id() / 16); }

inline constexpr std::size_t kPointerAlignment = 32;
inline constexpr std::size_t kLeadingDimensionBytes = 16;

// True when a load or store of a 16x16 tile at p with leading dimension ldm (in elements of
// element_bytes) is allowed; otherwise reports why and the operation is skipped.
inline bool valid_tile(const char* operation, const void* p, unsigned ldm, std::size_t element_bytes) {
    using namespace attn::cuda_emulation;
    if (!require_aligned(operation, p, kPointerAlignment)) return false;
    if (ldm < static_cast<unsigned>(kTile) || ldm * element_bytes % kLeadingDimensionBytes != 0) {
        report(cudaErrorMisalignedAddress, std::string(operation) + ": ldm = " + std::to_string(ldm) +
                                               " elements of " + std::to_string(element_bytes) +
                                               " bytes is not a multiple of 16 bytes of at least 16 elements");
        return false;
    }
    return true;
}

// One multiplicand element, read by a warp-collective load: published, converted to float.
template <class T>
float load_element(const char* operation, const T* p) {
    attn::cuda_emulation::check_published(operation, p, sizeof(T));
    return static_cast<float>(*p);
}
}  // namespace detail

template <class T, class Layout>
void load_matrix_sync(fragment<matrix_a, 16, 16, 16, T, Layout>& a, const T* p, unsigned ldm) {
    constexpr const char* kOperation = "wmma::load_matrix_sync (matrix_a)";
    if (!detail::valid_tile(kOperation, p, ldm, sizeof(T))) return;
    for (int i = detail::owned_row_parity(); i < kTile; i += 2) {
        for (int k = 0; k < kTile; ++k) {
            a.element[i * kTile + k] =
                detail::load_element(kOperation, std::is_same_v<Layout, row_major> ? p + i * ldm + k : p + k * ldm + i);
        }
    }
}

template <class T, class Layout>
void load_matrix_sync(fragment<matrix_b, 16, 16, 16, T, Layout>& b, const T* p, unsigned ldm) {
    constexpr const char* kOperation = "wmma::load_matrix_sync (matrix_b)";
    if (!detail::valid_tile(kOperation, p, ldm, sizeof(T))) return;
    const int j = detail::owned_column();
    for (int k = 0; k < kTile; ++k) {
        b.element[k * kTile + j] =
            detail::load_element(kOperation, std::is_same_v<Layout, row_major> ? p + k * ldm + j : p + j * ldm + k);
    }
}

inline void fill_fragment(fragment<accumulator, 16, 16, 16, float>& c, float value) {
    for (float& e : c.element) e = value;
}

template <class T, class LayoutA, class LayoutB>
void mma_sync(fragment<accumulator, 16, 16, 16, float>& d, const fragment<matrix_a, 16, 16, 16, T, LayoutA>& a,
              const fragment<matrix_b, 16, 16, 16, T, LayoutB>& b,
              const fragment<accumulator, 16, 16, 16, float>& c) {
    const int j = detail::owned_column();
    for (int i = detail::owned_row_parity(); i < kTile; i += 2) {
        float sum = c.element[i * kTile + j];
        for (int k = 0; k < kTile; ++k) sum += a.element[i * kTile + k] * b.element[k * kTile + j];
        d.element[i * kTile + j] = sum;
    }
}

inline void store_matrix_sync(float* p, const fragment<accumulator, 16, 16, 16, float>& c, unsigned ldm,
                              layout_t layout) {
    if (!detail::valid_tile("wmma::store_matrix_sync", p, ldm, sizeof(float))) return;
    const int j = detail::owned_column();
    for (int i = detail::owned_row_parity(); i < kTile; i += 2) {
        p[layout == mem_row_major ? i * ldm + j : j * ldm + i] = c.element[i * kTile + j];
    }
}

}  // namespace nvcuda::wmma
