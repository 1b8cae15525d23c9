#include "attn/approx/sparse_patterns.hpp"

#include <string>

#include "attn/attention/sdpa.hpp"
#include "sparse_geometry.hpp"

namespace attn::approx {
namespace {

std::string str(std::size_t n) { return std::to_string(n); }

void require_range(const char* name, std::size_t value, std::size_t lo, std::size_t hi) {
    if (value < lo || value > hi) {
        throw Error(std::string(name) + ": must be in [" + str(lo) + ", " + str(hi) + "], got " + str(value));
    }
}

// The membership rule of each kind, written as the papers define it (see the header). The masks
// are built from these predicates, independently of the closed-form counts they are tested against.
bool allowed_cell(const SparsePattern& p, std::size_t i, std::size_t j) {
    switch (p.kind) {
        case PatternKind::dense:
            return true;
        case PatternKind::causal:
            return j <= i;
        case PatternKind::strided:
            return j <= i && (i - j <= p.stride || (i - j) % p.stride == 0);
        case PatternKind::fixed:
            return j <= i && (j / p.stride == i / p.stride || j % p.stride >= p.stride - p.summary);
        case PatternKind::longformer: {
            if (i < p.global || j < p.global) return true;
            const std::size_t gap = i > j ? i - j : j - i;
            return gap % p.dilation == 0 && gap / p.dilation <= p.one_sided_window;
        }
        case PatternKind::bigbird:
            break;
    }
    return false;  // BigBird masks are filled from its key intervals
}

}  // namespace

SparsePattern dense_pattern() { return {}; }

SparsePattern causal_pattern() {
    SparsePattern p;
    p.kind = PatternKind::causal;
    return p;
}

SparsePattern strided_pattern(std::size_t stride) {
    SparsePattern p;
    p.kind = PatternKind::strided;
    p.stride = stride;
    return p;
}

SparsePattern fixed_pattern(std::size_t stride, std::size_t summary) {
    SparsePattern p;
    p.kind = PatternKind::fixed;
    p.stride = stride;
    p.summary = summary;
    return p;
}

SparsePattern longformer_pattern(std::size_t one_sided_window, std::size_t global_tokens, std::size_t dilation) {
    SparsePattern p;
    p.kind = PatternKind::longformer;
    p.one_sided_window = one_sided_window;
    p.global = global_tokens;
    p.dilation = dilation;
    return p;
}

SparsePattern bigbird_pattern(std::size_t block, std::size_t one_sided_window_blocks, std::size_t global_blocks,
                              std::size_t random_blocks, std::uint64_t seed) {
    SparsePattern p;
    p.kind = PatternKind::bigbird;
    p.block = block;
    p.one_sided_window = one_sided_window_blocks;
    p.global = global_blocks;
    p.random_blocks = random_blocks;
    p.seed = seed;
    return p;
}

void validate_pattern(const SparsePattern& p, std::size_t seq_len) {
    require_range("seq_len", seq_len, 1, kMaxPatternLength);
    switch (p.kind) {
        case PatternKind::dense:
        case PatternKind::causal:
            return;
        case PatternKind::strided:
            require_range("stride", p.stride, 1, kMaxPatternLength);
            return;
        case PatternKind::fixed:
            require_range("stride", p.stride, 1, kMaxPatternLength);
            require_range("summary", p.summary, 1, p.stride);
            return;
        case PatternKind::longformer:
            require_range("one_sided_window", p.one_sided_window, 0, kMaxPatternLength);
            require_range("dilation", p.dilation, 1, kMaxPatternLength);
            require_range("global", p.global, 0, kMaxPatternLength);
            return;
        case PatternKind::bigbird:
            require_range("block", p.block, 1, kMaxPatternLength);
            require_range("one_sided_window", p.one_sided_window, 0, kMaxPatternLength);
            require_range("global", p.global, 0, kMaxPatternLength);
            require_range("random_blocks", p.random_blocks, 0, 64);
            return;
    }
    throw Error("kind: not a PatternKind value");
}

bool pattern_is_causal(const SparsePattern& p) {
    return p.kind == PatternKind::causal || p.kind == PatternKind::strided || p.kind == PatternKind::fixed;
}

std::vector<std::uint8_t> pattern_mask(const SparsePattern& p, std::size_t n) {
    validate_pattern(p, n);
    require_range("seq_len", n, 1, kMaxMaskLength);
    std::vector<std::uint8_t> mask(n * n, 0);
    if (p.kind == PatternKind::bigbird) {
        for (std::size_t row_block = 0; row_block * p.block < n; ++row_block) {
            const auto intervals = detail::bigbird_key_intervals(p, n, row_block);
            for (std::size_t i = row_block * p.block; i < std::min(n, (row_block + 1) * p.block); ++i) {
                for (auto [first, end] : intervals) {
                    for (std::size_t j = first; j < end; ++j) mask[i * n + j] = 1;
                }
            }
        }
        return mask;
    }
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) mask[i * n + j] = allowed_cell(p, i, j);
    }
    return mask;
}

