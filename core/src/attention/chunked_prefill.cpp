#include "attn/attention/chunked_prefill.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/attention/causal.hpp"
#include "attn/attention/online_softmax.hpp"

namespace attn {
namespace {

constexpr std::size_t kMaxBlockK = std::size_t{1} << 20;

std::string str(std::size_t n) { return std::to_string(n); }

void require_positive(const char* name, const Shape4& s) {
    if (s.batch == 0 || s.heads == 0 || s.seq == 0 || s.dim == 0) {
        throw Error(std::string(name) + ": every dimension must be >= 1, got shape " + s.str());
    }
}

template <class T>
void require_storage(const char* name, const Tensor4<T>& t) {
    if (t.data.size() != t.shape.numel()) {
        throw Error(std::string(name) + ": holds " + str(t.data.size()) + " elements but its shape " + t.shape.str() +
                    " needs " + str(t.shape.numel()));
    }
}

// Rows [0, rows) of every (batch, head) of t must be finite.
template <class T>
void require_finite_prefix(const char* name, const Tensor4<T>& t, std::size_t rows) {
    for (std::size_t b = 0; b < t.shape.batch; ++b) {
        for (std::size_t h = 0; h < t.shape.heads; ++h) {
            const T* first = t.row(b, h, 0);
            for (std::size_t n = 0; n < rows * t.shape.dim; ++n) {
                if (!std::isfinite(first[n])) {
                    throw Error(std::string(name) + ": row " + str(n / t.shape.dim) +
                                " is not finite; the rows a prefill reads must be finite numbers");
                }
            }
        }
    }
}

template <class T>
void check_kv(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v, const char* kname, const char* vname) {
    require_storage("query", q);
    require_storage(kname, k);
    require_storage(vname, v);
    require_positive("query", q.shape);
    require_positive(kname, k.shape);
    require_positive(vname, v.shape);
    if (k.shape.batch != q.shape.batch || v.shape.batch != q.shape.batch) {
        throw Error(std::string(kname) + "/" + vname + ": batch must equal the query's (" + str(q.shape.batch) + ")");
    }
    if (v.shape.heads != k.shape.heads || v.shape.seq != k.shape.seq) {
        throw Error(std::string(vname) + ": heads and length must equal " + kname + "'s (" + str(k.shape.heads) + ", " +
                    str(k.shape.seq) + "), got " + v.shape.str());
    }
    if (q.shape.heads % k.shape.heads != 0) {
        throw Error(std::string(kname) + ": its head count (" + str(k.shape.heads) + ") must divide the query's (" +
                    str(q.shape.heads) + ")");
    }
    if (k.shape.dim != q.shape.dim) {
        throw Error(std::string(kname) + ": head_dim must equal the query's (" + str(q.shape.dim) + "), got " +
                    str(k.shape.dim));
    }
}

void check_options(const PrefillOptions& o) {
    if (o.scale && !std::isfinite(*o.scale)) throw Error("scale: must be a finite number");
    if (o.block_k < 1 || o.block_k > kMaxBlockK) {
        throw Error("block_k: must be in [1, " + str(kMaxBlockK) + "], got " + str(o.block_k));
    }
}

}  // namespace

template <class T>
PrefillResult<T> prefill_attention(const Tensor4<T>& q, const Tensor4<T>& key_cache, const Tensor4<T>& value_cache,
                                   std::size_t start_pos, const PrefillOptions& options) {
    check_kv(q, key_cache, value_cache, "key_cache", "value_cache");
    check_options(options);
    const std::size_t M = q.shape.seq, capacity = key_cache.shape.seq;
    if (start_pos > capacity || M > capacity - start_pos) {
        throw Error("start_pos: start_pos + M = " + str(start_pos) + " + " + str(M) +
                    " must not exceed the cache capacity " + str(capacity));
    }
    const std::size_t S = start_pos + M;  // keys written so far
    require_finite_prefix("query", q, M);
    require_finite_prefix("key_cache", key_cache, S);
    require_finite_prefix("value_cache", value_cache, S);

    const std::size_t D = q.shape.dim, Dv = value_cache.shape.dim, group = q.shape.heads / key_cache.shape.heads;
    const T scale = static_cast<T>(options.scale.value_or(1.0 / std::sqrt(static_cast<double>(D))));
    PrefillResult<T> r{Tensor4<T>({q.shape.batch, q.shape.heads, M, Dv}), std::vector<T>(q.shape.batch * q.shape.heads * M),
                       0};
    std::vector<T> scores(options.block_k), acc(Dv);
    for (std::size_t b = 0; b < q.shape.batch; ++b) {
        for (std::size_t h = 0; h < q.shape.heads; ++h) {
            const std::size_t kvh = h / group;
            for (std::size_t i = 0; i < M; ++i) {
                // The causal rule as a loop bound: start_pos + i + 1 keys, never more.
                const std::size_t key_end = causal_key_end(i, M, S, Causal::bottom_right);
                const T* qi = q.row(b, h, i);
                online_softmax::State<T> state;
                std::fill(acc.begin(), acc.end(), T(0));
                for (std::size_t j0 = 0; j0 < key_end; j0 += options.block_k) {
                    const std::size_t count = std::min(options.block_k, key_end - j0);
                    for (std::size_t j = 0; j < count; ++j) {
                        const T* kj = key_cache.row(b, kvh, j0 + j);
                        T dot = 0;
                        for (std::size_t c = 0; c < D; ++c) dot += qi[c] * kj[c];
                        scores[j] = scale * dot;
                    }
                    online_softmax::update(state, acc.data(), Dv, scores.data(), count, value_cache.row(b, kvh, j0), Dv);
                }
                r.key_rows_read += key_end;
                r.lse[(b * q.shape.heads + h) * M + i] = online_softmax::finalize(state, acc.data(), Dv, r.output.row(b, h, i));
            }
        }
    }
    return r;
}

template <class T>
PrefillResult<T> chunked_prefill(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v,
                                 const std::vector<std::size_t>& chunk_lengths, const PrefillOptions& options) {
    check_kv(q, k, v, "key", "value");
    check_options(options);
    const std::size_t N = q.shape.seq;
    if (k.shape.seq != N) throw Error("key: length must equal the prompt's (" + str(N) + "), got " + str(k.shape.seq));
    std::size_t total = 0;
    for (std::size_t c : chunk_lengths) {
        if (c == 0) throw Error("chunk_lengths: every chunk must hold >= 1 token");
        total += c;
    }
    if (total != N) {
        throw Error("chunk_lengths: must sum to the prompt length " + str(N) + ", got " + str(total));
    }
    const std::size_t B = q.shape.batch, Hq = q.shape.heads, Hkv = k.shape.heads, D = q.shape.dim, Dv = v.shape.dim;
    // Unwritten slots hold NaN: if any query read past its causal bound, its output would be NaN.
    Tensor4<T> key_cache({B, Hkv, N, D}, std::numeric_limits<T>::quiet_NaN());
    Tensor4<T> value_cache({B, Hkv, N, Dv}, std::numeric_limits<T>::quiet_NaN());
    PrefillResult<T> r{Tensor4<T>({B, Hq, N, Dv}), std::vector<T>(B * Hq * N), 0};
    std::size_t start = 0;
    for (std::size_t M : chunk_lengths) {
        Tensor4<T> q_chunk({B, Hq, M, D});
        for (std::size_t b = 0; b < B; ++b) {
            for (std::size_t h = 0; h < Hkv; ++h) {
                std::copy_n(k.row(b, h, start), M * D, key_cache.row(b, h, start));
                std::copy_n(v.row(b, h, start), M * Dv, value_cache.row(b, h, start));
            }
            for (std::size_t h = 0; h < Hq; ++h) std::copy_n(q.row(b, h, start), M * D, q_chunk.row(b, h, 0));
        }
        const PrefillResult<T> c = prefill_attention(q_chunk, key_cache, value_cache, start, options);
        for (std::size_t b = 0; b < B; ++b) {
            for (std::size_t h = 0; h < Hq; ++h) {
                std::copy_n(c.output.row(b, h, 0), M * Dv, r.output.row(b, h, start));
                std::copy_n(&c.lse[(b * Hq + h) * M], M, &r.lse[(b * Hq + h) * N + start]);
            }
        }
        r.key_rows_read += c.key_rows_read;
        start += M;
    }
    return r;
}

template PrefillResult<float> prefill_attention(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&,
                                                std::size_t, const PrefillOptions&);
template PrefillResult<double> prefill_attention(const Tensor4<double>&, const Tensor4<double>&, const Tensor4<double>&,
                                                 std::size_t, const PrefillOptions&);
template PrefillResult<float> chunked_prefill(const Tensor4<float>&, const Tensor4<float>&, const Tensor4<float>&,
                                              const std::vector<std::size_t>&, const PrefillOptions&);
template PrefillResult<double> chunked_prefill(const Tensor4<double>&, const Tensor4<double>&, const Tensor4<double>&,
                                               const std::vector<std::size_t>&, const PrefillOptions&);

}  // namespace attn
