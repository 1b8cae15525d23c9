#include "attn/attention/paged_decode.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "attn/attention/online_softmax.hpp"
#include "paged_decode_checks.hpp"

namespace attn {
namespace {

std::string str(std::size_t n) { return std::to_string(n); }

void check_pools(const Shape4& kp, const Shape4& vp) {
    if (kp.batch == 0 || kp.heads == 0 || kp.seq == 0 || kp.dim == 0) {
        throw Error("key_pool: every dimension [num_blocks, kv_heads, block_size, head_dim] must be >= 1, got " + kp.str());
    }
    if (vp.batch != kp.batch || vp.heads != kp.heads || vp.seq != kp.seq || vp.dim == 0) {
        throw Error("value_pool: must be [num_blocks, kv_heads, block_size, value_dim] with the key pool's first three (" +
                    kp.str() + "), got " + vp.str());
    }
}

template <class T>
void check_sequence(const Tensor4<T>& key_pool, const Tensor4<T>& value_pool, const PagedSequence& s,
                    const std::string& name, bool check_rows) {
    const std::size_t block_size = key_pool.shape.seq, num_blocks = key_pool.shape.batch;
    if (s.context_len == 0) throw Error(name + ".context_len: must be >= 1, got 0");
    const std::size_t blocks_needed = (s.context_len + block_size - 1) / block_size;
    if (s.block_table.size() < blocks_needed) {
        throw Error(name + ".block_table: " + str(s.context_len) + " tokens in blocks of " + str(block_size) + " need " +
                    str(blocks_needed) + " entries, got " + str(s.block_table.size()));
    }
    for (std::size_t i = 0; i < blocks_needed; ++i) {
        if (s.block_table[i] >= num_blocks) {
            throw Error(name + ".block_table: entry " + str(i) + " is " + str(s.block_table[i]) +
                        "; physical block ids must be < num_blocks = " + str(num_blocks));
        }
    }
    if (!s.key_allowed.empty() && s.key_allowed.size() != s.context_len) {
        throw Error(name + ".key_allowed: must be empty or hold context_len = " + str(s.context_len) + " entries, got " +
                    str(s.key_allowed.size()));
    }
    // Only the rows the walk reads must be finite: slots past context_len may hold anything.
    for (std::size_t t = 0; check_rows && t < s.context_len; ++t) {
        const PagedSlot slot = paged_slot(s.block_table.data(), block_size, t);
        for (std::size_t h = 0; h < key_pool.shape.heads; ++h) {
            const T* kr = key_pool.row(slot.block, h, slot.offset);
            const T* vr = value_pool.row(slot.block, h, slot.offset);
            for (std::size_t c = 0; c < key_pool.shape.dim; ++c) {
                if (!std::isfinite(kr[c])) throw Error("key_pool: a row " + name + " reads is not finite (token " + str(t) + ")");
            }
            for (std::size_t c = 0; c < value_pool.shape.dim; ++c) {
                if (!std::isfinite(vr[c])) {
                    throw Error("value_pool: a row " + name + " reads is not finite (token " + str(t) + ")");
                }
            }
        }
    }
}

template <class T>
void check_storage(const char* name, const Tensor4<T>& t) {
    if (t.data.size() != t.shape.numel()) {
        throw Error(std::string(name) + ": holds " + str(t.data.size()) + " elements but its shape " + t.shape.str() +
                    " needs " + str(t.shape.numel()));
    }
}

}  // namespace

namespace detail {

template <class T>
void validate_paged_decode(const Tensor4<T>& q, const Tensor4<T>& key_pool, const Tensor4<T>& value_pool,
                           const std::vector<PagedSequence>& sequences, std::optional<double> scale, bool check_rows) {
    check_storage("query", q);
    check_storage("key_pool", key_pool);
    check_storage("value_pool", value_pool);
    check_pools(key_pool.shape, value_pool.shape);
    const Shape4& qs = q.shape;
    if (qs.batch == 0 || qs.heads == 0 || qs.seq != 1 || qs.dim == 0) {
        throw Error("query: must be [num_seqs >= 1, q_heads >= 1, 1, head_dim >= 1] (one token per sequence), got " +
                    qs.str());
    }
    if (qs.dim != key_pool.shape.dim) {
        throw Error("query: head_dim must equal the key pool's (" + str(key_pool.shape.dim) + "), got " + str(qs.dim));
    }
    if (qs.heads % key_pool.shape.heads != 0) {
        throw Error("key_pool: its kv_heads (" + str(key_pool.shape.heads) + ") must divide the query's heads (" +
                    str(qs.heads) + ")");
    }
    if (sequences.size() != qs.batch) {
        throw Error("sequences: need one per query sequence (" + str(qs.batch) + "), got " + str(sequences.size()));
    }
    for (T x : q.data) {
        if (!std::isfinite(x)) throw Error("query: elements must be finite numbers");
    }
    if (scale && !std::isfinite(*scale)) throw Error("scale: must be a finite number");
    for (std::size_t s = 0; s < sequences.size(); ++s) {
        check_sequence(key_pool, value_pool, sequences[s], "sequences[" + str(s) + "]", check_rows);
    }
}

template void validate_paged_decode(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&,
                                    const std::vector<PagedSequence>&, std::optional<double>, bool);
template void validate_paged_decode(const Tensor4<double>&, const Tensor4<double>&, const Tensor4<double>&,
                                    const std::vector<PagedSequence>&, std::optional<double>, bool);

}  // namespace detail

template <class T>
PagedDecodeResult<T> paged_decode(const Tensor4<T>& q, const Tensor4<T>& key_pool, const Tensor4<T>& value_pool,
                                  const std::vector<PagedSequence>& sequences, const PagedDecodeOptions& options) {
    detail::validate_paged_decode(q, key_pool, value_pool, sequences, options.scale, true);
    const Shape4& qs = q.shape;
    if (options.trace && (options.trace_seq >= qs.batch || options.trace_head >= qs.heads)) {
        throw Error("trace_seq/trace_head: must be < (" + str(qs.batch) + ", " + str(qs.heads) + "), got (" +
                    str(options.trace_seq) + ", " + str(options.trace_head) + ")");
    }

    const std::size_t D = qs.dim, Dv = value_pool.shape.dim, block_size = key_pool.shape.seq;
    const std::size_t group = qs.heads / key_pool.shape.heads;
    const T scale = static_cast<T>(options.scale.value_or(1.0 / std::sqrt(static_cast<double>(D))));
    PagedDecodeResult<T> r{Tensor4<T>({qs.batch, qs.heads, 1, Dv}), std::vector<T>(qs.batch * qs.heads), {}};
    std::vector<T> scores(block_size), acc(Dv);
    for (std::size_t s = 0; s < qs.batch; ++s) {
        const PagedSequence& seq = sequences[s];
        const std::size_t num_blocks = (seq.context_len + block_size - 1) / block_size;
        for (std::size_t h = 0; h < qs.heads; ++h) {
            const std::size_t kvh = h / group;
            const T* qh = q.row(s, h, 0);
            const bool tracing = options.trace && s == options.trace_seq && h == options.trace_head;
            online_softmax::State<T> state;
            std::fill(acc.begin(), acc.end(), T(0));
            for (std::size_t lb = 0; lb < num_blocks; ++lb) {
                const std::size_t pb = seq.block_table[lb];
                const std::size_t t0 = lb * block_size;
                // The last block may be partial: read only the tokens below context_len.
                const std::size_t count = std::min(block_size, seq.context_len - t0);
                for (std::size_t j = 0; j < count; ++j) {
                    if (!seq.key_allowed.empty() && !seq.key_allowed[t0 + j]) {
                        scores[j] = -std::numeric_limits<T>::infinity();
                        continue;
                    }
                    const T* kr = key_pool.row(pb, kvh, j);
                    T dot = 0;
                    for (std::size_t c = 0; c < D; ++c) dot += qh[c] * kr[c];
                    scores[j] = scale * dot;
                }
                // Rows of one (block, head) are contiguous in the pool: the values are a strided view.
                const T alpha = online_softmax::update(state, acc.data(), Dv, scores.data(), count,
                                                       value_pool.row(pb, kvh, 0), Dv);
                if (tracing) {
                    r.trace.push_back({lb, pb, t0, t0 + count, std::vector<T>(scores.begin(), scores.begin() + count),
                                       state.m, state.l, alpha, acc});
                }
            }
            r.lse[s * qs.heads + h] = online_softmax::finalize(state, acc.data(), Dv, r.output.row(s, h, 0));
        }
    }
    return r;
}

template <class T>
std::pair<Tensor4<T>, Tensor4<T>> gather_paged_kv(const Tensor4<T>& key_pool, const Tensor4<T>& value_pool,
                                                  const PagedSequence& sequence) {
    check_storage("key_pool", key_pool);
    check_storage("value_pool", value_pool);
    check_pools(key_pool.shape, value_pool.shape);
    check_sequence(key_pool, value_pool, sequence, "sequence", true);
    const std::size_t Hkv = key_pool.shape.heads, D = key_pool.shape.dim, Dv = value_pool.shape.dim;
    Tensor4<T> k({1, Hkv, sequence.context_len, D}), v({1, Hkv, sequence.context_len, Dv});
    for (std::size_t t = 0; t < sequence.context_len; ++t) {
        const PagedSlot slot = paged_slot(sequence.block_table.data(), key_pool.shape.seq, t);
        for (std::size_t h = 0; h < Hkv; ++h) {
            std::copy_n(key_pool.row(slot.block, h, slot.offset), D, k.row(0, h, t));
            std::copy_n(value_pool.row(slot.block, h, slot.offset), Dv, v.row(0, h, t));
        }
    }
    return {std::move(k), std::move(v)};
}

template PagedDecodeResult<float> paged_decode(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&,
                                               const std::vector<PagedSequence>&, const PagedDecodeOptions&);
template PagedDecodeResult<double> paged_decode(const Tensor4<double>&, const Tensor4<double>&, const Tensor4<double>&,
                                                const std::vector<PagedSequence>&, const PagedDecodeOptions&);
template std::pair<Tensor4<float>, Tensor4<float>> gather_paged_kv(const Tensor4<float>&, const Tensor4<float>&,
                                                                   const PagedSequence&);
template std::pair<Tensor4<double>, Tensor4<double>> gather_paged_kv(const Tensor4<double>&, const Tensor4<double>&,
                                                                     const PagedSequence&);

}  // namespace attn
