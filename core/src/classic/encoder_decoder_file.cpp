#include "attn/classic/encoder_decoder_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>

#include "attn/error.hpp"

namespace attn::classic {
namespace {

constexpr std::string_view kMagic = "ATTNED01";  // "ATTNED" then the format version, "01"
constexpr std::size_t kVersionDigits = 2;
constexpr std::size_t kMaxProvenance = 64 * 1024;

// float <-> its IEEE-754 bits (memcpy: Emscripten 3.1.6's libc++ has no std::bit_cast).
std::uint32_t float_bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
float bits_float(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
}

class Reader {
public:
    explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
    std::span<const std::uint8_t> take(std::size_t n, const char* what) {
        if (bytes_.size() - pos_ < n) {
            throw Error(std::string("bytes: the file ends inside its ") + what + " (" + std::to_string(bytes_.size()) +
                        " bytes)");
        }
        auto s = bytes_.subspan(pos_, n);
        pos_ += n;
        return s;
    }
    std::uint32_t u32(const char* what) {
        const auto s = take(4, what);
        return std::uint32_t(s[0]) | std::uint32_t(s[1]) << 8 | std::uint32_t(s[2]) << 16 | std::uint32_t(s[3]) << 24;
    }
    std::size_t remaining() const { return bytes_.size() - pos_; }

private:
    std::span<const std::uint8_t> bytes_;
    std::size_t pos_ = 0;
};

}  // namespace

std::vector<std::uint8_t> save_encoder_decoder_int8(const EncoderDecoder<float>& model, const std::string& provenance) {
    if (provenance.size() > kMaxProvenance) {
        throw Error("provenance: must be at most " + std::to_string(kMaxProvenance) + " bytes, got " +
                    std::to_string(provenance.size()));
    }
    const std::vector<ParameterTensor> layout = parameter_layout(model.config);
    if (model.values.size() != layout.back().offset + layout.back().size()) {
        throw Error("model: values must hold one entry per parameter of its layout");
    }
    std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
    const EncoderDecoderConfig& c = model.config;
    for (std::size_t v : {std::size_t(c.kind == EncoderDecoderKind::rnn_search), c.source_vocab, c.target_vocab,
                          c.embed_dim, c.hidden_dim, c.attention_dim, c.output_dim}) {
        put_u32(out, static_cast<std::uint32_t>(v));
    }
    put_u32(out, static_cast<std::uint32_t>(provenance.size()));
    out.insert(out.end(), provenance.begin(), provenance.end());
    for (const ParameterTensor& t : layout) {
        const float* w = model.values.data() + t.offset;
        float max_abs = 0;
        for (std::size_t k = 0; k < t.size(); ++k) {
            if (!std::isfinite(w[k])) throw Error("model: tensor " + t.name + " holds a non-finite weight");
            max_abs = std::max(max_abs, std::abs(w[k]));
        }
        const float scale = max_abs > 0 ? max_abs / 127.0f : 1.0f;
        put_u32(out, float_bits(scale));
        for (std::size_t k = 0; k < t.size(); ++k) {
            const long q = std::lround(w[k] / scale);
            out.push_back(static_cast<std::uint8_t>(static_cast<std::int8_t>(std::clamp(q, -127L, 127L))));
        }
    }
    return out;
}

LoadedEncoderDecoder load_encoder_decoder_int8(std::span<const std::uint8_t> bytes) {
    Reader in(bytes);
    const auto magic = in.take(kMagic.size(), "magic number");
    const std::size_t prefix = kMagic.size() - kVersionDigits;
    if (!std::equal(magic.begin(), magic.begin() + static_cast<std::ptrdiff_t>(prefix), kMagic.begin())) {
        throw Error("bytes: not an encoder-decoder weights file (no \"ATTNED01\" at the start)");
    }
    if (!std::equal(magic.begin() + static_cast<std::ptrdiff_t>(prefix), magic.end(), kMagic.begin() + prefix)) {
        std::string version;
        for (auto b = magic.begin() + static_cast<std::ptrdiff_t>(prefix); b != magic.end(); ++b) {
            version += (*b >= 0x20 && *b < 0x7f) ? static_cast<char>(*b) : '?';
        }
        throw Error("bytes: weights file version \"" + version + "\" is not supported (this build reads version \"" +
                    std::string(kMagic.substr(prefix)) + "\")");
    }
    EncoderDecoderConfig c;
    const std::uint32_t kind = in.u32("header");
    if (kind > 1) throw Error("bytes: model kind must be 0 (rnn_enc) or 1 (rnn_search), got " + std::to_string(kind));
    c.kind = kind == 1 ? EncoderDecoderKind::rnn_search : EncoderDecoderKind::rnn_enc;
    for (std::size_t* field : {&c.source_vocab, &c.target_vocab, &c.embed_dim, &c.hidden_dim, &c.attention_dim, &c.output_dim}) {
        *field = in.u32("header");
    }
    LoadedEncoderDecoder loaded;
    const std::uint32_t provenance_size = in.u32("header");
    if (provenance_size > kMaxProvenance) throw Error("bytes: provenance longer than 64 KiB");
    const auto provenance = in.take(provenance_size, "provenance");
    loaded.provenance.assign(provenance.begin(), provenance.end());
    loaded.model.config = c;
    loaded.model.tensors = parameter_layout(c);  // validates the widths read
    // The header's widths fix the file's size: check it before allocating for them, so that a
    // corrupt header cannot ask for hundreds of megabytes.
    const std::uint64_t needed = std::uint64_t{4} * loaded.model.tensors.size() + loaded.model.tensors.back().offset +
                                 loaded.model.tensors.back().size();
    if (needed != in.remaining()) {
        throw Error("bytes: the header's sizes need " + std::to_string(needed) + " bytes of weights, the file holds " +
                    std::to_string(in.remaining()));
    }
    loaded.model.values.resize(loaded.model.tensors.back().offset + loaded.model.tensors.back().size());
    for (const ParameterTensor& t : loaded.model.tensors) {
        const float scale = bits_float(in.u32("weights"));
        if (!(std::isfinite(scale) && scale > 0)) throw Error("bytes: tensor " + t.name + " has an invalid scale");
        const auto q = in.take(t.size(), "weights");
        for (std::size_t k = 0; k < t.size(); ++k) {
            loaded.model.values[t.offset + k] = float(static_cast<std::int8_t>(q[k])) * scale;
        }
    }
    return loaded;
}

}  // namespace attn::classic
