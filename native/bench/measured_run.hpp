#pragma once
// One finished benchmark run as the binary keeps it (run_collector.hpp) for the ratios and tables
// it prints after the run, and how a number goes into the summary's JSON. Plain C++, so the
// reports built on them are unit-tested without running benchmarks.
#include <map>
#include <string>

namespace attn::bench {

struct MeasuredRun {
    std::string family;                     // "cpu/flash_fast"
    double seconds_per_iteration = 0;       // wall clock
    std::map<std::string, double> counters;  // finished counters (rates already divided by time)
};

// A number for the summary's JSON: 6 significant digits, null when not finite.
std::string json_number(double x);

}  // namespace attn::bench
