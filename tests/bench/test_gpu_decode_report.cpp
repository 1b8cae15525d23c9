// The GPU decode table (native/bench/gpu_decode_report.hpp) on runs made up here: which runs it
// reads, paged as a share of contiguous at the same element, shape, batch and context, and the JSON.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "gpu_decode_report.hpp"

namespace {

using namespace attn::bench;

MeasuredRun run(const std::string& family, double batch, double context, double bytes_per_s, double hbm_percent) {
    MeasuredRun r;
    r.family = family;
    r.counters = {{"batch", batch}, {"N", context}, {"bytes/s", bytes_per_s}, {"splits", 2}, {"d", 128}};
    if (!std::isnan(hbm_percent)) r.counters["hbm_percent"] = hbm_percent;
    return r;
}

const std::vector<MeasuredRun> kRuns{
    run("cpu/decode/llama3-8b", 1, 1024, 1e9, NAN),  // a CPU decode run: not in the table
    run("cuda/decode_fp16_paged16/llama3-8b", 8, 8192, 1.5e12, 75),
    run("cuda/decode_fp16_contiguous/llama3-8b", 8, 8192, 1.6e12, 80),
    run("cuda/decode_fp16_paged16/llama3-8b", 1, 8192, 0.4e12, 20),       // no contiguous run at batch 1
    run("cuda/decode_bf16_paged32/llama3-70b", 8, 8192, 1.2e12, NAN),      // no preset: no HBM share
    run("cuda/decode_bf16_contiguous/llama3-70b", 8, 8192, 1.5e12, NAN),
    run("cuda/flash_tc_fp16", 8, 8192, 1e12, NAN),                         // a prefill run
};

TEST_CASE("gpu decode report: rows of the decode runs, paged against contiguous at the same point") {
    const std::vector<GpuDecodeRow> rows = gpu_decode_rows(kRuns);
    REQUIRE(rows.size() == 5);
    CHECK(rows[0].element == "fp16");
    CHECK(rows[0].layout == "paged16");
    CHECK(rows[0].model == "llama3-8b");
    CHECK(rows[0].batch == 8);
    CHECK(rows[0].context == 8192);
    CHECK(rows[0].splits == 2);
    CHECK(rows[0].hbm_percent == 75);
    CHECK(rows[0].percent_of_contiguous == doctest::Approx(93.75));
    CHECK(std::isnan(rows[1].percent_of_contiguous));  // the contiguous row itself
    CHECK(std::isnan(rows[2].percent_of_contiguous));  // batch 1 has no contiguous run
    CHECK(rows[3].percent_of_contiguous == doctest::Approx(80));
    CHECK(std::isnan(rows[3].hbm_percent));
}

TEST_CASE("gpu decode report: printed lines and JSON, nothing without decode runs") {
    std::ostringstream out;
    const std::string json = report_gpu_decode(kRuns, out);
    CHECK(out.str().find("fp16 llama3-8b paged16    B= 8 N=  8192: 1500.0 GB/s, 75% of HBM, 94% of contiguous, 2 splits") !=
          std::string::npos);
    CHECK(out.str().find("bf16 llama3-70b paged32    B= 8 N=  8192: 1200.0 GB/s, 80% of contiguous, 2 splits") !=
          std::string::npos);
    CHECK(json.rfind("[{\"element\":\"fp16\",\"layout\":\"paged16\",\"model\":\"llama3-8b\",\"batch\":8,\"context\":8192,"
                     "\"splits\":2,\"bytes_per_s\":1.5e+12,\"hbm_percent\":75,\"percent_of_contiguous\":93.75}",
                     0) == 0);
    CHECK(json.find("\"hbm_percent\":null") != std::string::npos);

    std::ostringstream none;
    CHECK(report_gpu_decode({kRuns[0], kRuns.back()}, none) == "[]");
    CHECK(none.str().empty());
}

}  // namespace
