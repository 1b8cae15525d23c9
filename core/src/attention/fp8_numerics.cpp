#include "attn/attention/fp8_numerics.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "attn/attention/float_formats.hpp"
#include "attn/attention/hadamard.hpp"
#include "attn/attention/sdpa.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn {
namespace {

std::string str(std::size_t n) { return std::to_string(n); }

void validate(const Fp8ExperimentOptions& o) {
    if (o.seq_len < 1 || o.seq_len > 65536) throw Error("seq_len: must be in [1, 65536], got " + str(o.seq_len));
    if (o.head_dim < 1 || o.head_dim > 1024 || (o.head_dim & (o.head_dim - 1)) != 0) {
        throw Error("head_dim: must be a power of two in [1, 1024] (Hadamard transform), got " + str(o.head_dim));
    }
    if (o.eval_rows < 1 || o.eval_rows > o.seq_len) {
        throw Error("eval_rows: must be in [1, seq_len = " + str(o.seq_len) + "], got " + str(o.eval_rows));
    }
    if (o.block_rows < 1 || o.block_rows > o.seq_len) {
        throw Error("block_rows: must be in [1, seq_len = " + str(o.seq_len) + "], got " + str(o.block_rows));
    }
    if (!(o.outlier_probability >= 0 && o.outlier_probability <= 1)) {
        throw Error("outlier_probability: must be in [0, 1], got " + std::to_string(o.outlier_probability));
    }
    if (!(std::isfinite(o.outlier_stddev) && o.outlier_stddev > 0)) {
        throw Error("outlier_stddev: must be finite and > 0, got " + std::to_string(o.outlier_stddev));
    }
}

// Independent streams for the inputs, the outlier masks and the Hadamard signs.
std::uint64_t stream(std::uint64_t seed, std::uint64_t k) { return splitmix64(seed ^ splitmix64(k + 0x5eed)); }

Tensor4<double> outlier_tensor(Shape4 shape, const Fp8ExperimentOptions& o, std::uint64_t k) {
    Tensor4<double> t = random_normal(shape, stream(o.seed, 3 * k));
    const Tensor4<double> extra = random_normal(shape, stream(o.seed, 3 * k + 1), o.outlier_stddev);
    for (std::size_t n = 0; n < t.data.size(); ++n) {
        if (uniform_from_hash(stream(o.seed, 3 * k + 2), n) < o.outlier_probability) t.data[n] += extra.data[n];
    }
    return t;
}

// An operand as the kernel holds it: values in the storage format (every FP16 and e4m3 value is
// exact in float) and the dequantisation scale of each row (its block's scale; 1 when unscaled).
struct Operand {
    std::vector<float> values;
    std::vector<double> row_scale;
};

Operand rounded(const std::vector<double>& x, std::size_t rows, double (*round)(double)) {
    Operand op{std::vector<float>(x.size()), std::vector<double>(rows, 1.0)};
    std::transform(x.begin(), x.end(), op.values.begin(), [&](double v) { return static_cast<float>(round(v)); });
    return op;
}

double to_float(double x) { return static_cast<double>(static_cast<float>(x)); }

// e4m3 with one scale per block of `block_rows` rows: scale = amax / 448, so the block's largest
// magnitude maps to e4m3's largest finite value (per-tensor scaling is block_rows = rows).
Operand quantized_e4m3(const std::vector<double>& x, std::size_t rows, std::size_t dim, std::size_t block_rows) {
    Operand op{std::vector<float>(x.size()), std::vector<double>(rows)};
    for (std::size_t r0 = 0; r0 < rows; r0 += block_rows) {
        const std::size_t r1 = std::min(rows, r0 + block_rows);
        double amax = 0;
        for (std::size_t n = r0 * dim; n < r1 * dim; ++n) amax = std::max(amax, std::abs(x[n]));
        const double scale = amax > 0 ? amax / kE4m3Max : 1.0;
        for (std::size_t n = r0 * dim; n < r1 * dim; ++n) op.values[n] = static_cast<float>(round_to_e4m3(x[n] / scale));
        for (std::size_t r = r0; r < r1; ++r) op.row_scale[r] = scale;
    }
    return op;
}

// Tensor-core dot products of query row q with key rows [j0, j1): products of FP16/FP8 values are
// exact in FP32 and each sum runs in FP32, in order. Four keys at a time only to overlap the four
// independent sums; each key's result is unchanged.
void raw_scores(const float* q, const std::vector<float>& k, std::size_t d, std::size_t j0, std::size_t j1, float* out) {
    std::size_t j = j0;
    for (; j + 4 <= j1; j += 4) {
        const float *k0 = &k[j * d], *k1 = k0 + d, *k2 = k1 + d, *k3 = k2 + d;
        float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (std::size_t c = 0; c < d; ++c) {
            a0 += q[c] * k0[c];
            a1 += q[c] * k1[c];
            a2 += q[c] * k2[c];
            a3 += q[c] * k3[c];
        }
        out[j - j0] = a0;
        out[j - j0 + 1] = a1;
        out[j - j0 + 2] = a2;
        out[j - j0 + 3] = a3;
    }
    for (; j < j1; ++j) {
        float a = 0;
        for (std::size_t c = 0; c < d; ++c) a += q[c] * k[j * d + c];
        out[j - j0] = a;
    }
}

enum class Storage { fp32, fp16, fp8 };

struct Prepared {
    Storage storage;
    bool flash;
    Operand q, k, v;
};

Prepared prepare(const OutlierQkv& in, NumericsMethod m, const Fp8ExperimentOptions& o) {
    const std::size_t n = o.seq_len, d = o.head_dim;
    switch (m) {
        case NumericsMethod::fp32_standard:
            return {Storage::fp32, false, rounded(in.q.data, n, to_float), rounded(in.k.data, n, to_float),
                    rounded(in.v.data, n, to_float)};
        case NumericsMethod::fp16_standard:
        case NumericsMethod::fp16_flash:
            return {Storage::fp16, m == NumericsMethod::fp16_flash, rounded(in.q.data, n, round_to_fp16),
                    rounded(in.k.data, n, round_to_fp16), rounded(in.v.data, n, round_to_fp16)};
        default: break;
    }
    const bool per_block =
        m == NumericsMethod::fp8_flash_per_block || m == NumericsMethod::fp8_flash_per_block_hadamard;
    const bool hadamard =
        m == NumericsMethod::fp8_flash_per_tensor_hadamard || m == NumericsMethod::fp8_flash_per_block_hadamard;
    std::vector<double> q = in.q.data, k = in.k.data;
    if (hadamard) {
        const std::uint64_t signs = stream(o.seed, 100);
        apply_random_hadamard(q, d, signs);
        apply_random_hadamard(k, d, signs);
    }
    const std::size_t block = per_block ? o.block_rows : n;
    return {Storage::fp8, m != NumericsMethod::fp8_standard_per_tensor, quantized_e4m3(q, n, d, block),
            quantized_e4m3(k, n, d, block), quantized_e4m3(in.v.data, n, d, block)};
}

// Standard attention (the scores of a row materialised), as PyTorch's math path runs it.
void standard_row(const Prepared& p, std::size_t i, const Fp8ExperimentOptions& o, float scale, double* out) {
    const std::size_t n = o.seq_len, d = o.head_dim;
    std::vector<float> s(n);
    raw_scores(&p.q.values[i * d], p.k.values, d, 0, n, s.data());
    for (std::size_t j = 0; j < n; ++j) {
        const float raw = s[j];
        switch (p.storage) {
            case Storage::fp32: s[j] = raw * scale; break;
            case Storage::fp16:  // the GEMM writes FP16, and so does the scaling
                s[j] = static_cast<float>(round_to_fp16(round_to_fp16(raw) * scale));
                break;
            case Storage::fp8:  // FP32 accumulator dequantised in the epilogue, then stored in FP16
                s[j] = static_cast<float>(round_to_fp16(
                    round_to_fp16(raw * static_cast<float>(p.q.row_scale[i] * p.k.row_scale[j])) * scale));
                break;
        }
    }
    const float m = *std::max_element(s.begin(), s.end());
    float l = 0;
    for (std::size_t j = 0; j < n; ++j) l += (s[j] = std::exp(s[j] - m));
    std::vector<float> acc(d, 0.0f);
    for (std::size_t j = 0; j < n; ++j) {
        float pj = s[j] / l;
        if (p.storage == Storage::fp16) pj = static_cast<float>(round_to_fp16(pj));
        if (p.storage == Storage::fp8) pj = static_cast<float>(round_to_e4m3(round_to_fp16(pj) * kE4m3Max));
        const float* vj = &p.v.values[j * d];
        for (std::size_t c = 0; c < d; ++c) acc[c] += pj * vj[c];
    }
    for (std::size_t c = 0; c < d; ++c) {
        const double o_c = p.storage == Storage::fp8 ? acc[c] * (p.v.row_scale[0] / kE4m3Max) : acc[c];
        out[c] = p.storage == Storage::fp32 ? static_cast<double>(static_cast<float>(o_c)) : round_to_fp16(o_c);
    }
}

// The FlashAttention loop over key tiles of block_rows keys with FP32 state (m, l, acc).
void flash_row(const Prepared& p, std::size_t i, const Fp8ExperimentOptions& o, float scale, double* out) {
    const std::size_t n = o.seq_len, d = o.head_dim, bc = o.block_rows;
    const float p_scale = p.storage == Storage::fp8 ? 256.0f : 1.0f;  // 2^8, exact
    float m = -std::numeric_limits<float>::infinity(), l = 0;
    std::vector<float> acc(d, 0.0f), tile(d);
    std::vector<float> s(bc);
    for (std::size_t j0 = 0; j0 < n; j0 += bc) {
        const std::size_t j1 = std::min(n, j0 + bc);
        float m_new = m;
        raw_scores(&p.q.values[i * d], p.k.values, d, j0, j1, s.data());
        for (std::size_t j = j0; j < j1; ++j) {
            const float descale = static_cast<float>(p.q.row_scale[i] * p.k.row_scale[j]) * scale;
            s[j - j0] *= descale;
            m_new = std::max(m_new, s[j - j0]);
        }
        const float correction = std::exp(m - m_new);  // 0 on the first tile (m = -inf)
        std::fill(tile.begin(), tile.end(), 0.0f);
        float row_sum = 0;
        for (std::size_t j = j0; j < j1; ++j) {
            const float pj = std::exp(s[j - j0] - m_new);
            row_sum += pj;  // l uses the FP32 weights, as the kernels do
            const float pq = p.storage == Storage::fp8 ? static_cast<float>(round_to_e4m3(pj * p_scale))
                                                       : static_cast<float>(round_to_fp16(pj));
            const float* vj = &p.v.values[j * d];
            for (std::size_t c = 0; c < d; ++c) tile[c] += pq * vj[c];
        }
        const float v_scale = static_cast<float>(p.v.row_scale[j0]);  // one scale per V block
        l = l * correction + row_sum;
        for (std::size_t c = 0; c < d; ++c) acc[c] = acc[c] * correction + tile[c] * v_scale;
        m = m_new;
    }
    for (std::size_t c = 0; c < d; ++c) out[c] = round_to_fp16(acc[c] / (l * p_scale));
}

void require_shape(const char* name, const Tensor4<double>& t, const Fp8ExperimentOptions& o) {
    const Shape4 want{1, 1, o.seq_len, o.head_dim};
    if (!(t.shape == want) || t.data.size() != want.numel()) {
        throw Error(std::string(name) + ": must have shape " + want.str() + " (from the options), got " + t.shape.str());
    }
}

}  // namespace

