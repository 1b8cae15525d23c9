#include "attn/kvcache/gqa_conversion.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/attention/sdpa.hpp"
#include "attn/random.hpp"

namespace attn::kvcache {
namespace {

constexpr std::size_t kMaxSize = std::size_t{1} << 16;

void require_size(const char* name, std::size_t value) {
    if (value < 1 || value > kMaxSize) {
        throw Error(std::string(name) + ": must be in [1, " + std::to_string(kMaxSize) + "], got " +
                    std::to_string(value));
    }
}

void require_matrix(const char* name, const std::vector<double>& m, std::size_t rows, std::size_t cols) {
    if (m.size() != rows * cols) {
        throw Error(std::string(name) + ": expected " + std::to_string(rows) + " x " + std::to_string(cols) + " = " +
                    std::to_string(rows * cols) + " elements, got " + std::to_string(m.size()));
    }
    for (std::size_t n = 0; n < m.size(); ++n) {
        if (!std::isfinite(m[n])) throw Error(std::string(name) + ": element " + std::to_string(n) + " is not finite");
    }
}

// rows x model_dim block of out = x W^T for every (b, s): out[b, h, s, :] = W_h x[b, 0, s, :].
Tensor4<double> project(const std::vector<double>& w, std::size_t heads, std::size_t dim, const Tensor4<double>& x) {
    const std::size_t model_dim = x.shape.dim;
    Tensor4<double> out({x.shape.batch, heads, x.shape.seq, dim});
    for (std::size_t b = 0; b < x.shape.batch; ++b)
        for (std::size_t s = 0; s < x.shape.seq; ++s) {
            const double* xs = x.row(b, 0, s);
            for (std::size_t h = 0; h < heads; ++h)
                for (std::size_t d = 0; d < dim; ++d) {
                    const double* wr = w.data() + (h * dim + d) * model_dim;
                    double acc = 0;
                    for (std::size_t c = 0; c < model_dim; ++c) acc += wr[c] * xs[c];
                    out.at(b, h, s, d) = acc;
                }
        }
    return out;
}

// Mean of each group of `per_group` consecutive head blocks (`head_rows` rows each).
std::vector<double> pool_heads(const std::vector<double>& w, std::size_t heads, std::size_t head_rows,
                               std::size_t model_dim, std::size_t groups) {
    const std::size_t per_group = heads / groups;
    const std::size_t block = head_rows * model_dim;
    std::vector<double> pooled(groups * block, 0.0);
    for (std::size_t g = 0; g < groups; ++g) {
        double* out = pooled.data() + g * block;
        for (std::size_t j = 0; j < per_group; ++j) {
            const double* in = w.data() + (g * per_group + j) * block;
            for (std::size_t n = 0; n < block; ++n) out[n] += in[n];
        }
        for (std::size_t n = 0; n < block; ++n) out[n] /= static_cast<double>(per_group);
    }
    return pooled;
}

}  // namespace

void validate_projections(const AttentionProjections& p) {
    require_size("model_dim", p.model_dim);
    require_size("q_heads", p.q_heads);
    require_size("kv_heads", p.kv_heads);
    require_size("head_dim", p.head_dim);
    require_size("value_dim", p.value_dim);
    if (p.kv_heads > p.q_heads || p.q_heads % p.kv_heads != 0) {
        throw Error("kv_heads: must divide q_heads (" + std::to_string(p.q_heads) + "), got " +
                    std::to_string(p.kv_heads));
    }
    require_matrix("w_q", p.w_q, p.q_heads * p.head_dim, p.model_dim);
    require_matrix("w_k", p.w_k, p.kv_heads * p.head_dim, p.model_dim);
    require_matrix("w_v", p.w_v, p.kv_heads * p.value_dim, p.model_dim);
}

AttentionProjections random_mha_projections(std::size_t model_dim, std::size_t heads, std::size_t head_dim,
                                            std::size_t value_dim, std::uint64_t seed) {
    require_size("model_dim", model_dim);
    require_size("heads", heads);
    require_size("head_dim", head_dim);
    require_size("value_dim", value_dim);
    // Variance 1/model_dim keeps projected entries O(1) for unit inputs (scores neither vanish
    // nor saturate the softmax).
    const double stddev = 1.0 / std::sqrt(static_cast<double>(model_dim));
    const auto matrix = [&](std::size_t rows, std::uint64_t s) {
        return random_normal({1, 1, rows, model_dim}, s, stddev).data;
    };
    return {model_dim,
            heads,
            heads,
            head_dim,
            value_dim,
            matrix(heads * head_dim, seed),
            matrix(heads * head_dim, splitmix64(seed + 1)),
            matrix(heads * value_dim, splitmix64(seed + 2))};
}

AttentionProjections mean_pool_kv_heads(const AttentionProjections& mha, std::size_t groups) {
    validate_projections(mha);
    if (mha.kv_heads != mha.q_heads) {
        throw Error("mha: the checkpoint must be multi-head (kv_heads == q_heads == " + std::to_string(mha.q_heads) +
                    "), got kv_heads " + std::to_string(mha.kv_heads));
    }
    if (groups < 1 || groups > mha.q_heads || mha.q_heads % groups != 0) {
        throw Error("groups: must be in [1, " + std::to_string(mha.q_heads) + "] and divide q_heads (" +
                    std::to_string(mha.q_heads) + "), got " + std::to_string(groups));
    }
    AttentionProjections r = mha;
    r.kv_heads = groups;
    r.w_k = pool_heads(mha.w_k, mha.q_heads, mha.head_dim, mha.model_dim, groups);
    r.w_v = pool_heads(mha.w_v, mha.q_heads, mha.value_dim, mha.model_dim, groups);
    return r;
}

ProjectedQkv project_qkv(const AttentionProjections& p, const Tensor4<double>& x) {
    validate_projections(p);
    if (x.shape.heads != 1 || x.shape.dim != p.model_dim || x.shape.batch == 0 || x.shape.seq == 0 ||
        x.data.size() != x.shape.numel()) {
        throw Error("x: expected shape [B >= 1, 1, S >= 1, " + std::to_string(p.model_dim) + "], got " +
                    x.shape.str());
    }
    for (std::size_t n = 0; n < x.data.size(); ++n) {
        if (!std::isfinite(x.data[n])) throw Error("x: element " + std::to_string(n) + " is not finite");
    }
    return {project(p.w_q, p.q_heads, p.head_dim, x), project(p.w_k, p.kv_heads, p.head_dim, x),
            project(p.w_v, p.kv_heads, p.value_dim, x)};
}

AttentionProjections similar_head_projections(std::size_t model_dim, std::size_t heads, std::size_t head_dim,
                                              std::size_t value_dim, double similarity, std::uint64_t seed) {
    if (!(similarity >= 0.0 && similarity <= 1.0)) {
        throw Error("similarity: must be in [0, 1], got " + std::to_string(similarity));
    }
    AttentionProjections p = random_mha_projections(model_dim, heads, head_dim, value_dim, seed);
    const AttentionProjections shared = random_mha_projections(model_dim, 1, head_dim, value_dim, splitmix64(seed + 7));
    const double own = std::sqrt(1.0 - similarity * similarity);
    // Every head's block of rows mixes the one shared block in.
    const auto mix = [&](std::vector<double>& w, const std::vector<double>& block) {
        for (std::size_t n = 0; n < w.size(); ++n) w[n] = similarity * block[n % block.size()] + own * w[n];
    };
    mix(p.w_k, shared.w_k);
    mix(p.w_v, shared.w_v);
    return p;
}

std::vector<GqaConversionEffect> gqa_conversion_effects(const AttentionProjections& mha, const Tensor4<double>& x) {
    const ProjectedQkv original = project_qkv(mha, x);
    const Tensor4<double> reference = sdpa(original.q, original.k, original.v).output;
    double norm = 0;
    for (double e : reference.data) norm += e * e;
    std::vector<GqaConversionEffect> effects;
    for (std::size_t groups = mha.q_heads; groups >= 1; --groups) {
        if (mha.q_heads % groups != 0) continue;
        const ProjectedQkv pooled = project_qkv(mean_pool_kv_heads(mha, groups), x);
        const Tensor4<double> out = sdpa(pooled.q, pooled.k, pooled.v).output;
        double diff = 0;
        for (std::size_t n = 0; n < out.data.size(); ++n) diff += (out.data[n] - reference.data[n]) * (out.data[n] - reference.data[n]);
        effects.push_back({groups, norm > 0 ? std::sqrt(diff / norm) : 0.0});
    }
    return effects;
}

}  // namespace attn::kvcache
