#include "attn/attention/hadamard.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn {
namespace {

void require_power_of_two(std::size_t dim) {
    if (dim == 0 || dim > 65536 || (dim & (dim - 1)) != 0) {
        throw Error("dim: the Walsh-Hadamard transform needs a power of two in [1, 65536], got " + std::to_string(dim));
    }
}

}  // namespace

double hadamard_sign(std::uint64_t seed, std::size_t i) { return uniform_from_hash(seed, i) < 0.5 ? -1.0 : 1.0; }

void apply_random_hadamard(std::span<double> rows, std::size_t dim, std::uint64_t seed) {
    require_power_of_two(dim);
    if (rows.size() % dim != 0) {
        throw Error("rows: holds " + std::to_string(rows.size()) + " values, not a multiple of dim = " + std::to_string(dim));
    }
    const double norm = 1.0 / std::sqrt(static_cast<double>(dim));
    for (std::size_t r = 0; r < rows.size(); r += dim) {
        double* x = rows.data() + r;
        // x M = (x D) H / sqrt(d); H is symmetric, so apply the fast transform to x D.
        for (std::size_t i = 0; i < dim; ++i) x[i] *= hadamard_sign(seed, i);
        for (std::size_t half = 1; half < dim; half *= 2) {
            for (std::size_t i = 0; i < dim; i += 2 * half) {
                for (std::size_t j = i; j < i + half; ++j) {
                    const double a = x[j], b = x[j + half];
                    x[j] = a + b;
                    x[j + half] = a - b;
                }
            }
        }
        for (std::size_t i = 0; i < dim; ++i) x[i] *= norm;
    }
}

std::vector<double> random_hadamard_matrix(std::size_t dim, std::uint64_t seed) {
    require_power_of_two(dim);
    // Row i of M is e_i M.
    std::vector<double> m(dim * dim, 0.0);
    for (std::size_t i = 0; i < dim; ++i) m[i * dim + i] = 1.0;
    apply_random_hadamard(m, dim, seed);
    return m;
}

}  // namespace attn
