#include "attn/attention/rope.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"

namespace attn {
namespace {

constexpr std::uint64_t kMaxPosition = std::uint64_t{1} << 32;

void check_dim(std::size_t dim) {
    if (dim < 2 || dim % 2 != 0) {
        throw Error("dim: RoPE rotates pairs of dimensions, so dim must be even and >= 2, got " + std::to_string(dim));
    }
}

void check_options(const RopeOptions& o) {
    if (!std::isfinite(o.base) || o.base <= 1.0) {
        throw Error("base: must be finite and > 1, got " + std::to_string(o.base));
    }
    if (o.layout != RopeLayout::half_split && o.layout != RopeLayout::interleaved) {
        throw Error("layout: must be half_split or interleaved");
    }
}

void check_position(std::uint64_t position) {
    if (position > kMaxPosition) {
        throw Error("position: must be in [0, " + std::to_string(kMaxPosition) + "], got " + std::to_string(position));
    }
}

// Indices of the two coordinates of pair i.
std::size_t first_of(std::size_t i, RopeLayout layout) { return layout == RopeLayout::interleaved ? 2 * i : i; }
std::size_t second_of(std::size_t i, std::size_t dim, RopeLayout layout) {
    return layout == RopeLayout::interleaved ? 2 * i + 1 : i + dim / 2;
}

// Rotation without argument checks, for callers that checked once.
template <class T>
void rotate(T* x, std::size_t dim, std::uint64_t position, const RopeOptions& o) {
    for (std::size_t i = 0; i < dim / 2; ++i) {
        const double angle = static_cast<double>(position) * rope_theta(i, dim, o.base);
        const double c = std::cos(angle), s = std::sin(angle);
        T& a = x[first_of(i, o.layout)];
        T& b = x[second_of(i, dim, o.layout)];
        const double x0 = a, x1 = b;
        // (x0 + i x1) e^{i angle}: eq. 34's block-diagonal rotation.
        a = static_cast<T>(x0 * c - x1 * s);
        b = static_cast<T>(x0 * s + x1 * c);
    }
}

}  // namespace

double rope_theta(std::size_t pair, std::size_t dim, double base) {
    check_dim(dim);
    check_options({base, RopeLayout::half_split});
    if (pair >= dim / 2) {
        throw Error("pair: must be in [0, " + std::to_string(dim / 2 - 1) + "], got " + std::to_string(pair));
    }
    return std::pow(base, -2.0 * static_cast<double>(pair) / static_cast<double>(dim));
}

std::vector<double> rope_angles(std::size_t dim, std::uint64_t position, const RopeOptions& options) {
    check_dim(dim);
    check_options(options);
    check_position(position);
    std::vector<double> angles(dim / 2);
    for (std::size_t i = 0; i < angles.size(); ++i) angles[i] = static_cast<double>(position) * rope_theta(i, dim, options.base);
    return angles;
}

template <class T>
void apply_rope(std::span<T> x, std::uint64_t position, const RopeOptions& options) {
    check_dim(x.size());
    check_options(options);
    check_position(position);
    for (std::size_t n = 0; n < x.size(); ++n) {
        if (!std::isfinite(static_cast<double>(x[n]))) throw Error("x: element " + std::to_string(n) + " is not finite");
    }
    rotate(x.data(), x.size(), position, options);
}

template <class T>
std::vector<T> rope(std::span<const T> x, std::uint64_t position, const RopeOptions& options) {
    std::vector<T> r(x.begin(), x.end());
    apply_rope(std::span<T>(r), position, options);
    return r;
}

template <class T>
Tensor4<T> rope_rows(const Tensor4<T>& x, std::uint64_t first_position, const RopeOptions& options) {
    check_dim(x.shape.dim);
    check_options(options);
    if (x.shape.seq > 0) check_position(first_position + (x.shape.seq - 1));
    for (std::size_t n = 0; n < x.data.size(); ++n) {
        if (!std::isfinite(static_cast<double>(x.data[n]))) {
            throw Error("x: element " + std::to_string(n) + " is not finite");
        }
    }
    Tensor4<T> r = x;
    for (std::size_t b = 0; b < x.shape.batch; ++b)
        for (std::size_t h = 0; h < x.shape.heads; ++h)
            for (std::size_t s = 0; s < x.shape.seq; ++s) rotate(r.row(b, h, s), x.shape.dim, first_position + s, options);
    return r;
}

template void apply_rope(std::span<float>, std::uint64_t, const RopeOptions&);
template void apply_rope(std::span<double>, std::uint64_t, const RopeOptions&);
template std::vector<float> rope(std::span<const float>, std::uint64_t, const RopeOptions&);
template std::vector<double> rope(std::span<const double>, std::uint64_t, const RopeOptions&);
template Tensor4<float> rope_rows(const Tensor4<float>&, std::uint64_t, const RopeOptions&);
template Tensor4<double> rope_rows(const Tensor4<double>&, std::uint64_t, const RopeOptions&);

}  // namespace attn
