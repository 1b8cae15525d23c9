#pragma once
// The vector instruction set the optimised CPU paths were compiled for (they get the project's
// fast CPU flags, -march=native among them, so this is the build host's), and the one the CPU
// running the benchmark offers: a ratio measured on an AVX-512 host says little about an AVX2 one.
#include <string>

namespace attn::bench {

// "AVX-512", "AVX2+FMA", "AVX", "SSE2" or "scalar", from the compiler's predefined macros under the
// fast CPU flags.
const char* compiled_vector_isa();

// The widest of avx512f, avx2+fma, avx the running CPU lists in /proc/cpuinfo, in the same words.
std::string host_vector_isa();

}  // namespace attn::bench
