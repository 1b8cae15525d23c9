#include "gpu_decode_plan.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

#include "attn/attention/paged_decode.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn::bench {
namespace {

double product(std::initializer_list<std::size_t> factors) {
    double p = 1;
    for (std::size_t f : factors) p *= static_cast<double>(f);
    return p;
}

int as_int(const char* field, std::size_t value) {
    if (value > static_cast<std::size_t>(INT_MAX)) {
        throw Error(std::string(field) + " must be at most " + std::to_string(INT_MAX) + " for the kernel's int32 "
                    "arguments, got " + std::to_string(value));
    }
    return static_cast<int>(value);
}

// x rounded to a multiple of 2^-6 in [-255/64, 255/64]: at most 8 significant bits, so FP16, BF16
// and FP32 hold it exactly.
double on_exact_grid(double x) { return std::clamp(std::round(x * 64.0), -255.0, 255.0) / 64.0; }

}  // namespace

bool fits_in_device_memory(double bytes, double free_bytes) { return bytes + kDeviceHeadroomBytes <= free_bytes; }

std::size_t GpuDecodeProblem::blocks_per_seq() const { return (context + layout.block_size - 1) / layout.block_size; }
std::size_t GpuDecodeProblem::num_blocks() const { return batch * blocks_per_seq(); }

std::string gpu_decode_benchmark_name(const GpuDecodeProblem& p, std::string_view element) {
    return "cuda/decode_" + std::string(element) + "_" + std::string(p.layout.name) + "/" + p.shape.model +
           "/N:" + std::to_string(p.context) + "/B:" + std::to_string(p.batch);
}

DecodeLaunchShape decode_launch_shape(const GpuDecodeProblem& p) {
    return {as_int("batch", p.batch),
            as_int("q_heads", p.shape.q_heads),
            as_int("kv_heads", p.shape.kv_heads),
            as_int("head_dim", p.shape.head_dim),
            as_int("block_size", p.layout.block_size),
            as_int("num_blocks", p.num_blocks()),
            as_int("blocks_per_seq", p.blocks_per_seq()),
            as_int("context", p.context)};
}

DecodeTraffic decode_traffic(const GpuDecodeProblem& p, int splits) {
    if (splits < 1) throw Error("splits must be at least 1, got " + std::to_string(splits));
    const DecodeShape& s = p.shape;
    DecodeTraffic t;
    t.kv_bytes = 2 * product({p.batch, s.kv_heads, p.context, s.head_dim, kKvElementBytes});
    t.q_bytes = product({p.batch, s.q_heads, s.head_dim, sizeof(float)});
    t.out_bytes = product({p.batch, s.q_heads, s.head_dim + 1, sizeof(float)});
    // Each sequence's table entries and its context length, int32.
    t.table_bytes = product({p.batch, p.blocks_per_seq() + 1, sizeof(std::int32_t)});
    t.workspace_bytes = 2 * product({p.batch, s.q_heads, static_cast<std::size_t>(splits), s.head_dim + 2, sizeof(float)});
    return t;
}

double decode_device_bytes(const GpuDecodeProblem& p, int splits) {
    const DecodeTraffic t = decode_traffic(p, splits);
    const double pools = 2 * product({p.num_blocks(), p.shape.kv_heads, p.layout.block_size, p.shape.head_dim, kKvElementBytes});
    return pools + t.q_bytes + t.out_bytes + t.table_bytes + t.workspace_bytes / 2;  // the workspace is allocated once
}

GpuDecodeSweep gpu_decode_sweep(double device_memory_bytes,
                                const std::function<int(const GpuDecodeProblem&)>& splits_for) {
    GpuDecodeSweep sweep;
    for (const DecodeShape& shape : decode_shapes()) {
        for (const GpuDecodeLayout& layout : kGpuDecodeLayouts) {
            for (std::size_t batch : kGpuDecodeBatches) {
                for (std::size_t context : kDecodeContexts) {
                    const GpuDecodeProblem p{shape, layout, batch, context};
                    const bool fits = fits_in_device_memory(decode_device_bytes(p, splits_for(p)), device_memory_bytes);
                    (fits ? sweep.problems : sweep.too_large).push_back(p);
                }
            }
        }
    }
    return sweep;
}

std::vector<int> decode_block_tables(const GpuDecodeProblem& p, std::uint64_t seed) {
    std::vector<int> tables(p.num_blocks());
    std::iota(tables.begin(), tables.end(), 0);
    if (p.layout.shuffled) std::shuffle(tables.begin(), tables.end(), std::mt19937_64(seed));
    return tables;
}

