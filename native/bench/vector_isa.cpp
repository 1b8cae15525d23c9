#include "vector_isa.hpp"

#include <fstream>
#include <sstream>

namespace attn::bench {

const char* compiled_vector_isa() {
#if defined(__AVX512F__)
    return "AVX-512";
#elif defined(__AVX2__) && defined(__FMA__)
    return "AVX2+FMA";
#elif defined(__AVX__)
    return "AVX";
#elif defined(__SSE2__)
    return "SSE2";
#else
    return "scalar";
#endif
}

std::string host_vector_isa() {
    std::ifstream info("/proc/cpuinfo");
    for (std::string line; std::getline(info, line);) {
        if (line.rfind("flags", 0) != 0) continue;
        std::istringstream words(line.substr(line.find(':') + 1));
        bool avx512 = false, avx2 = false, fma = false, avx = false;
        for (std::string w; words >> w;) {
            avx512 = avx512 || w == "avx512f";
            avx2 = avx2 || w == "avx2";
            fma = fma || w == "fma";
            avx = avx || w == "avx";
        }
        return avx512 ? "AVX-512" : avx2 && fma ? "AVX2+FMA" : avx ? "AVX" : "SSE2";
    }
    return "unknown";
}

}  // namespace attn::bench
