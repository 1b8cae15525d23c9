// Prints the RMSE of attention computed with FP16 and FP8 (e4m3) roundings against double
// precision, on FlashAttention-3's outlier inputs (FA3 §4.3), next to the values FA3's Table 3
// reports for the same configurations. See core/include/attn/attention/fp8_numerics.hpp.
//
//   fp8_table [--seq-len N] [--head-dim D] [--eval-rows R] [--block-rows B] [--seed S] [--seeds K]
//
// Each of K draws (seeds S, S+1, ...) is a fresh Q, K, V; the table shows the mean RMSE and the
// smallest and largest of the K values.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "attn/attention/fp8_numerics.hpp"
#include "attn/error.hpp"

namespace {

std::size_t parse_count(const std::string& flag, const char* text) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0' || text[0] == '-') throw attn::Error(flag + ": expects a non-negative integer, got '" + text + "'");
    return static_cast<std::size_t>(v);
}

}  // namespace

int main(int argc, char** argv) {
    try {
        attn::Fp8ExperimentOptions o;
        std::size_t seeds = 1;
        for (int i = 1; i < argc; ++i) {
            const std::string flag = argv[i];
            if (flag == "--help" || flag == "-h") {
                std::printf("usage: fp8_table [--seq-len N] [--head-dim D] [--eval-rows R] [--block-rows B] "
                            "[--seed S] [--seeds K]\n");
                return 0;
            }
            if (i + 1 >= argc) throw attn::Error(flag + ": missing value");
            const std::size_t v = parse_count(flag, argv[++i]);
            if (flag == "--seq-len") o.seq_len = v;
            else if (flag == "--head-dim") o.head_dim = v;
            else if (flag == "--eval-rows") o.eval_rows = v;
            else if (flag == "--block-rows") o.block_rows = v;
            else if (flag == "--seed") o.seed = v;
            else if (flag == "--seeds") seeds = v;
            else throw attn::Error("unknown option '" + flag + "' (see --help)");
        }
        if (seeds < 1 || seeds > 1000) throw attn::Error("--seeds: must be in [1, 1000], got " + std::to_string(seeds));

        std::vector<std::vector<double>> rmse(attn::kNumericsMethods.size());
        const std::uint64_t first_seed = o.seed;
        for (std::size_t s = 0; s < seeds; ++s) {
            o.seed = first_seed + s;
            const auto results = attn::fp8_experiment(o);
            for (std::size_t m = 0; m < results.size(); ++m) rmse[m].push_back(results[m].rmse);
        }

        std::printf("FlashAttention-3 numerical error experiment (FA3 §4.3), emulated on the CPU\n");
        std::printf("Q, K, V ~ N(0,1) + N(0,100) * Bernoulli(0.001); seq_len %zu, head_dim %zu, first %zu query rows, "
                    "blocks of %zu rows; seeds %llu..%llu\n",
                    o.seq_len, o.head_dim, o.eval_rows, o.block_rows, static_cast<unsigned long long>(first_seed),
                    static_cast<unsigned long long>(first_seed + seeds - 1));
        std::printf("RMSE against attention in double; published column: %.*s\n\n",
                    static_cast<int>(attn::kFa3Table3Source.size()), attn::kFa3Table3Source.data());
        std::printf("%-31s %11s %11s %11s   %-26s %9s\n", "method", "RMSE mean", "min", "max", "FA3 Table 3 column",
                    "FA3 RMSE");
        for (std::size_t m = 0; m < attn::kNumericsMethods.size(); ++m) {
            const auto method = attn::kNumericsMethods[m];
            double sum = 0;
            for (double r : rmse[m]) sum += r;
            const auto name = attn::numerics_method_name(method);
            const auto published = attn::fa3_table3_rmse(method);
            std::printf("%-31.*s %11.3e %11.3e %11.3e   %-26.*s", static_cast<int>(name.size()), name.data(),
                        sum / static_cast<double>(seeds), *std::min_element(rmse[m].begin(), rmse[m].end()),
                        *std::max_element(rmse[m].begin(), rmse[m].end()),
                        static_cast<int>(published ? published->label.size() : 1), published ? published->label.data() : "-");
            if (published) std::printf(" %9.1e\n", published->rmse);
            else std::printf(" %9s\n", "-");
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fp8_table: %s\n", e.what());
        return 2;
    }
}
