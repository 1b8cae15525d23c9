// JavaScript API of the sparse patterns and complexity curves (Part 2's pattern-zoo and
// complexity-scaling figures): masks for small N, analytic counts and density images for any N,
// a real masked run with its error against dense attention, the cost curves and the sourced
// time-line markers. Thin: read and check the arguments, call attn::approx, return plain objects.
#include <emscripten/bind.h>

#include <algorithm>
#include <string>
#include <vector>

#include "attention_args.hpp"
#include "attn/approx/complexity.hpp"
#include "attn/approx/lsh_pattern.hpp"
#include "attn/approx/sparse_patterns.hpp"
#include "attn/random.hpp"
#include "approx_result_js.hpp"
#include "convert.hpp"
#include "limits.hpp"

namespace attn::wasm {
namespace {

using namespace attn::approx;

// A page draws individual cells only at small N; beyond this it asks for the density image.
constexpr std::size_t kMaxPatternMaskLength = 1024;
constexpr std::size_t kMaxPatternBlockRows = std::size_t{1} << 18;  // BigBird block rows a count walks
constexpr std::size_t kMaxPatternBlockWork = std::size_t{1} << 21;  // those rows x (random blocks + 4)

SparsePattern pattern_arg(const val& in) {
    if (in.isUndefined() || in.isNull()) throw Error("pattern: missing (no arguments object given)");
    const val p = in["pattern"];
    if (p.typeOf().as<std::string>() != "object" || p.isNull()) throw Error("pattern: must be an object {kind, ...}");
    const val kind = p["kind"];
    const std::string k = kind.isString() ? kind.as<std::string>() : "";
    SparsePattern s;
    if (k == "dense") s.kind = PatternKind::dense;
    else if (k == "causal") s.kind = PatternKind::causal;
    else if (k == "strided") s.kind = PatternKind::strided;
    else if (k == "fixed") s.kind = PatternKind::fixed;
    else if (k == "longformer") s.kind = PatternKind::longformer;
    else if (k == "bigbird") s.kind = PatternKind::bigbird;
    else throw Error("pattern.kind: must be 'dense', 'causal', 'strided', 'fixed', 'longformer' or 'bigbird'");
    // Ranges that depend on the kind and N are checked by the core (attn::approx::validate_pattern).
    s.stride = integer_arg(p, "stride", 0, kMaxPatternLength, 0);
    s.summary = integer_arg(p, "summary", 0, kMaxPatternLength, 0);
    s.one_sided_window = integer_arg(p, "oneSidedWindow", 0, kMaxPatternLength, 0);
    s.dilation = integer_arg(p, "dilation", 1, kMaxPatternLength, 1);
    s.global = integer_arg(p, "global", 0, kMaxPatternLength, 0);
    s.block = integer_arg(p, "block", 0, kMaxPatternLength, 0);
    s.random_blocks = integer_arg(p, "randomBlocks", 0, 64, 0);
    s.seed = integer_arg(p, "seed", 0, kMaxSeed, 0);
    return s;
}

std::size_t seq_len_arg(const val& in, std::size_t max) {
    if (in["seqLen"].isUndefined()) throw Error("seqLen: missing");
    return integer_arg(in, "seqLen", 1, max, 1);
}

// BigBird's counts walk every block row and draw its random blocks (they differ per row), about
// 0.3 microseconds per drawn block in the browser: rows and rows x (randomBlocks + 4) are capped
// so that a call stays well under a second.
void require_block_rows(const SparsePattern& p, std::size_t n) {
    if (p.kind != PatternKind::bigbird || p.block == 0) return;  // block 0 is the core's error
    const std::size_t rows = (n + p.block - 1) / p.block;  // n, block <= 2^24: no wrap
    if (rows > kMaxPatternBlockRows) {
        throw Error("pattern.block: seqLen / block = " + std::to_string(rows) + " block rows exceed the in-browser limit of " +
                    std::to_string(kMaxPatternBlockRows) + "; use larger blocks");
    }
    const double work = static_cast<double>(rows) * static_cast<double>(p.random_blocks + 4);
    if (work > static_cast<double>(kMaxPatternBlockWork)) {
        throw Error("pattern.randomBlocks: block rows x (randomBlocks + 4) = " + std::to_string(static_cast<long long>(work)) +
                    " exceeds the in-browser limit of " + std::to_string(kMaxPatternBlockWork) +
                    "; use larger blocks or fewer random blocks");
    }
}

// A density image as the page reads it: edges, counts and the fraction of each pixel allowed.
val density_image_js(const DensityImage& img) {
    std::vector<float> fraction(img.pixels * img.pixels);
    for (std::size_t r = 0; r < img.pixels; ++r) {
        for (std::size_t c = 0; c < img.pixels; ++c) fraction[r * img.pixels + c] = static_cast<float>(img.fraction(r, c));
    }
    val out = val::object();
    out.set("pixels", img.pixels);
    out.set("edges", typed_array(std::vector<double>(img.edges.begin(), img.edges.end())));
    out.set("allowed", typed_array(std::vector<double>(img.allowed.begin(), img.allowed.end())));
    out.set("fraction", to_float32_array(fraction));
    return out;
}

val pattern_mask_js(const val& in) {
    return guarded([&] {
        const SparsePattern p = pattern_arg(in);
        const std::vector<std::uint8_t> mask = pattern_mask(p, seq_len_arg(in, kMaxPatternMaskLength));
        return typed_array(mask);
    });
}

val pattern_stats_js(const val& in) {
    return guarded([&] {
        const SparsePattern p = pattern_arg(in);
        const std::size_t n = seq_len_arg(in, kMaxPatternLength);
        require_block_rows(p, n);
        const PatternStats s = pattern_stats(p, n, integer_arg(in, "headDim", 1, 65536, 64),
                                             integer_arg(in, "valueDim", 1, 65536, 64),
                                             integer_arg(in, "bytesPerScore", 1, 16, 8));
        val out = val::object();
        out.set("entries", counter(s.entries));
        out.set("flops", counter(s.flops));
        out.set("scoreBytes", counter(s.score_bytes));
        out.set("density", s.density);
        return out;
    });
}

val pattern_density_image_js(const val& in) {
    return guarded([&] {
        const SparsePattern p = pattern_arg(in);
        const std::size_t n = seq_len_arg(in, kMaxPatternLength);
        require_block_rows(p, n);
        if (in["pixels"].isUndefined()) throw Error("pixels: missing");
        return density_image_js(pattern_density_image(p, n, integer_arg(in, "pixels", 1, 2048, 1)));
    });
}

// Reformer's pattern at the zoo's lengths: a seeded head of queries hashed, sorted and chunked as
// lsh_attention does, its attended pairs counted per pixel. Bounded by the hash (N d buckets/2 per
// round) and the chunk windows (2 m per query per round).
constexpr std::size_t kMaxLshPatternLength = std::size_t{1} << 16;
constexpr double kMaxLshPatternWork = double(std::size_t{1} << 26);
constexpr std::size_t kMaxLshPatternValues = std::size_t{1} << 21;  // seeded query values drawn (Box-Muller)

// The seeded queries of lshPattern, kept between calls. Element n of random_normal depends only on
// (seed, n), so the queries of a shorter sequence are a prefix of a longer draw at the same seed and
// width. Drawing them (Box-Muller: about 14 ms for 8,192 x 64 in the browser) costs several times
// more than hashing them, so a figure that moves between lengths draws its longest once and re-hashes
// prefixes of it: the same queries, hence the same pattern, as a fresh draw. The result stays valid
// until the next call; the kept draw itself is returned, not copied, when its length is the one asked for.
const Tensor4<double>& seeded_queries(std::size_t n, std::size_t d, std::uint64_t seed) {
    struct Drawn {
        std::uint64_t seed = 0;
        std::size_t dim = 0;
        Tensor4<double> queries;
    };
    static Drawn drawn;
    static Tensor4<double> prefix;
    const bool reusable = drawn.seed == seed && drawn.dim == d && drawn.queries.shape.seq >= n;
    if (!reusable) drawn = {seed, d, random_normal({1, 1, n, d}, seed)};
    if (drawn.queries.shape.seq == n) return drawn.queries;
    prefix = Tensor4<double>({1, 1, n, d}, std::vector<double>(drawn.queries.data.begin(), drawn.queries.data.begin() + n * d));
    return prefix;
}

val lsh_pattern_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("seqLen: missing (no arguments object given)");
        const std::size_t n = seq_len_arg(in, kMaxLshPatternLength);
        const std::size_t d = integer_arg(in, "headDim", 1, 256, 64);
        if (n * d > kMaxLshPatternValues) {  // n <= 2^16, d <= 256: no wrap
            throw Error("seqLen/headDim: seqLen * headDim = " + std::to_string(n * d) + " query values exceed the in-browser limit of " +
                        std::to_string(kMaxLshPatternValues));
        }
        LshOptions o;
        o.num_buckets = integer_arg(in, "numBuckets", 1, 4096, o.num_buckets);
        o.num_rounds = integer_arg(in, "numRounds", 1, 64, o.num_rounds);
        o.chunk_length = integer_arg(in, "chunkLength", 1, kMaxPatternLength, o.chunk_length);
        o.seed = integer_arg(in, "seed", 0, kMaxSeed, 0);
        if (in["pixels"].isUndefined()) throw Error("pixels: missing");
        const std::size_t pixels = integer_arg(in, "pixels", 1, 2048, 1);
        const double m = double(std::min(o.chunk_length, n));
        const double work = double(o.num_rounds) * double(n) * (double(d) * double(o.num_buckets) / 2 + 2 * m);
        if (work > kMaxLshPatternWork) {
            throw Error("numRounds/numBuckets/chunkLength: numRounds * seqLen * (headDim * numBuckets / 2 + 2 * chunkLength) = " +
                        std::to_string(static_cast<long long>(work)) + " exceeds the in-browser limit of " +
                        std::to_string(static_cast<long long>(kMaxLshPatternWork)));
        }
        // The queries: one head of i.i.d. N(0, 1) vectors from the seed (attn::random_normal).
        const LshPattern r = lsh_pattern(seeded_queries(n, d, o.seed), o, pixels);
        val out = density_image_js(r.image);
        out.set("attendedPairs", counter(r.attended_pairs));
        out.set("chunkLength", r.chunk_length);
        val cost = val::object();
        cost.set("scoreEntries", counter(r.cost.score_entries));
        cost.set("flops", counter(r.cost.flops));
        cost.set("peakBytes", counter(r.cost.peak_bytes));
        out.set("cost", cost);
        return out;
    });
}