DecodeCheckCase make_decode_check_case(const DecodeShape& shape, const GpuDecodeLayout& layout, std::uint64_t seed) {
    if (shape.kv_heads == 0 || shape.q_heads % shape.kv_heads != 0 || shape.q_heads == 0) {
        throw Error("q_heads must be a positive multiple of kv_heads >= 1, got q_heads = " + std::to_string(shape.q_heads) +
                    " and kv_heads = " + std::to_string(shape.kv_heads));
    }
    if (shape.head_dim == 0 || layout.block_size == 0) {
        throw Error("head_dim and block_size must be at least 1, got " + std::to_string(shape.head_dim) + " and " +
                    std::to_string(layout.block_size));
    }
    DecodeCheckCase c;
    c.shape = shape;
    c.layout = layout;
    const std::size_t bs = layout.block_size, d = shape.head_dim, hkv = shape.kv_heads;
    c.context_lens = {1, 17, static_cast<int>(2 * bs), 1037};
    const std::size_t seqs = c.context_lens.size();
    std::size_t used_blocks = 0, widest = 0;
    for (int len : c.context_lens) {
        const std::size_t blocks = (static_cast<std::size_t>(len) + bs - 1) / bs;
        used_blocks += blocks;
        widest = std::max(widest, blocks);
    }
    // Two blocks of no sequence: the last is what table entries past a context name.
    c.num_blocks = static_cast<int>(used_blocks + 2);
    c.max_blocks_per_seq = static_cast<int>(widest + 1);
    std::vector<int> physical(static_cast<std::size_t>(c.num_blocks));
    std::iota(physical.begin(), physical.end(), 0);
    if (layout.shuffled) std::shuffle(physical.begin(), physical.end(), std::mt19937_64(seed));
    const int poison_block = physical.back();
    c.block_tables.assign(seqs * static_cast<std::size_t>(c.max_blocks_per_seq), poison_block);

    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Shape4 pool_shape{static_cast<std::size_t>(c.num_blocks), hkv, bs, d};
    Tensor4<double> key_pool(pool_shape), value_pool(pool_shape);
    std::fill(key_pool.data.begin(), key_pool.data.end(), nan);
    std::fill(value_pool.data.begin(), value_pool.data.end(), nan);
    Tensor4<double> q = random_normal({seqs, shape.q_heads, 1, d}, seed + 1);
    for (double& x : q.data) x = on_exact_grid(x);

    std::vector<PagedSequence> sequences(seqs);
    std::size_t next_block = 0;
    for (std::size_t b = 0; b < seqs; ++b) {
        const std::size_t len = static_cast<std::size_t>(c.context_lens[b]);
        PagedSequence& sequence = sequences[b];
        sequence.context_len = len;
        for (std::size_t logical = 0; logical * bs < len; ++logical) {
            const int block = physical[next_block++];
            c.block_tables[b * static_cast<std::size_t>(c.max_blocks_per_seq) + logical] = block;
            sequence.block_table.push_back(static_cast<std::size_t>(block));
        }
        const Tensor4<double> k = random_normal({1, hkv, len, d}, seed + 2 + 2 * b);
        const Tensor4<double> v = random_normal({1, hkv, len, d}, seed + 3 + 2 * b);
        for (std::size_t t = 0; t < len; ++t) {
            for (std::size_t h = 0; h < hkv; ++h) {
                for (std::size_t i = 0; i < d; ++i) {
                    key_pool.at(sequence.block_table[t / bs], h, t % bs, i) = on_exact_grid(k.at(0, h, t, i));
                    value_pool.at(sequence.block_table[t / bs], h, t % bs, i) = on_exact_grid(v.at(0, h, t, i));
                }
            }
        }
    }
    const PagedDecodeResult<double> ref = paged_decode(q, key_pool, value_pool, sequences);
    c.expected_out = ref.output.data;
    c.expected_lse = ref.lse;
    c.q.assign(q.data.begin(), q.data.end());
    c.key_pool.assign(key_pool.data.begin(), key_pool.data.end());
    c.value_pool.assign(value_pool.data.begin(), value_pool.data.end());

    std::ostringstream text;
    text << shape.model << " Hq=" << shape.q_heads << " Hkv=" << hkv << " d=" << d << " " << layout.name << " contexts ";
    for (std::size_t b = 0; b < seqs; ++b) text << (b ? "," : "") << c.context_lens[b];
    c.description = text.str();
    return c;
}

DecodeCheckOutcome compare_with_reference(const DecodeCheckCase& c, const std::vector<float>& out,
                                          const std::vector<float>& lse) {
    if (out.size() != c.expected_out.size()) {
        throw Error("out must hold " + std::to_string(c.expected_out.size()) + " values, got " + std::to_string(out.size()));
    }
    if (lse.size() != c.expected_lse.size()) {
        throw Error("lse must hold " + std::to_string(c.expected_lse.size()) + " values, got " + std::to_string(lse.size()));
    }
    DecodeCheckOutcome r;
    auto fold = [&](const std::vector<float>& got, const std::vector<double>& want) {
        for (std::size_t i = 0; i < got.size(); ++i) {
            const double e = std::abs(static_cast<double>(got[i]) - want[i]);
            r.max_abs_error = std::isnan(e) ? INFINITY : std::max(r.max_abs_error, e);
        }
    };
    fold(out, c.expected_out);
    fold(lse, c.expected_lse);
    r.passed = r.max_abs_error <= kDecodeCheckTolerance;
    return r;
}

}  // namespace attn::bench
