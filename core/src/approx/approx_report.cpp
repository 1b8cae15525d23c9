#include "attn/approx/approx_report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/attention/sdpa.hpp"

namespace attn::approx {
namespace {

// Index of the value row nearest (Euclidean) to `out`, among the S rows of one (b, h).
std::size_t nearest_value_row(const Tensor4<double>& v, std::size_t b, std::size_t h, const double* out) {
    std::size_t best = 0;
    double best_dist = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < v.shape.seq; ++j) {
        const double* row = v.row(b, h, j);
        double dist = 0;
        for (std::size_t c = 0; c < v.shape.dim; ++c) dist += (out[c] - row[c]) * (out[c] - row[c]);
        if (dist < best_dist) best_dist = dist, best = j;
    }
    return best;
}

}  // namespace

ErrorVsDense compare_with_dense(const Tensor4<double>& approx_output, const Tensor4<double>& q,
                                const Tensor4<double>& k, const Tensor4<double>& v, double scale) {
    if (!(scale >= 0) || !std::isfinite(scale)) throw Error("scale: must be finite and >= 0 (0 = 1/sqrt(d))");
    SdpaOptions options;
    if (scale > 0) options.scale = scale;
    return compare_with_dense(approx_output, q, k, v, options);
}

ErrorVsDense compare_with_dense(const Tensor4<double>& approx_output, const Tensor4<double>& q,
                                const Tensor4<double>& k, const Tensor4<double>& v, const SdpaOptions& dense_options) {
    if (q.shape.heads != v.shape.heads) {
        throw Error("v: compare_with_dense needs one K/V head per query head, got " +
                    std::to_string(v.shape.heads) + " K/V heads for " + std::to_string(q.shape.heads));
    }
    SdpaOptions options = dense_options;
    options.return_probs = true;
    const SdpaResult<double> dense = sdpa(q, k, v, options);
    const Shape4 expected{q.shape.batch, q.shape.heads, q.shape.seq, v.shape.dim};
    if (approx_output.shape != expected) {
        throw Error("approx_output: expected shape " + expected.str() + ", got " + approx_output.shape.str());
    }

    ErrorVsDense e;
    double diff_sq = 0, ref_sq = 0;
    for (std::size_t n = 0; n < expected.numel(); ++n) {
        const double d = approx_output.data[n] - dense.output.data[n];
        diff_sq += d * d;
        ref_sq += dense.output.data[n] * dense.output.data[n];
        e.max_abs = std::max(e.max_abs, std::abs(d));
    }
    e.relative_frobenius = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);

    const std::size_t rows = expected.batch * expected.heads * expected.seq, keys = k.shape.seq;
    std::size_t preserved = 0;
    for (std::size_t b = 0; b < expected.batch; ++b) {
        for (std::size_t h = 0; h < expected.heads; ++h) {
            for (std::size_t i = 0; i < expected.seq; ++i) {
                const double* p = dense.probs.data() + ((b * expected.heads + h) * expected.seq + i) * keys;
                const auto top = static_cast<std::size_t>(std::max_element(p, p + keys) - p);
                if (nearest_value_row(v, b, h, approx_output.row(b, h, i)) == top) ++preserved;
            }
        }
    }
    e.top1_preserved = static_cast<double>(preserved) / static_cast<double>(rows);
    return e;
}

CostCounts dense_cost(const Shape4& q_shape, const Shape4& k_shape, std::size_t value_dim) {
    const std::uint64_t heads = q_shape.batch * q_shape.heads, l = q_shape.seq, s = k_shape.seq;
    CostCounts c;
    c.score_entries = heads * l * s;
    // QK^T and PV multiply-adds, plus exp and normalisation per score.
    c.flops = heads * l * s * (2 * q_shape.dim + 2 * value_dim + 2);
    c.peak_bytes = heads * l * s * 8;  // the score matrix, materialised
    return c;
}

}  // namespace attn::approx
