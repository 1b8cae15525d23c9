#pragma once
// The committed weights of the Part 1 translation models: every parameter tensor quantised to int8
// with one scale per tensor (w ~ q * scale, scale = max|w| / 127), a quarter of float32's size,
// with a provenance text (command, seed, commit) inside the file. Loading gives back exactly the
// float model that `make train` evaluated: the tool scores the dequantised weights, not the
// float ones it trained.
//
// Layout, little-endian:
//   8 bytes  "ATTNED01"
//   7 x u32  kind (0 rnn_enc, 1 rnn_search), source_vocab, target_vocab, embed_dim, hidden_dim,
//            attention_dim, output_dim
//   u32      provenance length in bytes, then that many bytes of UTF-8
//   per tensor, in parameter_layout order: f32 scale, then rows x cols int8 values
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "attn/classic/encoder_decoder.hpp"

namespace attn::classic {

// Throws attn::Error if the provenance is longer than 64 KiB or a weight is not finite.
std::vector<std::uint8_t> save_encoder_decoder_int8(const EncoderDecoder<float>& model, const std::string& provenance);

struct LoadedEncoderDecoder {
    EncoderDecoder<float> model;
    std::string provenance;
};

// Throws attn::Error saying what is wrong if the bytes are not a whole file of this format.
LoadedEncoderDecoder load_encoder_decoder_int8(std::span<const std::uint8_t> bytes);

}  // namespace attn::classic
