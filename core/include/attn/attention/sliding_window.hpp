#pragma once
// Sliding-window attention with a rolling-buffer KV cache (Jiang et al. 2023, "Mistral 7B",
// arXiv:2310.06825, Sec. 2: "Sliding Window Attention" and "Rolling Buffer Cache", Figures 1-2).
//
// With window W, query i sees key j iff i - W < j <= i: the W most recent positions, itself
// included (Mistral's Figure 1 draws W = 3 ones per row; Hugging Face's sliding_window masks the
// same way). Decoding therefore never needs more than W cached K/V rows: position i is stored at
// slot i mod W, overwriting position i - W, which no later query can see. The cache size is
// min(i + 1, W) -- constant once the context exceeds W.
//
// Receptive field. Through one layer a token reaches W - 1 positions back; through L stacked
// layers L (W - 1). The paper words it as "after k attention layers, information can move forward
// by up to k x W tokens" (with the window counted as [i - W, i]); sliding_window_receptive_field
// returns both, and the influence map the figure draws is computed from the mask itself.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/attention/options.hpp"
#include "attn/tensor.hpp"

namespace attn {

// Boolean mask [1, 1, seq_len, seq_len] of the window (for sdpa, the dense reference).
// seq_len in [1, 2^14], window >= 1.
AttentionMask sliding_window_mask(std::size_t seq_len, std::size_t window);

// The rolling buffer of one sequence: W slots per KV head.
template <class T>
class RollingKvCache {
public:
    // window, kv_heads, head_dim, value_dim all >= 1; throws attn::Error otherwise.
    RollingKvCache(std::size_t window, std::size_t kv_heads, std::size_t head_dim, std::size_t value_dim);

    // Stores the next position's K and V rows (kv_heads x head_dim and kv_heads x value_dim,
    // head-major) at slot position mod W. Throws attn::Error for wrong sizes or non-finite rows.
    void append(const std::vector<T>& key_rows, const std::vector<T>& value_rows);

    // Attention of the newest position's query (q_heads x head_dim, head-major; q_heads a
    // multiple of kv_heads) over the cached positions. Writes q_heads x value_dim outputs and
    // returns the q_heads log-sum-exps. Throws attn::Error before the first append.
    std::vector<T> attend(const std::vector<T>& query, std::size_t q_heads, std::optional<double> scale,
                          std::vector<T>& output) const;

    std::size_t window() const { return window_; }
    std::size_t positions_seen() const { return seen_; }
    std::size_t size() const { return seen_ < window_ ? seen_ : window_; }  // cached positions
    // The slot of a cached position; throws attn::Error if it was evicted or not yet written.
    std::size_t slot_of(std::size_t position) const;

private:
    std::size_t window_, kv_heads_, head_dim_, value_dim_, seen_ = 0;
    std::vector<T> keys_, values_;  // [kv_heads, W, dim]
};

template <class T>
struct SlidingWindowResult {
    Tensor4<T> output;                    // [B, Hq, L, Dv]
    std::vector<T> lse;                   // [B, Hq, L]
    std::vector<std::size_t> cache_size;  // cached positions after each decode step (length L)
};

// Decodes the L positions of q [B, Hq, L, D], k, v [B, Hkv, L, D/Dv] one at a time through a
// RollingKvCache per sequence: append K/V of position i, then attend with query i.
template <class T>
SlidingWindowResult<T> sliding_window_decode(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                             std::size_t window, std::optional<double> scale = std::nullopt);

struct ReceptiveField {
    std::size_t layers, window;
    // 64-bit: up to 2^50, which a 32-bit size_t (WebAssembly) would wrap.
    std::uint64_t reach_tokens;        // L (W - 1): how far back the last layer's token sees
    std::uint64_t paper_reach_tokens;  // L x W, the paper's wording (Mistral 7B, Sec. 2)
};

// layers in [1, 2^20], window in [1, 2^30].
ReceptiveField sliding_window_receptive_field(std::size_t layers, std::size_t window);

// Which positions the token at `source` influences after each layer, propagated through the
// window mask: row l (0-based, l < layers) holds seq_len flags (1 = reached after l + 1 layers).
// layers * seq_len * seq_len <= 2^26; source < seq_len.
std::vector<std::vector<std::uint8_t>> sliding_window_influence(std::size_t layers, std::size_t window,
                                                                std::size_t seq_len, std::size_t source);

}  // namespace attn
