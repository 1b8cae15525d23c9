#include "attn/approx/synthesizer.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/random.hpp"
#include "method_args.hpp"

namespace attn::approx {
namespace {

std::size_t hidden_width(const SynthesizerOptions& o, std::size_t d) {
    if (o.kind != SynthesizerKind::dense && o.kind != SynthesizerKind::random) throw Error("kind: must be dense or random");
    const std::size_t h = o.hidden == 0 ? d : o.hidden;
    detail::require_in_range("hidden", h, 1, 4096);
    return h;
}

}  // namespace

CostCounts synthesizer_cost(std::size_t batch_heads, std::size_t n, std::size_t d, std::size_t dv,
                            const SynthesizerOptions& o) {
    const std::uint64_t h = hidden_width(o, d);
    if (batch_heads == 0 || n == 0 || d == 0 || dv == 0) throw Error("synthesizer_cost: sizes must be >= 1");
    const std::uint64_t N = n, bh = batch_heads, weights = N * N * (2 + 2 * dv);
    if (o.kind == SynthesizerKind::random) return {bh * N * N, bh * weights, 8 * N * N};
    return {bh * N * N, bh * (N * (2 * d * h + h + 2 * h * N) + weights), 8 * (h + N * N)};
}

ApproxResult synthesizer(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                         const SynthesizerOptions& o) {
    const AttentionProblem p = detail::check_qkv(q, k, v, {});
    const std::size_t h = hidden_width(o, p.head_dim), n = p.kv_len, d = p.head_dim, dv = p.value_dim;
    if (p.q_len != n) {
        throw Error("key: the Synthesizer is self-attention, it needs as many keys as queries (" +
                    std::to_string(p.q_len) + "), got " + std::to_string(n));
    }
    detail::require_in_range("seq_len", n, 1, 8192);
    ApproxResult r{Tensor4<double>(p.output_shape()), {}, synthesizer_cost(p.batch * p.q_heads, n, d, dv, o)};

    std::vector<double> w1, w2, weights, hidden(o.kind == SynthesizerKind::dense ? h : 0);
    if (o.kind == SynthesizerKind::dense) {
        w1 = detail::gaussian_matrix(d, h, 1.0 / std::sqrt(static_cast<double>(d)), splitmix64(o.seed ^ 0x51ull));
        w2 = detail::gaussian_matrix(h, n, 1.0 / std::sqrt(static_cast<double>(h)), splitmix64(o.seed ^ 0x52ull));
    }
    std::vector<const double*> v_rows(n);
    for (std::size_t b = 0; b < p.batch; ++b) {
        for (std::size_t hd = 0; hd < p.q_heads; ++hd) {
            if (o.kind == SynthesizerKind::random) {
                weights = detail::gaussian_matrix(n, n, 1.0, splitmix64(o.seed ^ 0x5Eull));  // the same R for every head
            } else {
                weights.assign(n * n, 0.0);
                for (std::size_t i = 0; i < n; ++i) {
                    const double* x = q.row(b, hd, i);
                    for (std::size_t a = 0; a < h; ++a) {
                        double s = 0;
                        for (std::size_t c = 0; c < d; ++c) s += x[c] * w1[c * h + a];
                        hidden[a] = std::max(s, 0.0);  // ReLU
                    }
                    for (std::size_t a = 0; a < h; ++a) {
                        for (std::size_t j = 0; j < n; ++j) weights[i * n + j] += hidden[a] * w2[a * n + j];
                    }
                }
            }
            for (std::size_t j = 0; j < n; ++j) v_rows[j] = v.row(b, hd, j);
            for (std::size_t i = 0; i < n; ++i) {
                detail::softmax_combine(weights.data() + i * n, n, v_rows, dv, r.output.row(b, hd, i));
            }
        }
    }
    r.error = compare_with_dense(r.output, q, k, v, 0.0);
    return r;
}

}  // namespace attn::approx
