#pragma once
// Size of the KV cache under the attention schemes of the inference era. During autoregressive
// decoding every layer keeps, for every past token, what its attention needs to score and mix
// that token again (Shazeer 2019, arXiv:1911.02150, Sec. 2.4; Kwon et al. 2023, PagedAttention,
// Sec. 3). Per token and layer that is:
//
//   MHA      2 x H x d_h          elements (one K and one V row per head)
//   MQA      2 x 1 x d_h          (Shazeer 2019: one K/V head shared by all query heads)
//   GQA-G    2 x G x d_h          (Ainslie et al. 2023, arXiv:2305.13245, Sec. 2.2)
//   MLA      d_c + d_h^R          (DeepSeek-V2, arXiv:2405.04434, Sec. 2.1 and Table 1: the joint
//                                  KV latent c_t^KV and the decoupled RoPE key k_t^R, which all
//                                  heads share; no per-head K or V is stored)
//
// Per request the per-token size is multiplied by the cached tokens: the context, or under a
// sliding window of w tokens min(context, w) -- Mistral 7B's rolling buffer cache (Jiang et al.
// 2023, arXiv:2310.06825, Sec. 2) overwrites position i mod w, so the cache stops growing.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attn/models/model_presets.hpp"

namespace attn::kvcache {

// Element type the cache is stored in. bf16 is listed apart from fp16 so a page can name it;
// both take 2 bytes (sizes come from attn::cost::bytes_per_element).
enum class KvDtype { fp32, fp16, bf16, fp8 };

std::string_view kv_dtype_name(KvDtype t);  // "fp32", "fp16", "bf16", "fp8"
// The dtype with this name; throws attn::Error listing the valid names otherwise.
KvDtype kv_dtype_from_name(std::string_view name);
std::uint64_t kv_dtype_bytes(KvDtype t);  // 4, 2, 2, 1

enum class KvScheme { mha, mqa, gqa, mla };

std::string_view kv_scheme_name(KvScheme s);  // "mha", "mqa", "gqa", "mla"

// One model's attention, as far as the cache is concerned.
struct KvConfig {
    KvScheme scheme = KvScheme::mha;
    std::uint64_t layers = 0;
    std::uint64_t q_heads = 0;
    std::uint64_t kv_heads = 0;        // MHA: q_heads; MQA: 1; GQA: G, dividing q_heads; MLA: 0 (none cached)
    std::uint64_t head_dim = 0;        // d_h of the cached K and V rows; MLA: 0 (none cached)
    std::uint64_t latent_dim = 0;      // MLA only: d_c
    std::uint64_t rope_dim = 0;        // MLA only: d_h^R of the shared decoupled RoPE key
    std::uint64_t sliding_window = 0;  // tokens each layer keeps; 0 = the whole context
};

// Constructors for an explicit configuration; each validates like validate_kv_config.
KvConfig mha_config(std::uint64_t layers, std::uint64_t heads, std::uint64_t head_dim);
KvConfig mqa_config(std::uint64_t layers, std::uint64_t q_heads, std::uint64_t head_dim);
KvConfig gqa_config(std::uint64_t layers, std::uint64_t q_heads, std::uint64_t groups, std::uint64_t head_dim);
KvConfig mla_config(std::uint64_t layers, std::uint64_t q_heads, std::uint64_t latent_dim, std::uint64_t rope_dim);

// The cache of a model preset: MLA when the preset has MLA dimensions, otherwise MHA / MQA / GQA
// from its kv_heads, with the preset's sliding window.
KvConfig kv_config_from_preset(const models::ModelPreset& preset);

// The cache `preset` would have under `scheme`, its layers, query heads, head size and sliding
// window kept -- the comparison DeepSeek-V2 draws at one shape (arXiv:2405.04434, Table 1): MHA
// caches one K/V head per query head, MQA one, GQA `gqa_groups` of them (0 = the preset's own count
// when it uses GQA, else SchemeComparisonShape's 8), MLA the preset's d_c and d_h^R, or
// SchemeComparisonShape's DeepSeek-V2 values for a model without MLA. Throws attn::Error when the
// result is not a valid configuration (e.g. 8 groups of 25 query heads).
KvConfig kv_config_for_scheme(const models::ModelPreset& preset, KvScheme scheme, std::uint64_t gqa_groups = 0);

// The scheme with this name ("mha", "mqa", "gqa", "mla"); throws attn::Error listing them otherwise.
KvScheme kv_scheme_from_name(std::string_view name);

// Throws attn::Error naming the field when the configuration is not one of the four schemes
// (every count >= 1 and <= 2^20 where used, G dividing q_heads, unused fields 0).
void validate_kv_config(const KvConfig& config);

// One factor of the per-token size: bytes_per_token is the product of all terms' values.
struct KvTerm {
    std::string symbol;   // as the page prints it: "2", "L", "H_kv", "d_h", "d_c + d_R", "bytes"
    std::string meaning;  // "K and V", "layers", ...
    std::uint64_t value;
};

struct KvBytes {
    KvConfig config;
    KvDtype dtype;
    std::string formula;                        // "2 x L x H_kv x d_h x bytes" or "L x (d_c + d_R) x bytes"
    std::vector<KvTerm> terms;                  // the factors of formula, in order
    std::uint64_t elements_per_token_per_layer;  // 2 H_kv d_h, or d_c + d_R
    std::uint64_t bytes_per_token;              // over all layers
    std::uint64_t context_tokens;
    std::uint64_t cached_tokens;                // min(context, window) under a sliding window
    std::uint64_t batch;
    std::uint64_t bytes_per_request;            // bytes_per_token x cached_tokens
    std::uint64_t total_bytes;                  // bytes_per_request x batch
};

// The cache of `batch` requests of `context_tokens` tokens each. context_tokens in [1, 2^32],
// batch in [1, 2^20]; throws attn::Error if a product does not fit in 64 bits.
KvBytes kv_cache_bytes(const KvConfig& config, KvDtype dtype, std::uint64_t context_tokens,
                       std::uint64_t batch = 1);

// The part-4 comparison: one model shape under MHA, MQA, GQA-G and MLA. The defaults are the
// plan's "Llama-3-70B-like" configuration (80 layers, 64 query heads of 128, GQA-8, and an
// MLA with DeepSeek-V2's d_c = 512 and d_h^R = 64).
struct SchemeComparisonShape {
    std::uint64_t layers = 80;
    std::uint64_t q_heads = 64;
    std::uint64_t head_dim = 128;
    std::uint64_t gqa_groups = 8;
    std::uint64_t latent_dim = 512;
    std::uint64_t rope_dim = 64;
};

// Rows in the order MHA, MQA, GQA, MLA.
std::vector<KvBytes> compare_kv_schemes(const SchemeComparisonShape& shape, KvDtype dtype,
                                        std::uint64_t context_tokens, std::uint64_t batch = 1);

}  // namespace attn::kvcache
