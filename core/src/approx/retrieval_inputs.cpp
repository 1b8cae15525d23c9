#include "attn/approx/retrieval_inputs.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn::approx {

RetrievalInputs retrieval_inputs(Shape4 s, std::size_t kv_len, std::size_t value_dim, double noise, double sharpness,
                                 std::uint64_t seed) {
    if (s.numel() == 0 || kv_len == 0 || value_dim == 0) {
        throw Error("retrieval_inputs: every size must be >= 1, got q " + s.str() + ", kv_len " + std::to_string(kv_len) +
                    ", value_dim " + std::to_string(value_dim));
    }
    if (!(noise >= 0 && noise <= 100)) throw Error("noise: must be in [0, 100], got " + std::to_string(noise));
    if (!(sharpness > 0 && sharpness <= 100)) throw Error("sharpness: must be in (0, 100], got " + std::to_string(sharpness));
    RetrievalInputs r{random_normal(s, splitmix64(seed ^ 0x0Aull)),
                      random_normal({s.batch, s.heads, kv_len, s.dim}, splitmix64(seed ^ 0x0Bull)),
                      random_normal({s.batch, s.heads, kv_len, value_dim}, splitmix64(seed ^ 0x0Cull)),
                      std::vector<std::uint32_t>(s.batch * s.heads * s.seq)};
    const std::uint64_t target_seed = splitmix64(seed ^ 0x0Dull);
    for (std::size_t b = 0; b < s.batch; ++b) {
        for (std::size_t h = 0; h < s.heads; ++h) {
            for (std::size_t i = 0; i < s.seq; ++i) {
                const std::size_t row = (b * s.heads + h) * s.seq + i;
                const auto t = static_cast<std::uint32_t>(uniform_from_hash(target_seed, row) * static_cast<double>(kv_len));
                r.targets[row] = t;
                // r.q holds e_i; turn it into sharpness * (k_t + noise * e_i).
                for (std::size_t c = 0; c < s.dim; ++c) {
                    r.q.at(b, h, i, c) = sharpness * (r.k.at(b, h, t, c) + noise * r.q.at(b, h, i, c));
                }
            }
        }
    }
    return r;
}

}  // namespace attn::approx
