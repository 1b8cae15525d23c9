// The paged decode kernel with split-KV (native/cuda/paged_decode.cu, merged by
// merge_partial_states) under the CPU emulation, against sdpa in double over each sequence's
// gathered context.
//
// Every problem scatters each sequence's K/V rows over a shuffled pool whose other slots are NaN:
// the unused slots of partial last blocks, table entries past the context (pointing at an all-NaN
// block), and blocks of no sequence. The output must hold no NaN, so a kernel that reads one
// poisoned slot fails.
//
// Tolerance 1e-4 absolute on out and lse: K/V are pre-rounded to FP16/BF16 and q to float, so the
// reference sees the kernel's inputs exactly; what remains is FP32 rounding of d-term dot products,
// of the online softmax over at most 1,100 keys, and of the merge (values and scores of magnitude
// < 6, so n u |x| < 1100 * 6e-8 * 6 = 4e-4 is the worst case; typical errors are ~1e-6).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "attn/attention/sdpa.hpp"
#include "kernel_test_support.hpp"

namespace {

using namespace attn;
using namespace attn::test;

constexpr double kTolerance = 1e-4;

struct HalfKv {
    using T = __half;
    static T from_double(double x) { return __float2half_rn(static_cast<float>(x)); }
    static double round(double x) { return round_to_half(x); }
};

struct Bfloat16Kv {
    using T = __nv_bfloat16;
    static T from_double(double x) { return __float2bfloat16_rn(static_cast<float>(x)); }
    static double round(double x) { return round_to_bfloat16(x); }
};

struct PagedCase {
    int q_heads, kv_heads, head_dim, block_size;
    std::vector<int> context_lens;
    int splits = 0;  // 0: paged_decode_num_splits for an sm_90-sized GPU (132 SMs)
};

template <class Kv>
void check_paged_decode(const PagedCase& c) {
    using T = typename Kv::T;
    const std::uint64_t seed = next_seed();
    const int num_seqs = static_cast<int>(c.context_lens.size());
    const int max_context = *std::max_element(c.context_lens.begin(), c.context_lens.end());
    const int splits = c.splits ? c.splits : cuda::paged_decode_num_splits(num_seqs, c.kv_heads, max_context, 132);
    INFO("seed " << seed << ", Hq " << c.q_heads << ", Hkv " << c.kv_heads << ", d " << c.head_dim << ", block "
                 << c.block_size << ", splits " << splits << ", max context " << max_context);
    const std::size_t d = std::size_t(c.head_dim), bs = std::size_t(c.block_size);
    const int max_blocks_per_seq = max_context / c.block_size + 2;  // one entry more than any sequence needs

    // Physical blocks: every sequence's, plus one all-NaN block that unused table entries name,
    // in a shuffled order.
    int used_blocks = 0;
    for (int len : c.context_lens) used_blocks += (len + c.block_size - 1) / c.block_size;
    const int num_blocks = used_blocks + 1;
    std::vector<int> physical(static_cast<std::size_t>(num_blocks));
    std::iota(physical.begin(), physical.end(), 0);
    std::shuffle(physical.begin(), physical.end(), std::mt19937_64(seed));
    const int poison_block = physical.back();

    const std::size_t pool_elements = std::size_t(num_blocks) * c.kv_heads * bs * d;
    const T nan = Kv::from_double(std::numeric_limits<double>::quiet_NaN());
    std::vector<T> key_pool(pool_elements, nan), value_pool(pool_elements, nan);
    std::vector<int> tables(std::size_t(num_seqs) * max_blocks_per_seq, poison_block);
    const Tensor4<double> q = float_rounded(randn({std::size_t(num_seqs), std::size_t(c.q_heads), 1, d}, seed + 1));
    std::vector<float> q_float(q.data.begin(), q.data.end());

    std::vector<SdpaResult<double>> reference;
    int next_block = 0;
    for (int b = 0; b < num_seqs; ++b) {
        const std::size_t len = std::size_t(c.context_lens[b]);
        Tensor4<double> k = randn({1, std::size_t(c.kv_heads), len, d}, seed + 2 + 2 * b);
        Tensor4<double> v = randn({1, std::size_t(c.kv_heads), len, d}, seed + 3 + 2 * b);
        for (auto* t : {&k, &v}) {
            for (double& x : t->data) x = Kv::round(x);
        }
        for (std::size_t logical = 0; logical * bs < len; ++logical) {
            tables[std::size_t(b) * max_blocks_per_seq + logical] = physical[std::size_t(next_block++)];
        }
        for (std::size_t t = 0; t < len; ++t) {
            const std::size_t block = std::size_t(tables[std::size_t(b) * max_blocks_per_seq + t / bs]);
            for (std::size_t h = 0; h < std::size_t(c.kv_heads); ++h) {
                const std::size_t row = ((block * c.kv_heads + h) * bs + t % bs) * d;
                for (std::size_t i = 0; i < d; ++i) {
                    key_pool[row + i] = Kv::from_double(k.at(0, h, t, i));
                    value_pool[row + i] = Kv::from_double(v.at(0, h, t, i));
                }
            }
        }
        Tensor4<double> q_b({1, std::size_t(c.q_heads), 1, d});
        std::copy_n(q.data.begin() + std::ptrdiff_t(b * c.q_heads * d), c.q_heads * d, q_b.data.begin());
        reference.push_back(sdpa(q_b, k, v));
    }

    const cuda::PagedDecodeShape shape{num_seqs, c.q_heads, c.kv_heads, c.head_dim, c.block_size, num_blocks,
                                       max_blocks_per_seq};
    std::vector<float> workspace(cuda::paged_decode_workspace_floats(shape, splits));
    std::vector<float> out(std::size_t(num_seqs) * c.q_heads * d, -1.0f), lse(std::size_t(num_seqs) * c.q_heads);
    cuda::paged_decode(q_float.data(), key_pool.data(), value_pool.data(), tables.data(), c.context_lens.data(), shape,
                       max_context, splits, workspace.data(), out.data(), lse.data(), std::nullopt, nullptr);

    std::vector<double> expected_out, expected_lse;
    for (const auto& r : reference) {
        expected_out.insert(expected_out.end(), r.output.data.begin(), r.output.data.end());
        expected_lse.insert(expected_lse.end(), r.lse.begin(), r.lse.end());
    }
    auto is_nan = [](float x) { return std::isnan(x); };
    CHECK(std::none_of(out.begin(), out.end(), is_nan));  // no poisoned slot was read
    CHECK(std::none_of(lse.begin(), lse.end(), is_nan));
    CHECK(max_abs_diff(widened(out), expected_out) < kTolerance);
    CHECK(max_abs_diff(widened(lse), expected_lse) < kTolerance);
}

template <class Kv>
void check_context_lengths() {
    // Contexts 1, 15, 16, 17 and beyond 1,000 in one batch, so most splits of the short ones are
    // empty; both block sizes; the heuristic's split count and forced ones.
    check_paged_decode<Kv>({2, 1, 64, 16, {1, 15, 16, 17, 1031}});
    check_paged_decode<Kv>({2, 2, 128, 32, {1, 33, 1000}, 5});
    check_paged_decode<Kv>({1, 1, 64, 16, {1040}, 1});
    check_paged_decode<Kv>({1, 1, 64, 32, {70}, 9});  // more splits than blocks: most are empty
}

TEST_CASE("fp16 paged decode matches sdpa at context lengths 1 to 1,040 with split-KV") {
    check_context_lengths<HalfKv>();
}

TEST_CASE("bf16 paged decode matches sdpa at context lengths 1 to 1,040 with split-KV") {
    check_context_lengths<Bfloat16Kv>();
}

TEST_CASE("paged decode packs each KV head's group of query heads: GQA groups 2, 4 and 8") {
    check_paged_decode<HalfKv>({8, 4, 128, 16, {17, 300}, 3});
    check_paged_decode<Bfloat16Kv>({8, 2, 64, 32, {65, 1}});
    check_paged_decode<HalfKv>({8, 1, 128, 16, {513}, 4});
}

TEST_CASE("paged decode split count follows the wave-efficiency heuristic") {
    // 8 blocks on 132 SMs, 32k context: 15 splits fill 91 % of a wave, the fewest within 85 % of
    // the best (33 splits, exactly two waves).
    CHECK(cuda::paged_decode_num_splits(1, 8, 32768, 132) == 15);
    // 1 block on 108 SMs, 4k context: at most 4096 / 256 = 16 splits, each worth one SM; 14 is the
    // fewest within 85 % of 16.
    CHECK(cuda::paged_decode_num_splits(1, 1, 4096, 108) == 14);
    CHECK(cuda::paged_decode_num_splits(16, 8, 32768, 132) == 1);  // 128 blocks fill a wave
    CHECK(cuda::paged_decode_num_splits(1, 8, 256, 132) == 1);     // too short to split
    CHECK(cuda::paged_decode_num_splits(1, 1, 1 << 30, 132) <= cuda::kMaxPagedDecodeSplits);
    check_error([] { cuda::paged_decode_num_splits(0, 8, 256, 132); }, "num_seqs must be in [1, 65535], got 0");
    check_error([] { cuda::paged_decode_num_splits(1, 8, 256, 0); }, "multiprocessors must be in [1, 4096], got 0");
}

TEST_CASE("paged decode launcher rejects bad arguments") {
    std::vector<__half> pool(16 * 64);
    std::vector<float> f(1024);
    std::vector<int> ints(4, 0);
    auto run = [&](cuda::PagedDecodeShape shape, int max_context, int splits, const int* tables) {
        return [=, &pool, &f, &ints] {
            cuda::paged_decode(f.data(), pool.data(), pool.data(), tables, ints.data(), shape, max_context, splits,
                               f.data(), f.data(), f.data(), std::nullopt, nullptr);
        };
    };
    const int* t = ints.data();
    check_error(run({1, 1, 1, 64, 8, 1, 1}, 1, 1, t), "block_size must be 16 or 32, got 8");
    check_error(run({1, 1, 1, 96, 16, 1, 1}, 1, 1, t), "head_dim must be 64 or 128, got 96");
    check_error(run({1, 16, 1, 64, 16, 1, 1}, 1, 1, t), "q_heads must be in [1, 8], got 16");
    check_error(run({1, 6, 4, 64, 16, 1, 1}, 1, 1, t), "q_heads must be a multiple of kv_heads");
    check_error(run({1, 1, 1, 64, 16, 1, 2}, 33, 1, t), "max_context_len must be in [1, 32], got 33");
    check_error(run({1, 1, 1, 64, 16, 1, 1}, 1, 0, t), "splits must be in [1, 256], got 0");
    check_error(run({0, 1, 1, 64, 16, 1, 1}, 1, 1, t), "num_seqs must be in [1, 65535], got 0");
    check_error(run({1, 1, 1, 64, 16, 1, 1}, 1, 1, nullptr), "block_tables must not be null");
}

}  // namespace
