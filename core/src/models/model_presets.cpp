#include "attn/models/model_presets.hpp"

#include <array>
#include <string>

#include "attn/error.hpp"

namespace attn::models {
namespace {

constexpr SourcedCount kFullAttention{0, "none: every layer attends to the whole (causal) context"};

// The Llama 3 paper (arXiv:2407.21783) names the models Llama 3; its 128K-context checkpoints were
// released as Llama 3.1, whose config.json files give the head size and the context length.
const std::array<ModelPreset, 12> kPresets{{
    {"bert-base", "BERT-Base",
     {12, "Devlin et al., 'BERT' (NAACL 2019), Sec. 3: BERT_BASE (L=12, H=768, A=12)"},
     {768, "Devlin et al., 'BERT' (NAACL 2019), Sec. 3: BERT_BASE (L=12, H=768, A=12)"},
     {12, "Devlin et al., 'BERT' (NAACL 2019), Sec. 3: BERT_BASE (L=12, H=768, A=12)"},
     {12, "multi-head attention: one K/V head per query head (Devlin et al. 2019, Sec. 3)"},
     {64, "derived: H / A = 768 / 12 (google-bert/bert-base-uncased, config.json: hidden_size 768, "
          "num_attention_heads 12)"},
     {512, "google-bert/bert-base-uncased, config.json: max_position_embeddings 512"},
     {0, "none: bidirectional full attention over the sequence"},
     {110000000, "Devlin et al., 'BERT' (NAACL 2019), Sec. 3: BERT_BASE, Total Parameters = 110M"},
     std::nullopt},

    {"bert-large", "BERT-Large",
     {24, "Devlin et al., 'BERT' (NAACL 2019), Sec. 3: BERT_LARGE (L=24, H=1024, A=16)"},
     {1024, "Devlin et al., 'BERT' (NAACL 2019), Sec. 3: BERT_LARGE (L=24, H=1024, A=16)"},
     {16, "Devlin et al., 'BERT' (NAACL 2019), Sec. 3: BERT_LARGE (L=24, H=1024, A=16)"},
     {16, "multi-head attention: one K/V head per query head (Devlin et al. 2019, Sec. 3)"},
     {64, "derived: H / A = 1024 / 16 (google-bert/bert-large-uncased, config.json: hidden_size 1024, "
          "num_attention_heads 16)"},
     {512, "google-bert/bert-large-uncased, config.json: max_position_embeddings 512"},
     {0, "none: bidirectional full attention over the sequence"},
     {340000000, "Devlin et al., 'BERT' (NAACL 2019), Sec. 3: BERT_LARGE, Total Parameters = 340M"},
     std::nullopt},

    {"gpt2", "GPT-2 small (124M)",
     {12, "Radford et al., 'Language Models are Unsupervised Multitask Learners' (2019), Table 2: smallest model "
          "(listed as 117M parameters; 124M counted with embeddings), 12 layers, d_model 768; "
          "openai-community/gpt2, config.json: n_layer 12"},
     {768, "Radford et al. (2019), Table 2: d_model 768; openai-community/gpt2, config.json: n_embd 768"},
     {12, "openai-community/gpt2, config.json: n_head 12"},
     {12, "multi-head attention: one K/V head per query head (openai-community/gpt2, config.json: n_head 12)"},
     {64, "derived: n_embd / n_head = 768 / 12 (openai-community/gpt2, config.json)"},
     {1024, "openai-community/gpt2, config.json: n_positions 1024; Radford et al. (2019), Sec. 2.3: context 1024 tokens"},
     kFullAttention,
     {124439808, "derived from openai-community/gpt2, config.json (n_vocab 50257, n_positions 1024, n_embd 768, "
      "n_layer 12): tied token embedding 50257 x 768 + positions 1024 x 768 + 12 x (12 x 768^2 + 13 x 768) + final "
      "norm 2 x 768"},
     std::nullopt},

    {"gpt2-xl", "GPT-2 XL (1.5B)",
     {48, "Radford et al. (2019), Table 2: 1542M model, 48 layers, d_model 1600; openai-community/gpt2-xl, "
          "config.json: n_layer 48"},
     {1600, "Radford et al. (2019), Table 2: d_model 1600; openai-community/gpt2-xl, config.json: n_embd 1600"},
     {25, "openai-community/gpt2-xl, config.json: n_head 25"},
     {25, "multi-head attention: one K/V head per query head (openai-community/gpt2-xl, config.json: n_head 25)"},
     {64, "derived: n_embd / n_head = 1600 / 25 (openai-community/gpt2-xl, config.json)"},
     {1024, "openai-community/gpt2-xl, config.json: n_positions 1024"},
     kFullAttention,
     {1557611200, "derived from openai-community/gpt2-xl, config.json (n_vocab 50257, n_positions 1024, n_embd "
      "1600, n_layer 48): 50257 x 1600 + 1024 x 1600 + 48 x (12 x 1600^2 + 13 x 1600) + 2 x 1600 (Radford et al. 2019, "
      "Table 2, rounds it to 1542M)"},
     std::nullopt},

    {"gpt3-175b", "GPT-3 175B",
     {96, "Brown et al., 'Language Models are Few-Shot Learners' (2020), Table 2.1: GPT-3 175B, n_layers 96"},
     {12288, "Brown et al. (2020), Table 2.1: GPT-3 175B, d_model 12288"},
     {96, "Brown et al. (2020), Table 2.1: GPT-3 175B, n_heads 96"},
     {96, "multi-head attention: one K/V head per query head (Brown et al. 2020, Sec. 2.1: the GPT-2 architecture)"},
     {128, "Brown et al. (2020), Table 2.1: GPT-3 175B, d_head 128"},
     {2048, "Brown et al. (2020), Sec. 2.1: context window of n_ctx = 2048 tokens for all models"},
     {0, "none counted: Brown et al. (2020), Sec. 2.1, alternate dense and locally banded sparse attention layers "
         "but do not publish the band width, so every layer is modelled as dense"},
     {175000000000, "Brown et al. (2020), Table 2.1: GPT-3 175B, n_params 175.0B"},
     std::nullopt},

    {"opt-13b", "OPT-13B",
     {40, "Zhang et al., 'OPT: Open Pre-trained Transformer Language Models' (2022), Table 1: 13B, 40 layers"},
     {5120, "Zhang et al. (2022), Table 1: 13B, d_model 5120"},
     {40, "Zhang et al. (2022), Table 1: 13B, 40 heads"},
     {40, "multi-head attention: one K/V head per query head (facebook/opt-13b, config.json: num_attention_heads 40)"},
     {128, "derived: d_model / heads = 5120 / 40 (Zhang et al. 2022, Table 1)"},
     {2048, "facebook/opt-13b, config.json: max_position_embeddings 2048"},
     kFullAttention,
     {13000000000, "Zhang et al. (2022), Table 1: 13B"},
     std::nullopt},

    {"mistral-7b", "Mistral 7B (v0.1)",
     {32, "Jiang et al., 'Mistral 7B' (arXiv:2310.06825), Table 1: n_layers 32"},
     {4096, "Jiang et al. (2023), Table 1: dim 4096"},
     {32, "Jiang et al. (2023), Table 1: n_heads 32"},
     {8, "Jiang et al. (2023), Table 1: n_kv_heads 8"},
     {128, "Jiang et al. (2023), Table 1: head_dim 128"},
     {8192, "Jiang et al. (2023), Table 1: context_len 8192"},
     {4096, "Jiang et al. (2023), Table 1: window_size 4096 (sliding window attention, Sec. 2)"},
     {7241732096, "derived from mistralai/Mistral-7B-v0.1, config.json (vocab_size 32000, hidden_size 4096, "
      "intermediate_size 14336, 32 layers, 8 K/V heads of 128, untied embeddings): 2 x 32000 x 4096 + 32 x (2 x 4096^2 "
      "+ 2 x 4096 x 1024 + 3 x 4096 x 14336 + 2 x 4096) + 4096"},
     std::nullopt},

    {"deepseek-v2", "DeepSeek-V2 (236B MoE)",
     {60, "DeepSeek-AI, 'DeepSeek-V2' (arXiv:2405.04434), Sec. 3.1.2: 60 Transformer layers; "
          "deepseek-ai/DeepSeek-V2, config.json: num_hidden_layers 60"},
     {5120, "DeepSeek-V2 (arXiv:2405.04434), Sec. 3.1.2: hidden dimension 5120; config.json: hidden_size 5120"},
     {128, "DeepSeek-V2 (arXiv:2405.04434), Sec. 3.1.2: n_h = 128 attention heads; config.json: num_attention_heads 128"},
     {128, "deepseek-ai/DeepSeek-V2, config.json: num_key_value_heads 128 (K and V are rebuilt per head from the "
           "cached latent, see mla)"},
     {128, "DeepSeek-V2 (arXiv:2405.04434), Sec. 3.1.2: per-head dimension d_h = 128"},
     {163840, "deepseek-ai/DeepSeek-V2, config.json: max_position_embeddings 163840 (4096 x YaRN factor 40; the "
              "paper, Sec. 3.1.4, calls the extended window 128K)"},
     kFullAttention,
     {21000000000, "DeepSeek-V2 (arXiv:2405.04434), abstract: 236B total parameters, of which 21B are "
      "activated for each token (Mixture-of-Experts)"},
     MlaDims{{512, "DeepSeek-V2 (arXiv:2405.04434), Sec. 3.1.2: KV compression dimension d_c = 512; config.json: "
                   "kv_lora_rank 512"},
             {64, "DeepSeek-V2 (arXiv:2405.04434), Sec. 3.1.2: decoupled per-head dimension d_h^R = 64; config.json: "
                  "qk_rope_head_dim 64"},
             {128, "deepseek-ai/DeepSeek-V2, config.json: qk_nope_head_dim 128"},
             {128, "deepseek-ai/DeepSeek-V2, config.json: v_head_dim 128"},
             {1536, "DeepSeek-V2 (arXiv:2405.04434), Sec. 3.1.2: query compression dimension d'_c = 1536; config.json: "
                    "q_lora_rank 1536"}},
     SourcedCount{236000000000, "DeepSeek-V2 (arXiv:2405.04434), abstract: 236B total parameters, of which 21B are "
                                "activated for each token"}},

    {"llama3-8b", "Llama 3.1 8B",
     {32, "Llama Team, 'The Llama 3 Herd of Models' (arXiv:2407.21783), Table 3: 8B, 32 layers"},
     {4096, "Llama 3 Herd (arXiv:2407.21783), Table 3: 8B, model dimension 4,096"},
     {32, "Llama 3 Herd (arXiv:2407.21783), Table 3: 8B, 32 attention heads"},
     {8, "Llama 3 Herd (arXiv:2407.21783), Table 3: 8B, 8 key/value heads"},
     {128, "meta-llama/Llama-3.1-8B, config.json: head_dim 128 (= 4096 / 32)"},
     {131072, "meta-llama/Llama-3.1-8B, config.json: max_position_embeddings 131072 (the paper's 128K, Sec. 3.4.2)"},
     kFullAttention,
     {8030261248, "derived from meta-llama/Llama-3.1-8B, config.json (vocab_size 128256, hidden_size 4096, "
      "intermediate_size 14336, 32 layers, 8 K/V heads of 128, untied embeddings): 2 x 128256 x 4096 + 32 x (2 x "
      "4096^2 + 2 x 4096 x 1024 + 3 x 4096 x 14336 + 2 x 4096) + 4096"},
     std::nullopt},

    {"llama3-70b", "Llama 3.1 70B",
     {80, "Llama Team, 'The Llama 3 Herd of Models' (arXiv:2407.21783), Table 3: 70B, 80 layers"},
     {8192, "Llama 3 Herd (arXiv:2407.21783), Table 3: 70B, model dimension 8,192"},
     {64, "Llama 3 Herd (arXiv:2407.21783), Table 3: 70B, 64 attention heads"},
     {8, "Llama 3 Herd (arXiv:2407.21783), Table 3: 70B, 8 key/value heads"},
     {128, "meta-llama/Llama-3.1-70B, config.json: head_dim 128 (= 8192 / 64)"},
     {131072, "meta-llama/Llama-3.1-70B, config.json: max_position_embeddings 131072 (the paper's 128K)"},
     kFullAttention,
     {70553706496, "derived from meta-llama/Llama-3.1-70B, config.json (vocab_size 128256, hidden_size 8192, "
      "intermediate_size 28672, 80 layers, 8 K/V heads of 128, untied embeddings): 2 x 128256 x 8192 + 80 x (2 x "
      "8192^2 + 2 x 8192 x 1024 + 3 x 8192 x 28672 + 2 x 8192) + 8192"},
     std::nullopt},

    {"llama3-405b", "Llama 3.1 405B",
     {126, "Llama Team, 'The Llama 3 Herd of Models' (arXiv:2407.21783), Table 3: 405B, 126 layers"},
     {16384, "Llama 3 Herd (arXiv:2407.21783), Table 3: 405B, model dimension 16,384"},
     {128, "Llama 3 Herd (arXiv:2407.21783), Table 3: 405B, 128 attention heads"},
     {8, "Llama 3 Herd (arXiv:2407.21783), Table 3: 405B, 8 key/value heads"},
     {128, "meta-llama/Llama-3.1-405B, config.json: head_dim 128 (= 16384 / 128)"},
     {131072, "meta-llama/Llama-3.1-405B, config.json: max_position_embeddings 131072 (the paper's 128K)"},
     kFullAttention,
     {405853388800, "derived from meta-llama/Llama-3.1-405B, config.json (vocab_size 128256, hidden_size "
      "16384, intermediate_size 53248, 126 layers, 8 K/V heads of 128, untied embeddings): 2 x 128256 x 16384 + 126 x "
      "(2 x 16384^2 + 2 x 16384 x 1024 + 3 x 16384 x 53248 + 2 x 16384) + 16384"},
     std::nullopt},

    {"deepseek-v3", "DeepSeek-V3 (671B MoE)",
     {61, "DeepSeek-AI, 'DeepSeek-V3 Technical Report' (arXiv:2412.19437), Sec. 4.2: 61 Transformer layers; "
          "deepseek-ai/DeepSeek-V3, config.json: num_hidden_layers 61"},
     {7168, "DeepSeek-V3 (arXiv:2412.19437), Sec. 4.2: hidden dimension 7168; config.json: hidden_size 7168"},
     {128, "DeepSeek-V3 (arXiv:2412.19437), Sec. 4.2: n_h = 128 attention heads; config.json: num_attention_heads 128"},
     {128, "deepseek-ai/DeepSeek-V3, config.json: num_key_value_heads 128 (K and V are rebuilt per head from the "
           "cached latent, see mla)"},
     {128, "DeepSeek-V3 (arXiv:2412.19437), Sec. 4.2: per-head dimension d_h = 128"},
     {163840, "deepseek-ai/DeepSeek-V3, config.json: max_position_embeddings 163840 (the report, Sec. 4.3, extends "
              "the window to 128K with YaRN)"},
     kFullAttention,
     {37000000000, "DeepSeek-V3 (arXiv:2412.19437), abstract: 671B total parameters with 37B activated "
      "for each token (Mixture-of-Experts)"},
     MlaDims{{512, "DeepSeek-V3 (arXiv:2412.19437), Sec. 4.2: KV compression dimension d_c = 512; config.json: "
                   "kv_lora_rank 512"},
             {64, "DeepSeek-V3 (arXiv:2412.19437), Sec. 4.2: decoupled per-head dimension d_h^R = 64; config.json: "
                  "qk_rope_head_dim 64"},
             {128, "deepseek-ai/DeepSeek-V3, config.json: qk_nope_head_dim 128"},
             {128, "deepseek-ai/DeepSeek-V3, config.json: v_head_dim 128"},
             {1536, "DeepSeek-V3 (arXiv:2412.19437), Sec. 4.2: query compression dimension d'_c = 1536; config.json: "
                    "q_lora_rank 1536"}},
     SourcedCount{671000000000, "DeepSeek-V3 (arXiv:2412.19437), abstract: 671B total parameters with 37B activated "
                                "for each token"}},
}};

}  // namespace

std::span<const ModelPreset> model_presets() { return kPresets; }

const ModelPreset& model_preset(std::string_view id) {
    for (const ModelPreset& m : kPresets) {
        if (m.id == id) return m;
    }
    std::string valid;
    for (const ModelPreset& m : kPresets) valid += (valid.empty() ? "" : ", ") + std::string(m.id);
    throw Error("model: unknown preset '" + std::string(id) + "'; valid ids are " + valid);
}

}  // namespace attn::models
