#include "attn/classic/scoring.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"

namespace attn::classic {
namespace {

constexpr std::size_t kMaxDim = std::size_t{1} << 20;

double dot(const double* a, const double* b, std::size_t n) {
    double s = 0;
    for (std::size_t x = 0; x < n; ++x) s += a[x] * b[x];
    return s;
}

// y = M x for M [rows, cols].
std::vector<double> mat_vec(const Matrix& m, const double* x) {
    std::vector<double> y(m.rows);
    for (std::size_t r = 0; r < m.rows; ++r) y[r] = dot(m.row(r), x, m.cols);
    return y;
}

void check_queries_keys(const Matrix& queries, const Matrix& keys) {
    require_nonempty_finite(queries, "queries");
    require_nonempty_finite(keys, "keys");
}

void check_same_width(const Matrix& queries, const Matrix& keys) {
    if (queries.cols != keys.cols) {
        throw Error("keys: dot-product scores need queries and keys of the same width, got query_dim " +
                    std::to_string(queries.cols) + " and key_dim " + std::to_string(keys.cols) +
                    " (use general or additive scores for different widths)");
    }
}

void check_dim(std::size_t d, const char* name) {
    if (d < 1 || d > kMaxDim) {
        throw Error(std::string(name) + ": must be in [1, " + std::to_string(kMaxDim) + "], got " + std::to_string(d));
    }
}

}  // namespace

Matrix dot_scores(const Matrix& queries, const Matrix& keys) {
    check_queries_keys(queries, keys);
    check_same_width(queries, keys);
    Matrix scores(queries.rows, keys.rows);
    for (std::size_t i = 0; i < queries.rows; ++i) {
        for (std::size_t j = 0; j < keys.rows; ++j) scores.at(i, j) = dot(queries.row(i), keys.row(j), keys.cols);
    }
    return scores;
}

Matrix scaled_dot_scores(const Matrix& queries, const Matrix& keys) {
    check_queries_keys(queries, keys);
    check_same_width(queries, keys);
    // 1/sqrt(d) folded into each query once (d multiplies per query, none per pair).
    Matrix scaled = queries;
    const double scale = 1.0 / std::sqrt(static_cast<double>(keys.cols));
    for (double& x : scaled.data) x *= scale;
    return dot_scores(scaled, keys);
}

Matrix general_scores(const Matrix& queries, const Matrix& keys, const Matrix& w) {
    check_queries_keys(queries, keys);
    require_nonempty_finite(w, "w");
    if (w.rows != queries.cols || w.cols != keys.cols) {
        throw Error("w: must be [query_dim, key_dim] = [" + std::to_string(queries.cols) + ", " +
                    std::to_string(keys.cols) + "], got [" + std::to_string(w.rows) + ", " + std::to_string(w.cols) +
                    "]");
    }
    // W h_j once per key, then one length-query_dim dot product per pair.
    Matrix projected_keys(keys.rows, queries.cols);
    for (std::size_t j = 0; j < keys.rows; ++j) {
        const std::vector<double> wh = mat_vec(w, keys.row(j));
        std::copy(wh.begin(), wh.end(), projected_keys.row(j));
    }
    return dot_scores(queries, projected_keys);
}

Matrix additive_scores(const Matrix& queries, const Matrix& keys, const AdditiveParams& params) {
    check_queries_keys(queries, keys);
    require_nonempty_finite(params.w, "w");
    require_nonempty_finite(params.u, "u");
    const std::size_t d_a = params.v.size();
    if (d_a == 0) throw Error("v: must hold attention_dim >= 1 values, got 0");
    for (double x : params.v) {
        if (!std::isfinite(x)) throw Error("v: every value must be finite");
    }
    if (params.w.rows != d_a || params.w.cols != queries.cols) {
        throw Error("w: must be [attention_dim, query_dim] = [" + std::to_string(d_a) + ", " +
                    std::to_string(queries.cols) + "], got [" + std::to_string(params.w.rows) + ", " +
                    std::to_string(params.w.cols) + "]");
    }
    if (params.u.rows != d_a || params.u.cols != keys.cols) {
        throw Error("u: must be [attention_dim, key_dim] = [" + std::to_string(d_a) + ", " + std::to_string(keys.cols) +
                    "], got [" + std::to_string(params.u.rows) + ", " + std::to_string(params.u.cols) + "]");
    }
    // Bahdanau App. A.1.2: U_a h_j does not depend on the decoder step, so it is computed once per
    // key; W_a s_i once per query.
    std::vector<std::vector<double>> uh(keys.rows);
    for (std::size_t j = 0; j < keys.rows; ++j) uh[j] = mat_vec(params.u, keys.row(j));
    Matrix scores(queries.rows, keys.rows);
    for (std::size_t i = 0; i < queries.rows; ++i) {
        const std::vector<double> ws = mat_vec(params.w, queries.row(i));
        for (std::size_t j = 0; j < keys.rows; ++j) {
            double e = 0;
            for (std::size_t a = 0; a < d_a; ++a) e += params.v[a] * std::tanh(ws[a] + uh[j][a]);
            scores.at(i, j) = e;
        }
    }
    return scores;
}

ScoreFlops score_flops(ScoreKind kind, const ScoreDims& dims, bool reuse) {
    check_dim(dims.query_dim, "query_dim");
    check_dim(dims.key_dim, "key_dim");
    const std::uint64_t ds = dims.query_dim, dh = dims.key_dim;
    switch (kind) {
        case ScoreKind::dot:
        case ScoreKind::scaled_dot: {
            if (ds != dh) {
                throw Error("key_dim: dot-product scores need query_dim == key_dim, got " + std::to_string(ds) +
                            " and " + std::to_string(dh));
            }
            const std::uint64_t d = ds;
            if (kind == ScoreKind::dot) return {2 * d - 1, 0, 0};
            return reuse ? ScoreFlops{2 * d - 1, d, 0} : ScoreFlops{2 * d, 0, 0};
        }
        case ScoreKind::general:
            return reuse ? ScoreFlops{2 * ds - 1, 0, ds * (2 * dh - 1)} : ScoreFlops{2 * ds * dh + ds - 1, 0, 0};
        case ScoreKind::additive: {
            check_dim(dims.attention_dim, "attention_dim");
            const std::uint64_t da = dims.attention_dim;
            return reuse ? ScoreFlops{4 * da - 1, da * (2 * ds - 1), da * (2 * dh - 1)}
                         : ScoreFlops{da * (2 * ds + 2 * dh + 2) - 1, 0, 0};
        }
    }
    throw Error("kind: must be additive, dot, general or scaled_dot");
}

}  // namespace attn::classic