val sparse_attention_js(const val& in) {
    return guarded([&] {
        const SparsePattern p = pattern_arg(in);
        const Qkv t = qkv_arg(in, kMaxHeavyAttentionWork);
        require_score_budget(t);
        const ApproxResult r =
            sparse_attention(tensor_cast<double>(t.q), tensor_cast<double>(t.k), tensor_cast<double>(t.v), p);
        return approx_result_js(r);
    });
}

ComplexityParams complexity_params_arg(const val& in) {
    ComplexityParams p;
    p.head_dim = integer_arg(in, "headDim", 1, 4096, p.head_dim);
    p.value_dim = integer_arg(in, "valueDim", 1, 4096, p.value_dim);
    p.bytes_per_element = integer_arg(in, "bytesPerElement", 1, 8, p.bytes_per_element);
    p.lsh_buckets = integer_arg(in, "lshBuckets", 1, 4096, p.lsh_buckets);
    p.lsh_rounds = integer_arg(in, "lshRounds", 1, 64, p.lsh_rounds);
    p.lsh_chunk = integer_arg(in, "lshChunk", 1, kMaxPatternLength, p.lsh_chunk);
    p.linformer_k = integer_arg(in, "linformerK", 1, std::size_t{1} << 20, p.linformer_k);
    p.performer_features = integer_arg(in, "performerFeatures", 1, 65536, p.performer_features);
    p.flash_block_q = integer_arg(in, "flashBlockQ", 1, 4096, p.flash_block_q);
    p.flash_block_k = integer_arg(in, "flashBlockK", 1, 4096, p.flash_block_k);
    validate_complexity_params(p);
    return p;
}