std::string_view numerics_method_name(NumericsMethod method) {
    switch (method) {
        case NumericsMethod::fp32_standard: return "fp32_standard";
        case NumericsMethod::fp16_standard: return "fp16_standard";
        case NumericsMethod::fp16_flash: return "fp16_flash";
        case NumericsMethod::fp8_standard_per_tensor: return "fp8_standard_per_tensor";
        case NumericsMethod::fp8_flash_per_tensor: return "fp8_flash_per_tensor";
        case NumericsMethod::fp8_flash_per_block: return "fp8_flash_per_block";
        case NumericsMethod::fp8_flash_per_tensor_hadamard: return "fp8_flash_per_tensor_hadamard";
        case NumericsMethod::fp8_flash_per_block_hadamard: return "fp8_flash_per_block_hadamard";
    }
    throw Error("method: not a NumericsMethod");
}

std::optional<PublishedRmse> fa3_table3_rmse(NumericsMethod method) {
    // FA3 Table 3. "No block quant" is FA3 FP8 with incoherent processing and per-tensor scales;
    // "No incoherent processing" is FA3 FP8 with block quantisation only.
    switch (method) {
        case NumericsMethod::fp16_standard: return PublishedRmse{"Baseline FP16", 3.2e-4};
        case NumericsMethod::fp16_flash: return PublishedRmse{"FlashAttention-2/3 FP16", 1.9e-4};
        case NumericsMethod::fp8_standard_per_tensor: return PublishedRmse{"Baseline FP8", 2.4e-2};
        case NumericsMethod::fp8_flash_per_block: return PublishedRmse{"No incoherent processing", 2.4e-2};
        case NumericsMethod::fp8_flash_per_tensor_hadamard: return PublishedRmse{"No block quant", 9.3e-3};
        case NumericsMethod::fp8_flash_per_block_hadamard: return PublishedRmse{"FlashAttention-3 FP8", 9.1e-3};
        default: return std::nullopt;
    }
}

