#include "attn/attention/split_kv.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "score_row.hpp"

namespace attn {
namespace {

constexpr std::size_t kMaxPartitions = std::size_t{1} << 16;  // far past any GPU's useful split count
// split_kv_attention keeps every partition's state (rows x (Dv + 2) numbers each) in its result.
constexpr std::size_t kMaxPartialNumbers = std::size_t{1} << 24;

std::string range_str(IndexRange r) { return "[" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")"; }

void require_range(const char* name, IndexRange r, std::size_t limit) {
    if (r.begin > r.end || r.end > limit) {
        throw Error(std::string(name) + ": must be a range [begin, end) with begin <= end <= " + std::to_string(limit) +
                    ", got " + range_str(r));
    }
}

// Sorted by begin, any two non-empty ranges overlap exactly when one begins before its
// predecessor ends; sorting keeps this O(n log n) in the number of ranges.
bool overlaps(const std::vector<IndexRange>& a, const std::vector<IndexRange>& b) {
    std::vector<IndexRange> all;
    for (const auto* list : {&a, &b}) {
        for (const IndexRange& r : *list) {
            if (r.size()) all.push_back(r);
        }
    }
    std::sort(all.begin(), all.end(), [](IndexRange x, IndexRange y) { return x.begin < y.begin; });
    for (std::size_t i = 1; i < all.size(); ++i) {
        if (all[i].begin < all[i - 1].end) return true;
    }
    return false;
}

template <class A, class B>
void require_compatible(const A& a, const B& b, const char* name) {
    if (a.batch != b.batch || a.q_heads != b.q_heads || a.value_dim != b.value_dim || !(a.rows == b.rows)) {
        throw Error(std::string(name) + ": the two partials must cover the same batch, heads, value_dim and rows; got rows " +
                    range_str(a.rows) + " and " + range_str(b.rows));
    }
    if (overlaps(a.key_ranges, b.key_ranges)) {
        throw Error(std::string(name) + ": the two partials share keys; merge only partials over disjoint key ranges");
    }
}

// The keys of two merged partials: their non-empty ranges sorted, touching ones joined, so a
// left-to-right merge of P partitions carries one range instead of P (and checks in O(1)).
std::vector<IndexRange> joined(std::vector<IndexRange> a, const std::vector<IndexRange>& b) {
    a.insert(a.end(), b.begin(), b.end());
    std::erase_if(a, [](IndexRange r) { return r.size() == 0; });
    std::sort(a.begin(), a.end(), [](IndexRange x, IndexRange y) { return x.begin < y.begin; });
    std::vector<IndexRange> r;
    for (const IndexRange& x : a) {
        if (!r.empty() && r.back().end == x.begin) r.back().end = x.end;
        else r.push_back(x);
    }
    return r;
}

}  // namespace

std::vector<IndexRange> split_kv_partitions(std::size_t kv_len, std::size_t num_partitions) {
    if (num_partitions < 1 || num_partitions > kMaxPartitions) {
        throw Error("num_partitions: must be in [1, " + std::to_string(kMaxPartitions) + "], got " +
                    std::to_string(num_partitions));
    }
    std::vector<IndexRange> parts;
    const std::size_t base = kv_len / num_partitions, extra = kv_len % num_partitions;
    std::size_t begin = 0;
    for (std::size_t p = 0; p < num_partitions; ++p) {
        const std::size_t len = base + (p < extra ? 1 : 0);
        parts.push_back({begin, begin + len});
        begin += len;
    }
    return parts;
}

template <class T>
PartialAttention<T> attend_kv_range(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v, IndexRange keys,
                                    IndexRange rows, const AttentionOptions& options) {
    const AttentionProblem p = validate_attention(q, k, v, options);
    require_range("keys", keys, p.kv_len);
    require_range("rows", rows, p.q_len);
    PartialAttention<T> r{p.batch, p.q_heads, p.value_dim, rows, {keys}, {}, {}};
    r.state.resize(r.row_count());
    r.acc.assign(r.row_count() * p.value_dim, T(0));
    std::vector<T> scores(keys.size());
    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t h = 0; h < p.q_heads; ++h) {
            const T* values = v.row(b, p.kv_head_of(h), 0);
            for (std::size_t i = rows.begin; i < rows.end; ++i) {
                const std::size_t n = (b * p.q_heads + h) * rows.size() + (i - rows.begin);
                if (keys.size() == 0) continue;  // the identity state
                detail::score_row(p, options, q, k, b, h, i, keys.begin, keys.end, scores.data());
                online_softmax::update(r.state[n], &r.acc[n * p.value_dim], p.value_dim, scores.data(), keys.size(),
                                       values + keys.begin * p.value_dim, p.value_dim);
            }
        }
    }
    return r;
}

template <class T>
PartialAttention<T> attend_kv_range(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v, IndexRange keys,
                                    const AttentionOptions& options) {
    return attend_kv_range(q, k, v, keys, IndexRange{0, q.shape.seq}, options);
}

