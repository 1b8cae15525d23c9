#include "machine_context.hpp"

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <unistd.h>

#include <cctype>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <thread>

#include "vector_isa.hpp"
#if defined(ATTN_BENCH_CUDA)
#include "gpu_device.hpp"
#endif

extern "C" char* openblas_get_corename();  // exported by OpenBLAS, not declared in cblas.h

namespace attn::bench {
namespace {

// /proc/cpuinfo as key -> value, each key's first occurrence (the first processor's): "model name"
// -> "AMD EPYC", "cpu family" -> "25", ...; empty where the file cannot be read.
std::map<std::string, std::string> cpu_info() {
    std::map<std::string, std::string> fields;
    std::ifstream info("/proc/cpuinfo");
    for (std::string line; std::getline(info, line);) {
        const auto colon = line.find(':');
        if (colon == std::string::npos || colon == 0) continue;
        const auto key_end = line.find_last_not_of(" \t", colon - 1);
        if (key_end == std::string::npos) continue;  // no key before the colon
        const auto start = line.find_first_not_of(' ', colon + 1);
        fields.emplace(line.substr(0, key_end + 1), start == std::string::npos ? "" : line.substr(start));
    }
    return fields;
}

std::string field_or(const std::map<std::string, std::string>& fields, const std::string& key, std::string fallback) {
    const auto it = fields.find(key);
    return it == fields.end() ? fallback : it->second;
}

// The CPU's identity beside its marketing name, which a virtual machine often shortens to one
// shared by several generations ("AMD EPYC" for Zen 4 and Zen 5): vendor, family, model and
// stepping, as /proc/cpuinfo gives them for x86 ("AuthenticAMD family 25 model 17 stepping 1").
std::string cpu_id(const std::map<std::string, std::string>& info) {
    const std::string family = field_or(info, "cpu family", ""), model = field_or(info, "model", "");
    if (family.empty() || model.empty()) return "unknown";
    const std::string stepping = field_or(info, "stepping", "");
    return field_or(info, "vendor_id", "") + " family " + family + " model " + model +
           (stepping.empty() ? "" : " stepping " + stepping);
}

std::string compiler() {
#if defined(__clang__)
    return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
    return std::string("g++ ") + __VERSION__;
#else
    return "unknown";
#endif
}

// ATTN_BENCH_CONTEXT_<KEY>=value from the environment, as context entry <key> (lower case):
// the run script's provenance (commit, date, command, GPU), whose values may hold any character.
void add_environment_context() {
    constexpr std::string_view kPrefix = "ATTN_BENCH_CONTEXT_";
    for (char** entry = environ; *entry; ++entry) {
        const std::string_view text(*entry);
        const auto eq = text.find('=');
        if (text.rfind(kPrefix, 0) != 0 || eq == std::string_view::npos || eq == kPrefix.size()) continue;
        std::string key(text.substr(kPrefix.size(), eq - kPrefix.size()));
        for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        benchmark::AddCustomContext(key, std::string(text.substr(eq + 1)));
    }
}

}  // namespace

void add_machine_context() {
    add_environment_context();
    const auto info = cpu_info();
    benchmark::AddCustomContext("cpu_model", field_or(info, "model name", "unknown"));
    benchmark::AddCustomContext("cpu_id", cpu_id(info));
    benchmark::AddCustomContext("hardware_threads", std::to_string(std::thread::hardware_concurrency()));
    benchmark::AddCustomContext("compiler", compiler());
    std::string build = std::string(ATTN_BUILD_TYPE) + " (" + ATTN_CORE_FLAGS + "); optimised CPU paths: " + ATTN_FAST_FLAGS;
#if defined(ATTN_CUDA_BUILD)
    build += std::string("; CUDA kernels: ") + ATTN_CUDA_BUILD;
#endif
    benchmark::AddCustomContext("attention_build", build);
    benchmark::AddCustomContext("vector_isa", std::string("compiled for ") + compiled_vector_isa() + ", CPU offers " +
                                                  host_vector_isa());
    benchmark::AddCustomContext("openblas", std::string(openblas_get_config()) + ", kernel " + openblas_get_corename() +
                                                ", " + std::to_string(openblas_get_num_threads()) + " threads");
#if defined(ATTN_BENCH_CUDA)
    add_gpu_context();
#endif
}

}  // namespace attn::bench
