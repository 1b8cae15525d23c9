#pragma once
// A row-major matrix of doubles: the shape of the Part 1 objects (a set of query vectors, a set of
// key vectors, one score matrix, one table of positional encodings). Batched, multi-head data
// uses attn::Tensor4 instead; a Matrix is one [rows, cols] slice of that.
#include <cstddef>
#include <vector>

namespace attn::classic {

struct Matrix {
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::vector<double> data;  // rows * cols values, row r at data[r * cols .. r * cols + cols)

    Matrix() = default;
    Matrix(std::size_t r, std::size_t c, double fill = 0.0) : rows(r), cols(c), data(r * c, fill) {}
    // Takes ownership of `values`; throws attn::Error naming `name` unless there are rows * cols
    // of them, all finite.
    Matrix(std::size_t r, std::size_t c, std::vector<double> values, const char* name);

    double& at(std::size_t r, std::size_t c) { return data[r * cols + c]; }
    double at(std::size_t r, std::size_t c) const { return data[r * cols + c]; }
    const double* row(std::size_t r) const { return data.data() + r * cols; }
    double* row(std::size_t r) { return data.data() + r * cols; }
};

// Throws attn::Error naming `name` if m has no rows or columns or holds a non-finite value.
void require_nonempty_finite(const Matrix& m, const char* name);

}  // namespace attn::classic