OutlierQkv outlier_qkv(const Fp8ExperimentOptions& options) {
    validate(options);
    const Shape4 shape{1, 1, options.seq_len, options.head_dim};
    return {outlier_tensor(shape, options, 0), outlier_tensor(shape, options, 1), outlier_tensor(shape, options, 2)};
}

std::vector<double> emulated_attention(const OutlierQkv& qkv, NumericsMethod method,
                                       const Fp8ExperimentOptions& options) {
    validate(options);
    require_shape("q", qkv.q, options);
    require_shape("k", qkv.k, options);
    require_shape("v", qkv.v, options);
    numerics_method_name(method);  // rejects values outside the enum
    const Prepared p = prepare(qkv, method, options);
    const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(options.head_dim)));
    std::vector<double> out(options.eval_rows * options.head_dim);
    for (std::size_t i = 0; i < options.eval_rows; ++i) {
        if (p.flash) flash_row(p, i, options, scale, &out[i * options.head_dim]);
        else standard_row(p, i, options, scale, &out[i * options.head_dim]);
    }
    return out;
}

std::vector<NumericsResult> fp8_experiment(const Fp8ExperimentOptions& options) {
    const OutlierQkv qkv = outlier_qkv(options);
    const std::size_t rows = options.eval_rows, d = options.head_dim;
    Tensor4<double> q_rows({1, 1, rows, d},
                           std::vector<double>(qkv.q.data.begin(), qkv.q.data.begin() + static_cast<std::ptrdiff_t>(rows * d)));
    const auto reference = sdpa(q_rows, qkv.k, qkv.v).output.data;
    std::vector<NumericsResult> results;
    for (NumericsMethod m : kNumericsMethods) {
        const std::vector<double> out = emulated_attention(qkv, m, options);
        double sum_sq = 0;
        for (std::size_t n = 0; n < out.size(); ++n) sum_sq += (out[n] - reference[n]) * (out[n] - reference[n]);
        results.push_back({m, std::sqrt(sum_sq / static_cast<double>(out.size()))});
    }
    return results;
}

}  // namespace attn
