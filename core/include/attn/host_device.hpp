#pragma once
// ATTN_HD marks the small inline functions a CUDA kernel shares with the CPU code (online-softmax
// update/merge, causal bounds, ...). Under nvcc they compile for host and device; everywhere else
// the macro vanishes, so the WASM build and the native build run the very same arithmetic.
#if defined(__CUDACC__)
#define ATTN_HD __host__ __device__
#else
#define ATTN_HD
#endif
