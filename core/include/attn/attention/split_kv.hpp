#pragma once
// Split-KV attention (Flash-Decoding; vLLM paged_attention_v2; FlashInfer split-k): the keys of
// an attention problem are cut into P partitions, each computed independently into a partial
// state, and the partial states are merged exactly.
//
// A partition's state per query row is the online-softmax triple (m, l, acc) of
// online_softmax.hpp -- the largest score, sum of exp(s - m), and the UNNORMALISED sum of
// exp(s - m) v -- and merging two states is online_softmax::merge. Because merge is associative
// and commutative (the "attention monoid"), partitions may be merged in any order and any tree
// shape. A partial is never normalised before the last merge: acc / l of two partials cannot be
// combined without their l and m.
//
// The equivalent normalised form is (out, lse) with out = acc / l and lse = m + log(l): it is the
// state (m = lse, l = 1, acc = out), so the same merge applies -- this is how Flash-Decoding's
// reduction kernel combines the partitions' outputs with their log-sum-exps.
//
// Partitions are ranges of GLOBAL key indices, so causal masks (either alignment), attention
// masks and GQA apply exactly as in sdpa. A partition in which a row sees no key (or an empty
// range) has m = -inf, l = 0 and merges as the identity: no NaN.
#include <cstddef>
#include <vector>

#include "attn/attention/online_softmax.hpp"
#include "attn/attention/options.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct IndexRange {
    std::size_t begin = 0, end = 0;  // [begin, end)
    std::size_t size() const { return end - begin; }
    friend bool operator==(const IndexRange&, const IndexRange&) = default;
};

// The unnormalised state of query rows [rows.begin, rows.end) of every (batch, query head) over
// the keys in `key_ranges` (pairwise disjoint; after a merge, sorted with touching ranges joined
// and empty ones dropped).
template <class T>
struct PartialAttention {
    std::size_t batch = 0, q_heads = 0, value_dim = 0;
    IndexRange rows;
    std::vector<IndexRange> key_ranges;          // the keys this state has seen
    std::vector<online_softmax::State<T>> state;  // [B, Hq, rows]
    std::vector<T> acc;                           // [B, Hq, rows, Dv], unnormalised

    std::size_t row_count() const { return batch * q_heads * rows.size(); }
};

// The normalised form of a partial: out = acc / l, lse = m + log(l) (zeros and -inf for a row
// that saw no key).
template <class T>
struct NormalizedAttention {
    std::size_t batch = 0, q_heads = 0, value_dim = 0;
    IndexRange rows;
    std::vector<IndexRange> key_ranges;
    std::vector<T> output;  // [B, Hq, rows, Dv]
    std::vector<T> lse;     // [B, Hq, rows]
};

// P contiguous key partitions of kv_len keys, as Flash-Decoding splits them: the first
// kv_len % P get ceil(kv_len / P) keys, the rest floor; when P > kv_len the last P - kv_len are
// empty. num_partitions in [1, 2^16].
std::vector<IndexRange> split_kv_partitions(std::size_t kv_len, std::size_t num_partitions);

// The partial state of query rows `rows` (default: all L rows) over keys `keys` (may be empty),
// computed with online_softmax::update. Throws attn::Error for ranges outside [0, L] / [0, S] or
// with begin > end, and for any argument validate_attention rejects.
template <class T>
PartialAttention<T> attend_kv_range(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v, IndexRange keys,
                                    const AttentionOptions& options = {});
template <class T>
PartialAttention<T> attend_kv_range(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v, IndexRange keys,
                                    IndexRange rows, const AttentionOptions& options = {});

// Merges `other` into `into` (online_softmax::merge per row). Both must describe the same rows,
// batch, heads and value_dim, over disjoint keys; throws attn::Error otherwise (merging a
// partition twice would count its keys twice).
template <class T>
void merge_partial(PartialAttention<T>& into, const PartialAttention<T>& other);

// out = acc / l and lse = m + log(l) per row (online_softmax::finalize).
template <class T>
NormalizedAttention<T> normalize(const PartialAttention<T>& partial);

// Merges two (out, lse) results over disjoint keys, by viewing each as the state (lse, 1, out).
// Same requirements as merge_partial.
template <class T>
NormalizedAttention<T> merge_normalized(const NormalizedAttention<T>& a, const NormalizedAttention<T>& b);

struct SplitKvOptions : AttentionOptions {
    // In [1, 2^16], and num_partitions x B x Hq x L x (Dv + 2) <= 2^24 (the partials it returns).
    std::size_t num_partitions = 4;
};

template <class T>
struct SplitKvResult {
    Tensor4<T> output;                           // [B, Hq, L, Dv]
    std::vector<T> lse;                          // [B, Hq, L]
    std::vector<IndexRange> partitions;          // the key ranges
    std::vector<PartialAttention<T>> partials;   // one per partition, before merging
};

// Flash-Decoding end to end: split, attend every partition, merge left to right, normalise.
template <class T>
SplitKvResult<T> split_kv_attention(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                    const SplitKvOptions& options = {});

}  // namespace attn