ComplexityMethod method_arg(const val& in) {
    const val m = in["method"];
    const std::string name = m.isString() ? m.as<std::string>() : "";
    if (name == "dense") return ComplexityMethod::dense;
    if (name == "sparse") return ComplexityMethod::sparse;
    if (name == "lsh") return ComplexityMethod::lsh;
    if (name == "linformer") return ComplexityMethod::linformer;
    if (name == "performer") return ComplexityMethod::performer;
    if (name == "flash") return ComplexityMethod::flash;
    throw Error("method: must be 'dense', 'sparse', 'lsh', 'linformer', 'performer' or 'flash'");
}

val point_js(const ComplexityPoint& pt) {
    val out = val::object();
    out.set("seqLen", counter(pt.seq_len));
    out.set("scoreEntries", counter(pt.score_entries));
    out.set("flops", counter(pt.flops));
    out.set("sortComparisons", counter(pt.sort_comparisons));
    out.set("peakBytes", counter(pt.peak_bytes));
    return out;
}

val complexity_point_js(const val& in) {
    return guarded([&] {
        if (in.isUndefined() || in.isNull()) throw Error("method: missing (no arguments object given)");
        const ComplexityParams p = complexity_params_arg(in);
        return point_js(complexity_point(method_arg(in), seq_len_arg(in, kMaxPatternLength), p));
    });
}

