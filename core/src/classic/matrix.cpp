#include "attn/classic/matrix.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"

namespace attn::classic {

Matrix::Matrix(std::size_t r, std::size_t c, std::vector<double> values, const char* name)
    : rows(r), cols(c), data(std::move(values)) {
    if (data.size() != rows * cols) {
        throw Error(std::string(name) + ": expected " + std::to_string(rows * cols) + " values for [" +
                    std::to_string(rows) + ", " + std::to_string(cols) + "], got " + std::to_string(data.size()));
    }
    for (double x : data) {
        if (!std::isfinite(x)) throw Error(std::string(name) + ": every value must be finite");
    }
}

void require_nonempty_finite(const Matrix& m, const char* name) {
    if (m.rows == 0 || m.cols == 0) {
        throw Error(std::string(name) + ": must have at least one row and one column, got [" + std::to_string(m.rows) +
                    ", " + std::to_string(m.cols) + "]");
    }
    if (m.data.size() != m.rows * m.cols) {
        throw Error(std::string(name) + ": holds " + std::to_string(m.data.size()) + " values, expected " +
                    std::to_string(m.rows * m.cols));
    }
    for (double x : m.data) {
        if (!std::isfinite(x)) throw Error(std::string(name) + ": every value must be finite");
    }
}

}  // namespace attn::classic
