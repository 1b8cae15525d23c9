// libFuzzer target over the core's public functions (make fuzz; built by the `fuzz` preset with
// clang, AddressSanitizer and UndefinedBehaviorSanitizer). The first byte picks a function, the
// rest become its arguments: sizes, flags and raw floats (NaN, infinities and denormals included).
// A call may throw attn::Error (the arguments were refused, which is the contract); anything else
// - a sanitizer report, a crash, another exception - is a finding. Sizes are kept small so that
// the fuzzer explores argument combinations rather than spending its time on big problems.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "attn/approx/complexity.hpp"
#include "attn/approx/linear_attention.hpp"
#include "attn/approx/linformer.hpp"
#include "attn/approx/lsh_attention.hpp"
#include "attn/approx/lsh_pattern.hpp"
#include "attn/approx/performer.hpp"
#include "attn/approx/sparse_patterns.hpp"
#include "attn/attention/chunked_prefill.hpp"
#include "attn/attention/flash_backward.hpp"
#include "attn/attention/flash_forward.hpp"
#include "attn/attention/online_softmax.hpp"
#include "attn/attention/paged_decode.hpp"
#include "attn/attention/paged_decode_fast.hpp"
#include "attn/attention/ring_attention.hpp"
#include "attn/attention/sdpa.hpp"
#include "attn/attention/sliding_window.hpp"
#include "attn/attention/speculative.hpp"
#include "attn/attention/split_kv.hpp"
#include "attn/cost/gpu_presets.hpp"
#include "attn/cost/work_partition.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"

