#pragma once
// Paged-decode test helpers shared by the reference and the fast implementation's suites.
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "attn/attention/paged_decode.hpp"
#include "attn/attention/sdpa.hpp"

namespace attn::test {

// A shuffled (non-contiguous) assignment of physical blocks to the sequences' logical blocks.
inline std::vector<PagedSequence> random_tables(const std::vector<std::size_t>& context_lens,
                                                std::size_t block_size, std::size_t num_blocks, std::mt19937_64& rng) {
    std::vector<std::size_t> free(num_blocks);
    std::iota(free.begin(), free.end(), 0);
    std::shuffle(free.begin(), free.end(), rng);
    std::vector<PagedSequence> seqs;
    for (std::size_t len : context_lens) {
        PagedSequence s;
        s.context_len = len;
        for (std::size_t b = 0; b < (len + block_size - 1) / block_size; ++b) {
            s.block_table.push_back(free.back());
            free.pop_back();
        }
        seqs.push_back(s);
    }
    return seqs;
}

// Dense reference for sequence s: sdpa of its query over its gathered K/V, with its key mask.
inline SdpaResult<double> dense_paged_reference(const Tensor4<double>& q, std::size_t s, const Tensor4<double>& kp,
                                                const Tensor4<double>& vp, const PagedSequence& seq, double scale) {
    const auto [k, v] = gather_paged_kv(kp, vp, seq);
    Tensor4<double> qs({1, q.shape.heads, 1, q.shape.dim});
    std::copy_n(q.row(s, 0, 0), q.shape.heads * q.shape.dim, qs.data.begin());
    SdpaOptions o;
    o.scale = scale;
    if (!seq.key_allowed.empty()) o.mask = AttentionMask::boolean({1, 1, 1, seq.context_len}, seq.key_allowed);
    return sdpa(qs, k, v, o);
}

}  // namespace attn::test
