#pragma once
// A minimal owning 4-D tensor in SDPA's layout [batch, heads, seq, head_dim], row-major and
// contiguous: the last dimension is one row of a query, key or value.
#include <cstddef>
#include <string>
#include <vector>

#include "attn/error.hpp"

namespace attn {

struct Shape4 {
    std::size_t batch = 0;
    std::size_t heads = 0;
    std::size_t seq = 0;
    std::size_t dim = 0;

    std::size_t numel() const { return batch * heads * seq * dim; }
    std::string str() const;
    friend bool operator==(const Shape4&, const Shape4&) = default;
};

template <class T>
struct Tensor4 {
    Shape4 shape;
    std::vector<T> data;

    Tensor4() = default;
    explicit Tensor4(Shape4 s, T fill = T{}) : shape(s), data(s.numel(), fill) {}
    // Takes ownership of `values`; throws attn::Error if their count is not shape.numel().
    Tensor4(Shape4 s, std::vector<T> values, const char* name = "values");

    std::size_t offset(std::size_t b, std::size_t h, std::size_t s, std::size_t d = 0) const {
        return ((b * shape.heads + h) * shape.seq + s) * shape.dim + d;
    }
    T& at(std::size_t b, std::size_t h, std::size_t s, std::size_t d) { return data[offset(b, h, s, d)]; }
    const T& at(std::size_t b, std::size_t h, std::size_t s, std::size_t d) const {
        return data[offset(b, h, s, d)];
    }
    // Pointer to the `dim` contiguous elements of one row; rows of one (b, h) follow each other.
    const T* row(std::size_t b, std::size_t h, std::size_t s) const { return data.data() + offset(b, h, s); }
    T* row(std::size_t b, std::size_t h, std::size_t s) { return data.data() + offset(b, h, s); }
};

template <class T>
Tensor4<T>::Tensor4(Shape4 s, std::vector<T> values, const char* name) : shape(s), data(std::move(values)) {
    if (data.size() != shape.numel()) {
        throw Error(std::string(name) + ": expected " + std::to_string(shape.numel()) + " elements for shape " +
                    shape.str() + ", got " + std::to_string(data.size()));
    }
}

template <class To, class From>
Tensor4<To> tensor_cast(const Tensor4<From>& t) {
    return Tensor4<To>(t.shape, std::vector<To>(t.data.begin(), t.data.end()));
}

}  // namespace attn
