#include "run_collector.hpp"

#include <cmath>

namespace attn::bench {

void RunCollector::ReportRuns(const std::vector<Run>& runs) {
    display_->ReportRuns(runs);
    for (const Run& run : runs) {
        if (run.error_occurred || run.run_type != Run::RT_Iteration || run.iterations == 0) continue;
        MeasuredRun m;
        // Names are "<family>/N:<n>/..."; the sizes themselves are read from the counters.
        m.family = run.run_name.function_name.substr(0, run.run_name.function_name.find("/N:"));
        m.seconds_per_iteration = run.real_accumulated_time / static_cast<double>(run.iterations);
        for (const auto& [name, counter] : run.counters) m.counters[name] = counter.value;
        runs_.push_back(std::move(m));
    }
}

double run_counter(const MeasuredRun* r, const char* name) {
    if (!r) return NAN;
    const auto it = r->counters.find(name);
    return it == r->counters.end() ? NAN : it->second;
}

const MeasuredRun* find_run(const std::vector<MeasuredRun>& runs, const std::string& family, double n, double d,
                            double causal) {
    for (const MeasuredRun& r : runs) {
        auto at = [&](const char* key) {
            const auto it = r.counters.find(key);
            return it == r.counters.end() ? -1.0 : it->second;
        };
        if (r.family == family && at("N") == n && at("d") == d && at("causal") == causal) return &r;
    }
    return nullptr;
}

}  // namespace attn::bench
