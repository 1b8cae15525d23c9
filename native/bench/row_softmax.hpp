#pragma once
// Row operations every BLAS baseline shares, compiled with the optimised paths' flags: a softmax
// with the vectorised exponential the optimised attention uses (attn::fast_exp2), so no baseline
// is slowed by a scalar exp, and a split of independent rows over the hardware threads.
#include <cstddef>
#include <functional>

namespace attn::bench {

// Softmax of one row of `count` scores in place. Keys at and beyond `visible` get weight 0, and
// so does a score of -infinity; a row with no visible key becomes all zeros.
void softmax_row(float* s, std::size_t count, std::size_t visible);

// fn(r) for every r in [0, rows), rows dealt round-robin to one thread per hardware thread; BLAS
// calls made by fn run single-threaded meanwhile.
void parallel_rows(std::size_t rows, const std::function<void(std::size_t)>& fn);

}  // namespace attn::bench