template <class T>
void merge_partial(PartialAttention<T>& into, const PartialAttention<T>& other) {
    require_compatible(into, other, "merge_partial");
    for (std::size_t n = 0; n < into.row_count(); ++n) {
        online_softmax::merge(into.state[n], &into.acc[n * into.value_dim], other.state[n],
                              &other.acc[n * into.value_dim], into.value_dim);
    }
    into.key_ranges = joined(std::move(into.key_ranges), other.key_ranges);
}

template <class T>
NormalizedAttention<T> normalize(const PartialAttention<T>& partial) {
    NormalizedAttention<T> r{partial.batch, partial.q_heads, partial.value_dim, partial.rows, partial.key_ranges, {}, {}};
    r.output.resize(partial.row_count() * partial.value_dim);
    r.lse.resize(partial.row_count());
    for (std::size_t n = 0; n < partial.row_count(); ++n) {
        r.lse[n] = online_softmax::finalize(partial.state[n], &partial.acc[n * partial.value_dim], partial.value_dim,
                                            &r.output[n * partial.value_dim]);
    }
    return r;
}

template <class T>
NormalizedAttention<T> merge_normalized(const NormalizedAttention<T>& a, const NormalizedAttention<T>& b) {
    require_compatible(a, b, "merge_normalized");
    if (a.output.size() != a.lse.size() * a.value_dim || b.output.size() != b.lse.size() * b.value_dim ||
        a.lse.size() != b.lse.size()) {
        throw Error("merge_normalized: output must hold lse.size() * value_dim entries in both partials");
    }
    NormalizedAttention<T> r{a.batch, a.q_heads, a.value_dim, a.rows, joined(a.key_ranges, b.key_ranges), {}, {}};
    r.output.resize(a.output.size());
    r.lse.resize(a.lse.size());
    const std::size_t dv = a.value_dim;
    std::vector<T> acc(dv);
    // (out, lse) is the state m = lse, l = 1, acc = out; a row that saw no key is the empty state.
    const auto as_state = [](T lse) {
        return lse == -std::numeric_limits<T>::infinity() ? online_softmax::State<T>{} : online_softmax::State<T>{lse, T(1)};
    };
    for (std::size_t n = 0; n < a.lse.size(); ++n) {
        online_softmax::State<T> s = as_state(a.lse[n]);
        std::copy_n(&a.output[n * dv], dv, acc.begin());
        online_softmax::merge(s, acc.data(), as_state(b.lse[n]), &b.output[n * dv], dv);
        r.lse[n] = online_softmax::finalize(s, acc.data(), dv, &r.output[n * dv]);
    }
    return r;
}

template <class T>
SplitKvResult<T> split_kv_attention(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                    const SplitKvOptions& options) {
    const AttentionProblem p = validate_attention(q, k, v, options);
    SplitKvResult<T> r;
    r.partitions = split_kv_partitions(p.kv_len, options.num_partitions);
    const std::size_t per_partition = p.batch * p.q_heads * p.q_len * (p.value_dim + 2);
    if (per_partition > kMaxPartialNumbers / options.num_partitions) {
        throw Error("num_partitions: the result keeps num_partitions x batch x q_heads x q_len x (value_dim + 2) numbers, "
                    "at most " + std::to_string(kMaxPartialNumbers) + "; use at most " +
                    std::to_string(std::max<std::size_t>(1, kMaxPartialNumbers / per_partition)) +
                    " partitions for this problem, got " + std::to_string(options.num_partitions));
    }
    for (const IndexRange& keys : r.partitions) r.partials.push_back(attend_kv_range(q, k, v, keys, options));
    PartialAttention<T> total = r.partials.front();
    for (std::size_t i = 1; i < r.partials.size(); ++i) merge_partial(total, r.partials[i]);
    NormalizedAttention<T> n = normalize(total);
    r.output = Tensor4<T>(p.output_shape(), std::move(n.output));
    r.lse = std::move(n.lse);
    return r;
}

#define ATTN_SPLIT_KV(T)                                                                                              \
    template PartialAttention<T> attend_kv_range(const Tensor4<T>&, const Tensor4<T>&, const Tensor4<T>&, IndexRange, \
                                                 const AttentionOptions&);                                            \
    template PartialAttention<T> attend_kv_range(const Tensor4<T>&, const Tensor4<T>&, const Tensor4<T>&, IndexRange, \
                                                 IndexRange, const AttentionOptions&);                                \
    template void merge_partial(PartialAttention<T>&, const PartialAttention<T>&);                                    \
    template NormalizedAttention<T> normalize(const PartialAttention<T>&);                                            \
    template NormalizedAttention<T> merge_normalized(const NormalizedAttention<T>&, const NormalizedAttention<T>&);   \
    template SplitKvResult<T> split_kv_attention(const Tensor4<T>&, const Tensor4<T>&, const Tensor4<T>&,            \
                                                 const SplitKvOptions&);
ATTN_SPLIT_KV(float)
ATTN_SPLIT_KV(double)
#undef ATTN_SPLIT_KV

}  // namespace attn
