#include "attn/classic/positional_encoding.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"

namespace attn::classic {
namespace {

constexpr std::size_t kMaxPositions = 65536;
constexpr std::size_t kMaxDModel = 4096;

void check_d_model(std::size_t d_model) {
    if (d_model < 2 || d_model > kMaxDModel || d_model % 2 != 0) {
        throw Error("d_model: sinusoids come in (sin, cos) pairs, so d_model must be even and in [2, " +
                    std::to_string(kMaxDModel) + "], got " + std::to_string(d_model));
    }
}

void check_base(double base) {
    if (!std::isfinite(base) || base <= 1.0) throw Error("base: must be finite and > 1, got " + std::to_string(base));
}

// Angular frequency of pair i: base^(-2i / d_model), from 1 rad per position down to ~1/base.
double frequency(std::size_t pair, std::size_t d_model, double base) {
    return std::pow(base, -2.0 * static_cast<double>(pair) / static_cast<double>(d_model));
}

}  // namespace

Matrix sinusoidal_positional_encoding(std::size_t num_positions, std::size_t d_model, double base) {
    if (num_positions < 1 || num_positions > kMaxPositions) {
        throw Error("num_positions: must be in [1, " + std::to_string(kMaxPositions) + "], got " +
                    std::to_string(num_positions));
    }
    check_d_model(d_model);
    check_base(base);
    Matrix pe(num_positions, d_model);
    for (std::size_t i = 0; i < d_model / 2; ++i) {
        const double w = frequency(i, d_model, base);
        for (std::size_t pos = 0; pos < num_positions; ++pos) {
            const double angle = static_cast<double>(pos) * w;
            pe.at(pos, 2 * i) = std::sin(angle);
            pe.at(pos, 2 * i + 1) = std::cos(angle);
        }
    }
    return pe;
}

Tensor4<double> add_positional_encoding(const Tensor4<double>& x, double base) {
    const Shape4& s = x.shape;
    if (s.heads != 1 || s.batch == 0 || s.seq == 0 || x.data.size() != s.numel()) {
        throw Error("x: must be [batch >= 1, 1, seq >= 1, d_model], got " + s.str());
    }
    const Matrix pe = sinusoidal_positional_encoding(s.seq, s.dim, base);
    Tensor4<double> out = x;
    for (std::size_t b = 0; b < s.batch; ++b) {
        for (std::size_t l = 0; l < s.seq; ++l) {
            double* row = out.row(b, 0, l);
            for (std::size_t c = 0; c < s.dim; ++c) row[c] += pe.at(l, c);
        }
    }
    return out;
}

Matrix positional_offset_matrix(std::size_t d_model, std::int64_t offset, double base) {
    check_d_model(d_model);
    check_base(base);
    if (offset < -static_cast<std::int64_t>(kMaxPositions) || offset > static_cast<std::int64_t>(kMaxPositions)) {
        throw Error("offset: must be in [-" + std::to_string(kMaxPositions) + ", " + std::to_string(kMaxPositions) +
                    "], got " + std::to_string(offset));
    }
    Matrix m(d_model, d_model);
    for (std::size_t i = 0; i < d_model / 2; ++i) {
        const double a = static_cast<double>(offset) * frequency(i, d_model, base);
        const double c = std::cos(a), s = std::sin(a);
        // sin(x + a) = sin x cos a + cos x sin a;  cos(x + a) = cos x cos a - sin x sin a.
        m.at(2 * i, 2 * i) = c;
        m.at(2 * i, 2 * i + 1) = s;
        m.at(2 * i + 1, 2 * i) = -s;
        m.at(2 * i + 1, 2 * i + 1) = c;
    }
    return m;
}

}  // namespace attn::classic