val complexity_curves_js(const val& in) {
    return guarded([&] {
        const ComplexityParams p = complexity_params_arg(in);
        const std::size_t n_max = integer_arg(in, "nMax", 1, kMaxPatternLength, 1000000);
        const std::size_t n_min = integer_arg(in, "nMin", 1, n_max, 256);
        const auto curves = complexity_curves(n_min, n_max, integer_arg(in, "points", 2, 512, 64), p);
        val out = val::array();
        for (const ComplexityCurve& c : curves) {
            std::vector<double> n, entries, flops, sorts, bytes;
            for (const ComplexityPoint& pt : c.points) {
                n.push_back(counter(pt.seq_len));
                entries.push_back(counter(pt.score_entries));
                flops.push_back(counter(pt.flops));
                sorts.push_back(counter(pt.sort_comparisons));
                bytes.push_back(counter(pt.peak_bytes));
            }
            val curve = val::object();
            curve.set("method", c.name);
            curve.set("bigO", c.big_o);
            curve.set("seqLen", typed_array(n));
            curve.set("scoreEntries", typed_array(entries));
            curve.set("flops", typed_array(flops));
            curve.set("sortComparisons", typed_array(sorts));
            curve.set("peakBytes", typed_array(bytes));
            out.call<void>("push", curve);
        }
        return out;
    });
}

val timeline_markers_js() {
    return guarded([] {
        val out = val::array();
        for (const TimelineMarker& m : timeline_markers()) {
            val marker = val::object();
            marker.set("model", m.model);
            marker.set("year", m.year);
            marker.set("contextTokens", counter(m.context_tokens));
            marker.set("source", m.source);
            out.call<void>("push", marker);
        }
        return out;
    });
}

val memory_reference_js() {
    return guarded([] {
        const MemoryReference m = a100_memory_reference();
        val out = val::object();
        out.set("label", m.label);
        out.set("bytes", counter(m.bytes));
        out.set("source", m.source);
        return out;
    });
}

}  // namespace
}  // namespace attn::wasm

EMSCRIPTEN_BINDINGS(sparse) {
    using namespace attn::wasm;
    emscripten::function("patternMask", &pattern_mask_js);
    emscripten::function("patternStats", &pattern_stats_js);
    emscripten::function("patternDensityImage", &pattern_density_image_js);
    emscripten::function("sparseAttention", &sparse_attention_js);
    emscripten::function("complexityPoint", &complexity_point_js);
    emscripten::function("complexityCurves", &complexity_curves_js);
    emscripten::function("timelineMarkers", &timeline_markers_js);
    emscripten::function("lshPattern", &lsh_pattern_js);
    emscripten::function("memoryReference", &memory_reference_js);
}