PatternStats pattern_stats(const SparsePattern& p, std::size_t n, std::size_t head_dim, std::size_t value_dim,
                           std::size_t bytes_per_score) {
    validate_pattern(p, n);
    require_range("head_dim", head_dim, 1, 1 << 16);
    require_range("value_dim", value_dim, 1, 1 << 16);
    require_range("bytes_per_score", bytes_per_score, 1, 16);
    PatternStats s;
    if (p.kind == PatternKind::bigbird) {
        for (std::size_t row_block = 0; row_block * p.block < n; ++row_block) {
            const std::uint64_t rows = std::min(n, (row_block + 1) * p.block) - row_block * p.block;
            for (auto [first, end] : detail::bigbird_key_intervals(p, n, row_block)) s.entries += rows * (end - first);
        }
    } else {
        const auto len = static_cast<detail::i64>(n);
        s.entries = detail::count_rect(p, n, {0, len, 0, len});
    }
    s.flops = s.entries * (2 * head_dim + 2 * value_dim + 2);
    s.score_bytes = s.entries * bytes_per_score;
    s.density = static_cast<double>(s.entries) / (static_cast<double>(n) * static_cast<double>(n));
    return s;
}

ApproxResult sparse_attention(const Tensor4<double>& q, const Tensor4<double>& k, const Tensor4<double>& v,
                              const SparsePattern& pattern) {
    const std::size_t n = q.shape.seq;
    if (k.shape.seq != n) {
        throw Error("key: sparse patterns are self-attention, so its length must equal the query's (" + str(n) +
                    "), got " + str(k.shape.seq));
    }
    if (k.shape.heads != q.shape.heads) {
        throw Error("key: needs one K/V head per query head (" + str(q.shape.heads) + "), got " + str(k.shape.heads));
    }
    require_range("seq_len", n, 1, kMaxMaskLength);
    SdpaOptions options;
    options.mask = AttentionMask::boolean({1, 1, n, n}, pattern_mask(pattern, n));

    ApproxResult r;
    r.output = sdpa(q, k, v, options).output;
    SdpaOptions reference;  // dense attention with the pattern's causality, default scale
    reference.causal = pattern_is_causal(pattern) ? Causal::top_left : Causal::none;
    r.error = compare_with_dense(r.output, q, k, v, reference);
    const PatternStats s = pattern_stats(pattern, n, q.shape.dim, v.shape.dim, 8);
    const std::uint64_t heads = q.shape.batch * q.shape.heads;
    r.cost.score_entries = s.entries * heads;
    r.cost.flops = s.flops * heads;
    r.cost.peak_bytes = s.score_bytes * heads;  // the allowed scores, as dense_cost counts the full matrix
    return r;
}

}  // namespace attn::approx
