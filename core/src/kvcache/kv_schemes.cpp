#include "attn/kvcache/kv_schemes.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "attn/cost/roofline.hpp"
#include "attn/error.hpp"

namespace attn::kvcache {
namespace {

constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 20;   // layers, heads, dims, window, batch
constexpr std::uint64_t kMaxContext = std::uint64_t{1} << 32;  // tokens

constexpr std::array<KvDtype, 4> kDtypes{KvDtype::fp32, KvDtype::fp16, KvDtype::bf16, KvDtype::fp8};

void require_count(const char* name, std::uint64_t value, std::uint64_t hi) {
    if (value < 1 || value > hi) {
        throw Error(std::string(name) + ": must be in [1, " + std::to_string(hi) + "], got " + std::to_string(value));
    }
}

void require_zero(const char* name, std::uint64_t value, KvScheme s) {
    if (value != 0) {
        throw Error(std::string(name) + ": must be 0 under " + std::string(kv_scheme_name(s)) + ", got " +
                    std::to_string(value));
    }
}

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const char* what) {
    if (b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b) {
        throw Error(std::string(what) + ": does not fit in 64 bits (" + std::to_string(a) + " x " + std::to_string(b) +
                    ")");
    }
    return a * b;
}

KvConfig validated(KvConfig c) {
    validate_kv_config(c);
    return c;
}

}  // namespace

std::string_view kv_dtype_name(KvDtype t) {
    switch (t) {
        case KvDtype::fp32: return "fp32";
        case KvDtype::fp16: return "fp16";
        case KvDtype::bf16: return "bf16";
        case KvDtype::fp8: return "fp8";
    }
    throw Error("dtype: unknown enumerator " + std::to_string(static_cast<int>(t)));
}

KvDtype kv_dtype_from_name(std::string_view name) {
    for (KvDtype t : kDtypes) {
        if (kv_dtype_name(t) == name) return t;
    }
    throw Error("dtype: unknown name '" + std::string(name) + "'; valid names are fp32, fp16, bf16, fp8");
}

std::uint64_t kv_dtype_bytes(KvDtype t) {
    // The cost model owns element sizes; bf16 has fp16's size.
    switch (t) {
        case KvDtype::fp32: return cost::bytes_per_element(cost::Precision::fp32);
        case KvDtype::fp16:
        case KvDtype::bf16: return cost::bytes_per_element(cost::Precision::fp16);
        case KvDtype::fp8: return cost::bytes_per_element(cost::Precision::fp8);
    }
    throw Error("dtype: unknown enumerator " + std::to_string(static_cast<int>(t)));
}

std::string_view kv_scheme_name(KvScheme s) {
    switch (s) {
        case KvScheme::mha: return "mha";
        case KvScheme::mqa: return "mqa";
        case KvScheme::gqa: return "gqa";
        case KvScheme::mla: return "mla";
    }
    throw Error("scheme: unknown enumerator " + std::to_string(static_cast<int>(s)));
}

void validate_kv_config(const KvConfig& c) {
    const std::string_view name = kv_scheme_name(c.scheme);  // throws on a bad enumerator
    require_count("layers", c.layers, kMaxCount);
    require_count("q_heads", c.q_heads, kMaxCount);
    if (c.sliding_window > kMaxContext) {
        throw Error("sliding_window: must be 0 (full attention) or in [1, " + std::to_string(kMaxContext) +
                    "], got " + std::to_string(c.sliding_window));
    }
    if (c.scheme == KvScheme::mla) {
        require_count("latent_dim", c.latent_dim, kMaxCount);
        require_count("rope_dim", c.rope_dim, kMaxCount);
        require_zero("kv_heads", c.kv_heads, c.scheme);
        require_zero("head_dim", c.head_dim, c.scheme);
        return;
    }
    require_count("head_dim", c.head_dim, kMaxCount);
    require_count("kv_heads", c.kv_heads, c.q_heads);
    require_zero("latent_dim", c.latent_dim, c.scheme);
    require_zero("rope_dim", c.rope_dim, c.scheme);
    if (c.scheme == KvScheme::mha && c.kv_heads != c.q_heads) {
        throw Error("kv_heads: must equal q_heads (" + std::to_string(c.q_heads) + ") under mha, got " +
                    std::to_string(c.kv_heads));
    }
    if (c.scheme == KvScheme::mqa && c.kv_heads != 1) {
        throw Error("kv_heads: must be 1 under mqa, got " + std::to_string(c.kv_heads));
    }
    if (c.q_heads % c.kv_heads != 0) {
        throw Error("kv_heads: must divide q_heads (" + std::to_string(c.q_heads) + ") under " + std::string(name) +
                    ", got " + std::to_string(c.kv_heads));
    }
}

KvConfig mha_config(std::uint64_t layers, std::uint64_t heads, std::uint64_t head_dim) {
    return validated({KvScheme::mha, layers, heads, heads, head_dim, 0, 0, 0});
}

KvConfig mqa_config(std::uint64_t layers, std::uint64_t q_heads, std::uint64_t head_dim) {
    return validated({KvScheme::mqa, layers, q_heads, 1, head_dim, 0, 0, 0});
}

KvConfig gqa_config(std::uint64_t layers, std::uint64_t q_heads, std::uint64_t groups, std::uint64_t head_dim) {
    return validated({KvScheme::gqa, layers, q_heads, groups, head_dim, 0, 0, 0});
}

KvConfig mla_config(std::uint64_t layers, std::uint64_t q_heads, std::uint64_t latent_dim, std::uint64_t rope_dim) {
    return validated({KvScheme::mla, layers, q_heads, 0, 0, latent_dim, rope_dim, 0});
}

