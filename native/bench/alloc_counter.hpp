#pragma once
// Counts the bytes the program holds on the C++ heap (every operator new / delete), so a benchmark
// can report the peak memory an implementation allocates per call -- the quantity that grows as
// N^2 for standard attention (the score matrix) and as N for FlashAttention (inputs-sized output
// plus fixed per-thread tiles). Buffers that OpenBLAS allocates internally (its own mmap'ed GEMM
// work areas, a fixed size independent of N) are not seen.
#include <cstddef>

namespace attn::bench {

// Bytes currently allocated through operator new.
std::size_t heap_bytes_in_use();
// The largest heap_bytes_in_use() since the last reset_heap_peak().
std::size_t heap_bytes_peak();
// Restarts peak tracking from the current usage.
void reset_heap_peak();

}  // namespace attn::bench
