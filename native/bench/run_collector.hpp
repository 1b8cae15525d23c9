#pragma once
// A reporter that passes everything to Google Benchmark's own display reporter (so
// --benchmark_format keeps working) and keeps each finished run, so the binary can compute
// ratios between benchmarks measured in the same process, one after another.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "measured_run.hpp"

namespace attn::bench {

class RunCollector : public benchmark::BenchmarkReporter {
public:
    explicit RunCollector(benchmark::BenchmarkReporter* display) : display_(display) {}
    bool ReportContext(const Context& context) override { return display_->ReportContext(context); }
    void ReportRuns(const std::vector<Run>& runs) override;
    void Finalize() override { display_->Finalize(); }

    const std::vector<MeasuredRun>& runs() const { return runs_; }

private:
    std::unique_ptr<benchmark::BenchmarkReporter> display_;
    std::vector<MeasuredRun> runs_;
};

// Counter `name` of run `r`; NaN when the run or the counter is absent.
double run_counter(const MeasuredRun* r, const char* name);

// The run of `family` whose counters N, d and causal equal the arguments; null when absent.
const MeasuredRun* find_run(const std::vector<MeasuredRun>& runs, const std::string& family, double n, double d,
                            double causal);

}  // namespace attn::bench