KvConfig kv_config_from_preset(const models::ModelPreset& p) {
    KvConfig c;
    if (p.mla) {
        c = mla_config(p.layers.value, p.q_heads.value, p.mla->kv_lora_rank.value, p.mla->qk_rope_head_dim.value);
    } else if (p.kv_heads.value == p.q_heads.value) {
        c = mha_config(p.layers.value, p.q_heads.value, p.head_dim.value);
    } else if (p.kv_heads.value == 1) {
        c = mqa_config(p.layers.value, p.q_heads.value, p.head_dim.value);
    } else {
        c = gqa_config(p.layers.value, p.q_heads.value, p.kv_heads.value, p.head_dim.value);
    }
    c.sliding_window = p.sliding_window.value;
    return validated(c);
}

KvScheme kv_scheme_from_name(std::string_view name) {
    for (KvScheme s : {KvScheme::mha, KvScheme::mqa, KvScheme::gqa, KvScheme::mla}) {
        if (kv_scheme_name(s) == name) return s;
    }
    throw Error("scheme: unknown name '" + std::string(name) + "'; valid names are mha, mqa, gqa, mla");
}

KvConfig kv_config_for_scheme(const models::ModelPreset& p, KvScheme scheme, std::uint64_t gqa_groups) {
    const SchemeComparisonShape defaults;
    const std::uint64_t layers = p.layers.value, q_heads = p.q_heads.value, head_dim = p.head_dim.value;
    KvConfig c;
    switch (scheme) {
        case KvScheme::mha: c = mha_config(layers, q_heads, head_dim); break;
        case KvScheme::mqa: c = mqa_config(layers, q_heads, head_dim); break;
        case KvScheme::gqa: {
            const bool preset_is_gqa = !p.mla && p.kv_heads.value > 1 && p.kv_heads.value < q_heads;
            const std::uint64_t groups = gqa_groups != 0 ? gqa_groups : preset_is_gqa ? p.kv_heads.value : defaults.gqa_groups;
            c = gqa_config(layers, q_heads, groups, head_dim);
            break;
        }
        case KvScheme::mla:
            c = p.mla ? mla_config(layers, q_heads, p.mla->kv_lora_rank.value, p.mla->qk_rope_head_dim.value)
                      : mla_config(layers, q_heads, defaults.latent_dim, defaults.rope_dim);
            break;
        default: throw Error("scheme: unknown enumerator " + std::to_string(static_cast<int>(scheme)));
    }
    c.sliding_window = p.sliding_window.value;
    return validated(c);
}

KvBytes kv_cache_bytes(const KvConfig& config, KvDtype dtype, std::uint64_t context_tokens, std::uint64_t batch) {
    validate_kv_config(config);
    const std::uint64_t bytes = kv_dtype_bytes(dtype);
    require_count("context_tokens", context_tokens, kMaxContext);
    require_count("batch", batch, kMaxCount);

    KvBytes r{config, dtype, {}, {}, 0, 0, context_tokens, 0, batch, 0, 0};
    const std::string dtype_meaning = "bytes per " + std::string(kv_dtype_name(dtype)) + " element";
    if (config.scheme == KvScheme::mla) {
        // DeepSeek-V2 Sec. 2.1.3: only c_t^KV (eq. 9) and the shared RoPE key k_t^R (eq. 15) are cached.
        r.formula = "L x (d_c + d_R) x bytes";
        r.elements_per_token_per_layer = config.latent_dim + config.rope_dim;
        r.terms = {{"L", "layers", config.layers},
                   {"d_c + d_R", "latent c_KV (d_c = " + std::to_string(config.latent_dim) +
                                     ") + shared RoPE key k_R (d_R = " + std::to_string(config.rope_dim) + ")",
                    r.elements_per_token_per_layer},
                   {"bytes", dtype_meaning, bytes}};
    } else {
        r.formula = "2 x L x H_kv x d_h x bytes";
        r.elements_per_token_per_layer = checked_mul(2 * config.kv_heads, config.head_dim, "elements per token");
        r.terms = {{"2", "K and V", 2},
                   {"L", "layers", config.layers},
                   {"H_kv", "K/V heads", config.kv_heads},
                   {"d_h", "head dimension", config.head_dim},
                   {"bytes", dtype_meaning, bytes}};
    }
    r.bytes_per_token =
        checked_mul(checked_mul(r.elements_per_token_per_layer, config.layers, "bytes per token"), bytes,
                    "bytes per token");
    r.cached_tokens = config.sliding_window == 0 ? context_tokens : std::min(context_tokens, config.sliding_window);
    r.bytes_per_request = checked_mul(r.bytes_per_token, r.cached_tokens, "bytes per request");
    r.total_bytes = checked_mul(r.bytes_per_request, batch, "total bytes");
    return r;
}

std::vector<KvBytes> compare_kv_schemes(const SchemeComparisonShape& s, KvDtype dtype, std::uint64_t context_tokens,
                                        std::uint64_t batch) {
    const std::array<KvConfig, 4> configs{mha_config(s.layers, s.q_heads, s.head_dim),
                                          mqa_config(s.layers, s.q_heads, s.head_dim),
                                          gqa_config(s.layers, s.q_heads, s.gqa_groups, s.head_dim),
                                          mla_config(s.layers, s.q_heads, s.latent_dim, s.rope_dim)};
    std::vector<KvBytes> rows;
    for (const KvConfig& c : configs) rows.push_back(kv_cache_bytes(c, dtype, context_tokens, batch));
    return rows;
}

}  // namespace attn::kvcache
