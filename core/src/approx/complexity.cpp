#include "attn/approx/complexity.hpp"

#include <algorithm>
#include <cmath>

#include "attn/approx/approx_report.hpp"
#include "attn/approx/lsh_attention.hpp"
#include "attn/approx/performer.hpp"
#include "attn/approx/sparse_patterns.hpp"
#include "attn/cost/gpu_presets.hpp"

namespace attn::approx {
namespace {

void require_range(const char* name, std::size_t value, std::size_t lo, std::size_t hi) {
    if (value < lo || value > hi) {
        throw Error(std::string(name) + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                    std::to_string(value));
    }
}

// ceil(log2 n) for n >= 1, exactly (no floating point).
std::uint64_t ceil_log2(std::uint64_t n) {
    std::uint64_t bits = 0;
    while ((std::uint64_t{1} << bits) < n) ++bits;
    return bits;
}

// The implementations count memory in 8-byte elements; the curves show it at another width.
std::uint64_t rescale_bytes(std::uint64_t bytes_at_8, std::size_t bytes_per_element) {
    return bytes_at_8 / 8 * bytes_per_element;
}

ComplexityPoint from_cost(std::size_t n, const CostCounts& c, std::size_t bytes_per_element) {
    return {n, c.score_entries, c.flops, 0, rescale_bytes(c.peak_bytes, bytes_per_element)};
}

const char* method_name(ComplexityMethod m) {
    switch (m) {
        case ComplexityMethod::dense: return "dense";
        case ComplexityMethod::sparse: return "sparse";
        case ComplexityMethod::lsh: return "lsh";
        case ComplexityMethod::linformer: return "linformer";
        case ComplexityMethod::performer: return "performer";
        case ComplexityMethod::flash: return "flash";
    }
    throw Error("method: not a ComplexityMethod value");
}

const char* method_big_o(ComplexityMethod m) {
    switch (m) {
        case ComplexityMethod::dense: return "N^2";
        case ComplexityMethod::sparse: return "N sqrt N";
        case ComplexityMethod::lsh: return "N log N";
        case ComplexityMethod::linformer:
        case ComplexityMethod::performer: return "N";
        case ComplexityMethod::flash: return "N^2 FLOPs, N memory";
    }
    throw Error("method: not a ComplexityMethod value");
}

}  // namespace

void validate_complexity_params(const ComplexityParams& p) {
    require_range("head_dim", p.head_dim, 1, 4096);
    require_range("value_dim", p.value_dim, 1, 4096);
    require_range("bytes_per_element", p.bytes_per_element, 1, 8);
    if (p.lsh_buckets != 1 && (p.lsh_buckets < 2 || p.lsh_buckets > 4096 || p.lsh_buckets % 2 != 0)) {
        throw Error("lsh_buckets: must be 1 or an even number in [2, 4096], got " + std::to_string(p.lsh_buckets));
    }
    require_range("lsh_rounds", p.lsh_rounds, 1, 64);
    require_range("lsh_chunk", p.lsh_chunk, 1, kMaxPatternLength);
    require_range("linformer_k", p.linformer_k, 1, std::size_t{1} << 20);
    require_range("performer_features", p.performer_features, 1, 65536);
    require_range("flash_block_q", p.flash_block_q, 1, 4096);
    require_range("flash_block_k", p.flash_block_k, 1, 4096);
}

ComplexityPoint complexity_point(ComplexityMethod method, std::size_t n, const ComplexityParams& p) {
    validate_complexity_params(p);
    require_range("seq_len", n, 1, kMaxPatternLength);
    const std::size_t d = p.head_dim, dv = p.value_dim;
    switch (method) {
        case ComplexityMethod::dense:
            return from_cost(n, dense_cost({1, 1, n, d}, {1, 1, n, d}, dv), p.bytes_per_element);
        case ComplexityMethod::sparse: {
            const auto stride = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
            const PatternStats s = pattern_stats(strided_pattern(stride), n, d, dv, p.bytes_per_element);
            return {n, s.entries, s.flops, 0, s.score_bytes};
        }
        case ComplexityMethod::lsh: {
            LshOptions o;
            o.num_buckets = p.lsh_buckets;
            o.num_rounds = p.lsh_rounds;
            o.chunk_length = p.lsh_chunk;
            ComplexityPoint point = from_cost(n, lsh_attention_cost(1, n, d, dv, o), p.bytes_per_element);
            // Sorting N positions by bucket, once per round: a comparison sort needs about
            // N log2 N comparisons -- the log in Reformer's O(N log N).
            point.sort_comparisons = static_cast<std::uint64_t>(p.lsh_rounds) * n * ceil_log2(n);
            return point;
        }
        case ComplexityMethod::linformer: {
            // linformer_cost()'s formula (see linformer.hpp) with L = N queries.
            const std::uint64_t k = p.linformer_k, entries = std::uint64_t{n} * k;
            const std::uint64_t flops = 2 * k * n * d + 2 * k * n * dv + entries * (2 * d + 2 * dv + 2);
            return {n, entries, flops, 0, (k * d + k * dv + entries) * p.bytes_per_element};
        }
        case ComplexityMethod::performer:
            return from_cost(n, performer_cost(1, n, n, d, dv, p.performer_features), p.bytes_per_element);
        case ComplexityMethod::flash: {
            // Exact: dense attention's scores and FLOPs. Kept beyond inputs and output: m and l per
            // row, and the one Br x Bc tile of scores being worked on (on chip, never in HBM).
            const CostCounts dense = dense_cost({1, 1, n, d}, {1, 1, n, d}, dv);
            const std::uint64_t tile = std::uint64_t{std::min(p.flash_block_q, n)} * std::min(p.flash_block_k, n);
            return {n, dense.score_entries, dense.flops, 0, (2 * std::uint64_t{n} + tile) * p.bytes_per_element};
        }
    }
    throw Error("method: not a ComplexityMethod value");
}

std::vector<ComplexityCurve> complexity_curves(std::size_t n_min, std::size_t n_max, std::size_t points,
                                               const ComplexityParams& p) {
    validate_complexity_params(p);
    require_range("n_max", n_max, 1, kMaxPatternLength);
    require_range("n_min", n_min, 1, n_max);
    require_range("points", points, 2, 512);
    std::vector<std::size_t> lengths;
    const double lo = std::log(static_cast<double>(n_min)), hi = std::log(static_cast<double>(n_max));
    for (std::size_t s = 0; s < points; ++s) {
        const double t = static_cast<double>(s) / static_cast<double>(points - 1);
        auto n = static_cast<std::size_t>(std::llround(std::exp(lo + t * (hi - lo))));
        n = std::clamp(n, n_min, n_max);
        if (s == points - 1) n = n_max;  // exactly the end point, whatever exp/log rounding did
        if (lengths.empty() || n > lengths.back()) lengths.push_back(n);
    }
    std::vector<ComplexityCurve> curves;
    for (ComplexityMethod m : {ComplexityMethod::dense, ComplexityMethod::sparse, ComplexityMethod::lsh,
                               ComplexityMethod::linformer, ComplexityMethod::performer, ComplexityMethod::flash}) {
        ComplexityCurve c{m, method_name(m), method_big_o(m), {}};
        for (std::size_t n : lengths) c.points.push_back(complexity_point(m, n, p));
        curves.push_back(std::move(c));
    }
    return curves;
}

const std::vector<TimelineMarker>& timeline_markers() {
    // The plan listed "2017 GPT-2 (N=1024)": GPT-2 is from 2019; its context is 1024 tokens.
    static const std::vector<TimelineMarker> markers{
        {"GPT-2", 2019, 1024,
         "Radford et al., \"Language Models are Unsupervised Multitask Learners\" (OpenAI, Feb. 2019), Sec. 2.3: "
         "context size increased from 512 to 1024 tokens"},
        {"Longformer", 2020, 4096,
         "Beltagy, Peters & Cohan, arXiv:2004.05150 (Apr. 2020); model card allenai/longformer-base-4096: "
         "\"supports sequences of length up to 4,096\""},
        {"Gemini 1.5 Pro", 2024, 1000000,
         "Google, Gemini 1.5 announcement and technical report arXiv:2403.05530 (Feb. 2024): context window of up "
         "to 1 million tokens in preview (research tests up to 10M; 2M offered from mid-2024)"},
    };
    return markers;
}

MemoryReference a100_memory_reference() {
    const cost::GpuPreset& a100 = cost::gpu_preset("a100-sxm-80gb");
    return {"80 GB: one A100", static_cast<std::uint64_t>(a100.hbm_bytes.value), std::string(a100.hbm_bytes.source)};
}

}  // namespace attn::approx