namespace {

// Reads the fuzzer's bytes as typed values; past the end everything reads as zero.
class Bytes {
public:
    Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
    std::size_t small(std::size_t max) { return byte() % (max + 1); }  // in [0, max]
    std::size_t size_value() {  // mostly small, sometimes at or past a limit
        const std::uint8_t tag = byte();
        if (tag < 200) return tag % 20;
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v = (v << 8) | byte();
        return v;
    }
    float real() {
        std::uint32_t bits = 0;
        for (int i = 0; i < 4; ++i) bits = (bits << 8) | byte();
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    }
    std::vector<float> reals(std::size_t n) {
        std::vector<float> v(n);
        for (float& x : v) x = real();
        return v;
    }
    attn::Shape4 shape(std::size_t max_dim) {
        return {1 + small(2), 1 + small(2), 1 + small(max_dim), 1 + small(max_dim)};
    }
    attn::Causal causal() { return static_cast<attn::Causal>(small(2)); }

private:
    const std::uint8_t* data_;
    std::size_t size_, pos_ = 0;
};

attn::Tensor4<float> tensor(Bytes& in, attn::Shape4 s) { return attn::Tensor4<float>(s, in.reals(s.numel())); }

void attention(Bytes& in) {
    const attn::Shape4 qs = in.shape(9);
    attn::Shape4 ks = qs;
    ks.heads = in.byte() % 2 ? 1 : qs.heads;
    ks.seq = 1 + in.small(9);
    attn::Shape4 vs = ks;
    vs.dim = 1 + in.small(9);
    const auto q = tensor(in, qs), k = tensor(in, ks), v = tensor(in, vs);
    attn::AttentionOptions o;
    o.causal = in.causal();
    if (in.byte() % 4 == 0) o.scale = in.real();
    if (in.byte() % 4 == 0) {
        const attn::Shape4 ms{1, 1, qs.seq, ks.seq};
        std::vector<std::uint8_t> allowed(ms.numel());
        for (auto& a : allowed) a = in.byte() % 2;
        o.mask = attn::AttentionMask::boolean(ms, allowed);
    }
    switch (in.small(2)) {
        case 0: {
            attn::SdpaOptions so;
            static_cast<attn::AttentionOptions&>(so) = o;
            so.return_probs = in.byte() % 2;
            attn::sdpa(q, k, v, so);
            break;
        }
        case 1: {
            attn::FlashOptions fo;
            static_cast<attn::AttentionOptions&>(fo) = o;
            fo.block_q = in.size_value();
            fo.block_k = in.size_value();
            fo.trace = in.byte() % 2;
            attn::flash_forward(q, k, v, fo);
            break;
        }
        default: {
            attn::FlashBackwardOptions bo;
            static_cast<attn::AttentionOptions&>(bo) = o;
            bo.block_q = 1 + in.small(8);
            bo.block_k = 1 + in.small(8);
            const attn::Shape4 os{qs.batch, qs.heads, qs.seq, vs.dim};
            const auto out = tensor(in, os), d_out = tensor(in, os);
            attn::flash_backward(q, k, v, out, d_out, in.reals(qs.batch * qs.heads * qs.seq), bo);
        }
    }
}

void online_softmax(Bytes& in) {
    const std::size_t dim = 1 + in.small(8);
    attn::online_softmax::State<float> a, b;
    std::vector<float> acc_a(dim), acc_b(dim), out(dim);
    for (int round = 0; round < 3; ++round) {
        const std::size_t n = in.small(8);
        const auto scores = in.reals(n), values = in.reals(n * dim);
        // The core's contract: no NaN or +inf score, finite values (the bindings check these).
        bool valid = true;
        for (float s : scores) valid &= !std::isnan(s) && s != INFINITY;
        for (float x : values) valid &= std::isfinite(x);
        if (valid) attn::online_softmax::update(round % 2 ? b : a, round % 2 ? acc_b.data() : acc_a.data(), dim,
                                                scores.data(), n, values.data(), dim);
    }
    attn::online_softmax::merge(a, acc_a.data(), b, acc_b.data(), dim);
    attn::online_softmax::finalize(a, acc_a.data(), dim, out.data());
}

void work_partition(Bytes& in) {
    attn::cost::AttentionLaunch l;
    // batch x heads at most 2^16: the core's own limit (2^22 blocks) is accepted but
    // takes over 10 s under the sanitizers (the first finding, see tests/fuzz/README.md); the
    // browser caps blocks at 2^16, which this keeps.
    l.batch = 1 + in.size_value() % 256;
    l.heads = 1 + in.size_value() % 256;
    l.q_len = in.size_value();
    l.kv_len = in.size_value();
    l.block_q = in.size_value();
    l.block_k = in.size_value();
    l.blocks_per_sm = in.size_value();
    l.causal = in.causal();
    const auto& presets = attn::cost::gpu_presets();
    attn::cost::partition_work(l, in.byte() % 2 ? attn::cost::Partition::fa1 : attn::cost::Partition::fa2,
                               presets[in.small(presets.size() - 1)]);
}

// Reformer's pattern over raw queries (any shape, NaN included) and options at and past their limits.
void lsh_pattern(Bytes& in) {
    attn::approx::LshOptions o;
    o.num_buckets = in.size_value();
    o.num_rounds = in.size_value();
    o.chunk_length = in.size_value();
    o.seed = in.byte();
    attn::Shape4 s = in.shape(24);
    if (in.byte() % 2) s.batch = s.heads = 1;
    attn::approx::lsh_pattern(attn::Tensor4<double>(s, std::vector<double>(s.numel(), in.real())), o, in.size_value());
}

// Every complexity method at any N, with parameters at and past their limits.
void complexity(Bytes& in) {
    attn::approx::ComplexityParams c;
    c.head_dim = in.size_value();
    c.value_dim = in.size_value();
    c.bytes_per_element = in.size_value();
    c.lsh_buckets = in.size_value();
    c.lsh_rounds = in.size_value();
    c.lsh_chunk = in.size_value();
    c.linformer_k = in.size_value();
    c.performer_features = in.size_value();
    c.flash_block_q = in.size_value();
    c.flash_block_k = in.size_value();
    attn::approx::complexity_point(static_cast<attn::approx::ComplexityMethod>(in.small(6)), in.size_value(), c);
}

void sparse_pattern(Bytes& in) {
    attn::approx::SparsePattern p;
    p.kind = static_cast<attn::approx::PatternKind>(in.small(5));
    p.stride = in.size_value();
    p.summary = in.size_value();
    p.one_sided_window = in.size_value();
    p.dilation = in.size_value();
    p.global = in.size_value();
    p.block = in.size_value();
    p.random_blocks = in.small(4);
    p.seed = in.byte();
    const std::size_t n = in.size_value() % 4096;
    switch (in.byte() % 4) {
        case 0: attn::approx::pattern_stats(p, n); break;
        case 1: attn::approx::pattern_density_image(p, n, 1 + in.small(64)); break;
        case 2: lsh_pattern(in); break;
        default: complexity(in); break;
    }
}

void scalars(Bytes& in) {
    attn::sliding_window_receptive_field(in.size_value(), in.size_value());
    attn::sliding_window_influence(1 + in.small(8), in.size_value(), 1 + in.small(64), in.size_value());
    const double alpha = in.real();
    attn::speculative_expected_tokens(alpha, in.size_value());
    attn::simulate_speculative(alpha, in.small(16), 1 + in.small(200), in.byte());
    attn::random_normal(in.shape(8), in.byte(), in.real());
}

// Part 4's kernels over one decode step or a prefill: paged decode (reference and fast) through
// block tables whose ids, lengths and masks come from the fuzzer (out-of-range ones included),
// split-KV, ring attention and chunked prefill, with partition, device and chunk counts at and
// past their limits.
std::vector<attn::PagedSequence> paged_sequences(Bytes& in, std::size_t count, std::size_t num_blocks,
                                                 std::size_t block_size) {
    std::vector<attn::PagedSequence> seqs(count);
    for (auto& s : seqs) {
        s.context_len = in.size_value() % (4 * block_size + 2);
        const std::size_t blocks = in.small(5);
        for (std::size_t b = 0; b < blocks; ++b) s.block_table.push_back(in.byte() % (num_blocks + 1));
        if (in.byte() % 4 == 0) {
            s.key_allowed.resize(in.byte() % 2 ? s.context_len : in.small(8));
            for (auto& a : s.key_allowed) a = in.byte() % 2;
        }
    }
    return seqs;
}

void paged_decode(Bytes& in) {
    const std::size_t kv_heads = 1 + in.small(2), group = 1 + in.small(2), dim = 1 + in.small(8);
    const std::size_t num_blocks = 1 + in.small(5), block_size = 1 + in.small(5);
    const std::size_t seqs = 1 + in.small(2);
    const attn::Shape4 pool{num_blocks, kv_heads, block_size, dim};
    const std::size_t q_batch = in.byte() % 8 ? seqs : seqs + 1;  // sometimes not one query per sequence
    const std::size_t q_len = in.byte() % 8 ? 1 : 2;                // sometimes not one token per query
    const auto q = tensor(in, {q_batch, kv_heads * group, q_len, dim});
    const auto k = tensor(in, pool), v = tensor(in, pool);
    const auto sequences = paged_sequences(in, seqs, num_blocks, block_size);
    if (in.byte() % 2) {
        attn::PagedDecodeOptions o;
        if (in.byte() % 4 == 0) o.scale = in.real();
        o.trace = in.byte() % 2;
        o.trace_seq = in.small(2);
        o.trace_head = in.small(4);
        attn::paged_decode(q, k, v, sequences, o);
    } else {
        attn::FastPagedDecodeOptions o;
        if (in.byte() % 4 == 0) o.scale = in.real();
        o.num_threads = in.small(3);
        attn::paged_decode_fast(q, k, v, sequences, o);
    }
}

void distributed(Bytes& in) {
    const attn::Shape4 qs = in.shape(9);
    attn::Shape4 ks = qs;
    ks.heads = in.byte() % 2 ? 1 : qs.heads;
    ks.seq = 1 + in.small(12);
    const auto q = tensor(in, qs), k = tensor(in, ks), v = tensor(in, ks);
    switch (in.small(2)) {
        case 0: {
            attn::SplitKvOptions o;
            o.causal = in.causal();
            o.num_partitions = in.size_value();
            attn::split_kv_attention(q, k, v, o);
            break;
        }
        case 1: {
            attn::RingOptions o;
            o.causal = in.causal();
            o.devices = in.size_value();
            o.trace = in.byte() % 2;
            o.trace_batch = in.small(2);
            o.trace_head = in.small(2);
            attn::ring_attention(q, k, v, o);
            break;
        }
        default: {
            attn::PrefillOptions o;
            o.block_k = in.size_value();
            if (in.byte() % 2) {
                attn::prefill_attention(q, k, v, in.size_value(), o);
            } else {
                std::vector<std::size_t> chunks(in.small(4));
                for (auto& c : chunks) c = in.size_value();
                attn::chunked_prefill(q, k, v, chunks, o);
            }
        }
    }
}

// Part 2's approximations on double inputs (any values) with their options at and past limits.
void approximations(Bytes& in) {
    const attn::Shape4 qs = in.shape(12);
    attn::Shape4 ks = qs;
    ks.seq = 1 + in.small(12);
    const auto as_double = [&](attn::Shape4 s) {
        std::vector<double> x(s.numel());
        for (double& e : x) e = in.real();
        return attn::Tensor4<double>(s, std::move(x));
    };
    const auto q = as_double(qs), k = as_double(ks), v = as_double(ks);
    const std::optional<double> scale = in.byte() % 4 == 0 ? std::optional<double>(in.real()) : std::nullopt;
    switch (in.small(3)) {
        case 0: {
            attn::approx::LshOptions o;
            o.num_buckets = in.size_value();
            o.num_rounds = in.size_value();
            o.chunk_length = in.size_value();
            o.seed = in.byte();
            o.scale = scale;
            o.record_attended = in.byte() % 2;
            attn::approx::lsh_attention(q, k, v, o);
            break;
        }
        case 1: {
            const auto e = in.byte() % 2
                               ? attn::approx::linformer_random_projections(in.size_value(), in.size_value(), in.byte())
                               : attn::approx::linformer_identity_projections(in.size_value());
            attn::approx::linformer(q, k, v, e, scale);
            break;
        }
        case 2: {
            attn::approx::PerformerOptions o;
            o.num_features = in.size_value();
            o.orthogonal = in.byte() % 2;
            o.seed = in.byte();
            o.scale = scale;
            attn::approx::performer(q, k, v, o);
            break;
        }
        default: {
            attn::approx::LinearAttentionOptions o;
            o.causal = in.byte() % 2;
            o.form = in.byte() % 2 ? attn::approx::LinearForm::parallel : attn::approx::LinearForm::recurrent;
            attn::approx::linear_attention(q, k, v, o);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Bytes in(data, size);
    try {
        switch (in.small(7)) {
            case 0: attention(in); break;
            case 1: online_softmax(in); break;
            case 2: work_partition(in); break;
            case 3: sparse_pattern(in); break;
            case 4: paged_decode(in); break;
            case 5: distributed(in); break;
            case 6: approximations(in); break;
            default: scalars(in); break;
        }
    } catch (const attn::Error&) {
        // Refused arguments: the documented outcome.
    }
    return 0;
}
