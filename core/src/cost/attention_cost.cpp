#include "attn/cost/attention_cost.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"

namespace attn::cost {
namespace {

constexpr std::size_t kMaxBatch = 65536;
constexpr std::size_t kMaxHeads = 4096;
constexpr std::size_t kMaxSeq = std::size_t{1} << 24;
constexpr std::size_t kMaxDim = 1024;
constexpr std::size_t kMaxLayers = 1024;
constexpr double kStatBytes = 4;  // FlashAttention's m, l (or log-sum-exp) are fp32

void require_range(const char* name, std::size_t value, std::size_t lo, std::size_t hi) {
    if (value < lo || value > hi) {
        throw Error(std::string(name) + ": must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "], got " + std::to_string(value));
    }
}

void require_element_bytes(std::size_t element_bytes) {
    if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4 && element_bytes != 8) {
        throw Error("element_bytes: must be 1, 2, 4 or 8, got " + std::to_string(element_bytes));
    }
}

void require_blocks(const FlashBlocks& b) {
    require_range("block_q", b.block_q, 1, kMaxSeq);
    require_range("block_k", b.block_k, 1, kMaxSeq);
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Sum of clamp(t, 0, cap) over the integers t in [lo, hi].
std::int64_t clamped_sum(std::int64_t lo, std::int64_t hi, std::int64_t cap) {
    std::int64_t sum = 0;
    const std::int64_t a = std::max<std::int64_t>(lo, 1), b = std::min(hi, cap);
    if (a <= b) sum += (a + b) * (b - a + 1) / 2;
    const std::int64_t c = std::max(lo, cap + 1);
    if (c <= hi) sum += cap * (hi - c + 1);
    return sum;
}

double heads_total(const AttentionShape& s) { return static_cast<double>(s.batch) * static_cast<double>(s.heads); }

}  // namespace

void validate(const AttentionShape& s) {
    require_range("batch", s.batch, 1, kMaxBatch);
    require_range("heads", s.heads, 1, kMaxHeads);
    require_range("q_len", s.q_len, 1, kMaxSeq);
    require_range("kv_len", s.kv_len, 1, kMaxSeq);
    require_range("head_dim", s.head_dim, 1, kMaxDim);
    require_range("value_dim", s.value_dim, 1, kMaxDim);
    if (s.causal != Causal::none && s.causal != Causal::top_left && s.causal != Causal::bottom_right) {
        throw Error("causal: must be none, top_left or bottom_right");
    }
}

std::uint64_t attended_pairs(std::size_t q_len, std::size_t kv_len, Causal causal) {
    require_range("q_len", q_len, 1, kMaxSeq);
    require_range("kv_len", kv_len, 1, kMaxSeq);
    const auto L = static_cast<std::int64_t>(q_len), S = static_cast<std::int64_t>(kv_len);
    if (causal == Causal::none) return static_cast<std::uint64_t>(L * S);
    // Row i sees clamp(i + 1 + shift, 0, S) keys: shift 0 for top-left, S - L for bottom-right
    // (causal.hpp), so the row counts are consecutive integers clamped to [0, S].
    const std::int64_t shift = causal == Causal::bottom_right ? S - L : 0;
    return static_cast<std::uint64_t>(clamped_sum(1 + shift, L + shift, S));
}

double benchmark_flops(std::size_t batch, std::size_t heads, std::size_t seq_len, std::size_t head_dim, bool causal,
                       Pass pass) {
    require_range("batch", batch, 1, kMaxBatch);
    require_range("heads", heads, 1, kMaxHeads);
    require_range("seq_len", seq_len, 1, kMaxSeq);
    require_range("head_dim", head_dim, 1, kMaxDim);
    const double n = static_cast<double>(seq_len);
    const double forward = 4.0 * static_cast<double>(batch) * static_cast<double>(heads) * n * n *
                           static_cast<double>(head_dim) / (causal ? 2.0 : 1.0);
    switch (pass) {
        case Pass::forward: return forward;
        case Pass::backward: return 2.5 * forward;
        case Pass::forward_backward: return 3.5 * forward;
    }
    throw Error("pass: unknown enumerator " + std::to_string(static_cast<int>(pass)));
}

double attention_flops(const AttentionShape& s, Pass pass) {
    validate(s);
    const double pairs = static_cast<double>(attended_pairs(s.q_len, s.kv_len, s.causal)) * heads_total(s);
    const double d = static_cast<double>(s.head_dim), dv = static_cast<double>(s.value_dim);
    const double forward = 2.0 * pairs * (d + dv);
    const double backward = 2.0 * pairs * (3.0 * d + 2.0 * dv);
    switch (pass) {
        case Pass::forward: return forward;
        case Pass::backward: return backward;
        case Pass::forward_backward: return forward + backward;
    }
    throw Error("pass: unknown enumerator " + std::to_string(static_cast<int>(pass)));
}

HbmTraffic standard_attention_io(const AttentionShape& s, Pass pass, std::size_t element_bytes,
                                 std::size_t block_q) {
    validate(s);
    require_element_bytes(element_bytes);
    require_range("block_q", block_q, 1, kMaxSeq);
    const double L = static_cast<double>(s.q_len), S = static_cast<double>(s.kv_len);
    const double d = static_cast<double>(s.head_dim), dv = static_cast<double>(s.value_dim);
    const double LS = L * S;
    const double q_blocks = static_cast<double>(ceil_div(s.q_len, block_q));  // K and V reads
    // Per head, in elements (Algorithm 0 and Algorithm 3 of the FlashAttention paper).
    HbmTraffic forward{L * d + q_blocks * S * (d + dv) + 2 * LS, 2 * LS + L * dv};
    HbmTraffic backward{5 * LS + 2 * L * dv + S * dv + S * d + L * d, 2 * LS + S * dv + L * d + S * d};
    HbmTraffic t;
    if (pass != Pass::backward) t = forward;
    if (pass != Pass::forward) {
        t.bytes_read += backward.bytes_read;
        t.bytes_written += backward.bytes_written;
    }
    const double scale = heads_total(s) * static_cast<double>(element_bytes);
    return {t.bytes_read * scale, t.bytes_written * scale};
}

FlashBlocks fa1_block_sizes(std::size_t sram_elements, std::size_t head_dim, std::size_t value_dim) {
    if (sram_elements < 1) throw Error("sram_elements: must be >= 1 (the SRAM size M in elements), got 0");
    require_range("head_dim", head_dim, 1, kMaxDim);
    require_range("value_dim", value_dim, 1, kMaxDim);
    const std::size_t d = std::max(head_dim, value_dim);
    const std::size_t block_k = ceil_div(sram_elements, 4 * d);
    return {std::min(block_k, d), block_k};
}

TileCounts tile_counts(std::size_t q_len, std::size_t kv_len, Causal causal, FlashBlocks blocks) {
    require_range("q_len", q_len, 1, kMaxSeq);
    require_range("kv_len", kv_len, 1, kMaxSeq);
    require_blocks(blocks);
    const std::size_t br = blocks.block_q, bc = blocks.block_k;
    const std::size_t row_blocks = ceil_div(q_len, br), col_blocks = ceil_div(kv_len, bc);
    TileCounts t;
    std::size_t widest = 0;  // keys covered by the row block that sees the most
    for (std::size_t i = 0; i < row_blocks; ++i) {
        const std::size_t row0 = i * br, rows = std::min(br, q_len - row0);
        // Causal ends grow with the row: the block's last row bounds every key it can see.
        const std::size_t key_limit = causal_key_end(row0 + rows - 1, q_len, kv_len, causal);
        const std::size_t computed = ceil_div(key_limit, bc);
        const std::size_t cols = std::min(computed * bc, kv_len);
        t.tiles_computed += computed;
        t.tiles_skipped += col_blocks - computed;
        t.score_entries += static_cast<double>(rows) * static_cast<double>(cols);
        t.row_visits += static_cast<double>(rows) * static_cast<double>(computed);
        t.col_visits += static_cast<double>(cols);
        widest = std::max(widest, cols);
    }
    t.kv_rows_loaded = static_cast<double>(widest);
    return t;
}

HbmTraffic flash_attention_io(const AttentionShape& s, Pass pass, std::size_t element_bytes, FlashBlocks blocks) {
    validate(s);
    require_element_bytes(element_bytes);
    const TileCounts t = tile_counts(s.q_len, s.kv_len, s.causal, blocks);
    const double eb = static_cast<double>(element_bytes);
    const double L = static_cast<double>(s.q_len), S = static_cast<double>(s.kv_len);
    const double d = static_cast<double>(s.head_dim), dv = static_cast<double>(s.value_dim);
    // Per head, in bytes; line numbers of Algorithm 1 (forward) and Algorithm 4 (backward).
    const HbmTraffic forward{
        eb * (t.kv_rows_loaded * (d + dv) + t.row_visits * (d + dv)) + kStatBytes * 2 * t.row_visits,
        eb * (L * dv + t.row_visits * dv) + kStatBytes * (2 * L + 2 * t.row_visits)};
    const HbmTraffic backward{
        eb * (t.kv_rows_loaded * (d + dv) + t.row_visits * (2 * d + 2 * dv)) + kStatBytes * 2 * t.row_visits,
        eb * (L * d + S * (d + dv) + t.row_visits * d + t.kv_rows_loaded * (d + dv))};
    HbmTraffic total;
    if (pass != Pass::backward) total = forward;
    if (pass != Pass::forward) {
        total.bytes_read += backward.bytes_read;
        total.bytes_written += backward.bytes_written;
    }
    return {total.bytes_read * heads_total(s), total.bytes_written * heads_total(s)};
}

HbmTraffic flash2_forward_io(const AttentionShape& s, std::size_t element_bytes, FlashBlocks blocks) {
    validate(s);
    require_element_bytes(element_bytes);
    const TileCounts t = tile_counts(s.q_len, s.kv_len, s.causal, blocks);
    const double eb = static_cast<double>(element_bytes);
    const double L = static_cast<double>(s.q_len);
    const double d = static_cast<double>(s.head_dim), dv = static_cast<double>(s.value_dim);
    return {eb * (L * d + t.col_visits * (d + dv)) * heads_total(s),
            (eb * L * dv + kStatBytes * L) * heads_total(s)};
}

double executed_flops(const AttentionShape& s, Pass pass, Algorithm algorithm, FlashBlocks blocks) {
    validate(s);
    const double d = static_cast<double>(s.head_dim), dv = static_cast<double>(s.value_dim);
    double entries = 0;
    double backward_width = 0;  // d-or-dv wide products per score entry in the backward pass
    if (algorithm == Algorithm::standard) {
        entries = static_cast<double>(s.q_len) * static_cast<double>(s.kv_len);
        backward_width = 2 * d + 2 * dv;
    } else if (algorithm == Algorithm::flash) {
        entries = tile_counts(s.q_len, s.kv_len, s.causal, blocks).score_entries;
        backward_width = 3 * d + 2 * dv;
    } else {
        throw Error("algorithm: unknown enumerator " + std::to_string(static_cast<int>(algorithm)));
    }
    double flops = 0;
    if (pass != Pass::backward) flops += 2 * entries * (d + dv);
    if (pass != Pass::forward) flops += 2 * entries * backward_width;
    return flops * heads_total(s);
}

namespace {

// The SRAM size M of FA1's block rule, in elements, for a GPU preset.
std::size_t sram_elements_of(const GpuPreset& gpu, std::size_t element_bytes) {
    const double sram = gpu.sram_per_sm_bytes.value;
    if (!(sram >= static_cast<double>(element_bytes))) {
        throw Error("gpu: " + std::string(gpu.name) + " has no published shared-memory size, which sets "
                    "the block sizes (" + std::string(gpu.sram_per_sm_bytes.source) + ")");
    }
    return static_cast<std::size_t>(sram / static_cast<double>(element_bytes));
}

}  // namespace

AttentionPrediction predict(const AttentionShape& s, Algorithm algorithm, Pass pass, const GpuPreset& gpu,
                            Precision precision) {
    validate(s);
    const std::size_t element_bytes = bytes_per_element(precision);
    AttentionPrediction p{};
    p.algorithm = algorithm;
    p.pass = pass;
    p.precision = precision;
    p.peak_flops_per_s = roofline::peak_flops(gpu, precision);
    p.hbm_bytes_per_s = gpu.hbm_bytes_per_s.value;
    if (!(p.hbm_bytes_per_s > 0)) throw Error("gpu: " + std::string(gpu.name) + " has no published memory bandwidth");

    HbmTraffic traffic;
    if (algorithm == Algorithm::flash) {
        p.blocks = fa1_block_sizes(sram_elements_of(gpu, element_bytes), s.head_dim, s.value_dim);
        traffic = flash_attention_io(s, pass, element_bytes, p.blocks);
    } else if (algorithm == Algorithm::standard) {
        // The products run in the same Br-row blocks FlashAttention would use on this GPU.
        p.blocks = fa1_block_sizes(sram_elements_of(gpu, element_bytes), s.head_dim, s.value_dim);
        traffic = standard_attention_io(s, pass, element_bytes, p.blocks.block_q);
    } else {
        throw Error("algorithm: unknown enumerator " + std::to_string(static_cast<int>(algorithm)));
    }
    p.flops = executed_flops(s, pass, algorithm, p.blocks);
    p.useful_flops = attention_flops(s, pass);
    p.hbm_bytes_read = traffic.bytes_read;
    p.hbm_bytes_written = traffic.bytes_written;
    p.hbm_bytes = traffic.bytes();
    p.compute_time_s = p.flops / p.peak_flops_per_s;
    p.memory_time_s = p.hbm_bytes / p.hbm_bytes_per_s;
    p.time_s = std::max(p.compute_time_s, p.memory_time_s);
    p.arithmetic_intensity = roofline::arithmetic_intensity(p.flops, p.hbm_bytes);
    p.attained_flops_per_s = p.flops / p.time_s;
    p.bound = p.memory_time_s > p.compute_time_s ? Bound::memory : Bound::compute;
    return p;
}

ScoreMatrixFootprint score_matrix_footprint(std::size_t seq_len, std::size_t heads, std::size_t layers,
                                            std::size_t element_bytes) {
    require_range("seq_len", seq_len, 1, kMaxSeq);
    require_range("heads", heads, 1, kMaxHeads);
    require_range("layers", layers, 1, kMaxLayers);
    require_element_bytes(element_bytes);
    const double n = static_cast<double>(seq_len);
    const double per_head = n * n * static_cast<double>(element_bytes);
    const double per_layer = per_head * static_cast<double>(heads);
    return {per_head, per_layer, per_layer * static_cast<double>(layers)};
}

std::string_view pass_name(Pass pass) {
    switch (pass) {
        case Pass::forward: return "forward";
        case Pass::backward: return "backward";
        case Pass::forward_backward: return "forward_backward";
    }
    throw Error("pass: unknown enumerator " + std::to_string(static_cast<int>(pass)));
}

std::string_view algorithm_name(Algorithm algo) {
    switch (algo) {
        case Algorithm::standard: return "standard";
        case Algorithm::flash: return "flash";
    }
    throw Error("algorithm: unknown enumerator " + std::to_string(static_cast<int>(algo)));
}

}  // namespace attn::cost
