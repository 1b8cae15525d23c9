#pragma once
// One vector register of floats for the optimised CPU paths (flash_forward_fast, paged_decode_fast),
// written with the GCC/Clang vector extension: their micro-kernels keep accumulators in registers
// explicitly, because the auto-vectoriser does not at every width. The width follows the
// instruction set the file is compiled for (ATTN_FAST_CPU_FLAGS, the host's by default); where
// there are no such vectors (WebAssembly without SIMD) the compiler lowers the same code to scalars.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace attn::detail {

#if defined(__AVX512F__)
inline constexpr std::size_t kVec = 16;  // floats per vector register; 32 registers
inline constexpr std::size_t kVecRegisters = 32;
#else
inline constexpr std::size_t kVec = 8;  // AVX2 (and narrower): 16 registers of 8 floats
inline constexpr std::size_t kVecRegisters = 16;
#endif

using Vec = float __attribute__((vector_size(kVec * sizeof(float))));
inline Vec load_vec(const float* p) {
    Vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store_vec(float* p, Vec v) { std::memcpy(p, &v, sizeof v); }

// float storage whose first element sits on a 64-byte boundary (one cache line, one AVX-512 vector).
class AlignedFloats {
public:
    explicit AlignedFloats(std::size_t count) : storage_(count + kPad) {
        const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
        data_ = storage_.data() + ((kAlign - address % kAlign) % kAlign) / sizeof(float);
    }
    float* data() { return data_; }
    const float* data() const { return data_; }

private:
    static constexpr std::size_t kAlign = 64, kPad = kAlign / sizeof(float);
    std::vector<float> storage_;
    float* data_;
};

namespace sum_lanes_detail {
constexpr std::size_t bit_reverse(std::size_t i, std::size_t width) {
    std::size_t r = 0;
    for (std::size_t w = width; w > 1; w /= 2, i /= 2) r = r * 2 + i % 2;
    return r;
}
// Lane o of the folded pair (a, b) at a level whose segments are `seg` lanes long (each segment
// holds partial sums of one result): the first half of a segment takes a's segment folded, the
// second half b's. `high` picks the upper half of each input segment, to be added to the lower.
constexpr int fold_index(std::size_t o, std::size_t seg, bool high) {
    const std::size_t s = o / seg, w = o % seg, half = seg / 2;
    const std::size_t from_b = w < half ? 0 : kVec;
    return static_cast<int>(from_b + s * seg + w % half + (high ? half : 0));
}
// Always inlined, as everything here: the tree's vectors must stay in registers.
template <std::size_t Seg, std::size_t... O>
[[gnu::always_inline]] inline Vec fold_pair(Vec a, Vec b, std::index_sequence<O...>) {
    return __builtin_shufflevector(a, b, fold_index(O, Seg, false)...) +
           __builtin_shufflevector(a, b, fold_index(O, Seg, true)...);
}
// One level of the tree: a new array built from the previous level's values through index
// sequences, never a loop writing an array in place. GCC then keeps the whole tree, and the
// accumulators fed to it, in registers; with in-place loops it kept the paged-decode score tile's
// 16 accumulators on the stack, cleared by a memset call per tile. Measured (Zen 4, paged decode
// in cache, one thread): Llama-3-8B shape 26.5 -> 29.4 GB/s, 70B shape 17.0 -> 19.7 GB/s.
template <std::size_t Seg, std::size_t... I>
[[gnu::always_inline]] inline Vec fold_level(const Vec (&v)[2 * sizeof...(I)], std::index_sequence<I...>) {
    const Vec next[sizeof...(I)] = {fold_pair<Seg>(v[2 * I], v[2 * I + 1], std::make_index_sequence<kVec>{})...};
    if constexpr (sizeof...(I) == 1) return next[0];
    else return fold_level<Seg / 2>(next, std::make_index_sequence<sizeof...(I) / 2>{});
}
// Fed in bit-reversed order, the tree leaves lane n holding the sum of acc[n].
template <std::size_t N, std::size_t... I>
[[gnu::always_inline]] inline Vec fold_tree(const Vec (&acc)[N], std::index_sequence<I...>) {
    const Vec v[kVec] = {(bit_reverse(I, kVec) < N ? acc[bit_reverse(I, kVec)] : Vec{})...};
    return fold_level<kVec>(v, std::make_index_sequence<kVec / 2>{});
}
}  // namespace sum_lanes_detail

// The lane sums of up to kVec vectors at once, as one vector: lane n = sum of the lanes of acc[n]
// (0 for n >= N). A pairwise shuffle-and-add tree: kVec - 1 folds for kVec sums, where summing each
// vector on its own takes log2(kVec) folds per sum.
template <std::size_t N>
[[gnu::always_inline]] inline Vec sum_lanes(const Vec (&acc)[N]) {
    static_assert(N >= 1 && N <= kVec);
    return sum_lanes_detail::fold_tree(acc, std::make_index_sequence<kVec>{});
}

}  // namespace attn::detail
