#include "gpu_decode_report.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace attn::bench {
namespace {

constexpr std::string_view kPrefix = "cuda/decode_";

double counter(const MeasuredRun& r, const char* name) {
    const auto it = r.counters.find(name);
    return it == r.counters.end() ? NAN : it->second;
}

// "cuda/decode_fp16_paged16/llama3-8b" -> {fp16, paged16, llama3-8b}; false for any other family.
bool parse_family(const std::string& family, GpuDecodeRow& row) {
    if (family.rfind(kPrefix, 0) != 0) return false;
    const std::size_t element_end = family.find('_', kPrefix.size());
    const std::size_t layout_end = family.find('/', kPrefix.size());
    if (element_end == std::string::npos || layout_end == std::string::npos || element_end > layout_end) return false;
    row.element = family.substr(kPrefix.size(), element_end - kPrefix.size());
    row.layout = family.substr(element_end + 1, layout_end - element_end - 1);
    row.model = family.substr(layout_end + 1);
    return !row.element.empty() && !row.layout.empty() && !row.model.empty();
}

}  // namespace

std::vector<GpuDecodeRow> gpu_decode_rows(const std::vector<MeasuredRun>& runs) {
    std::vector<GpuDecodeRow> rows;
    for (const MeasuredRun& r : runs) {
        GpuDecodeRow row;
        if (!parse_family(r.family, row)) continue;
        row.batch = counter(r, "batch");
        row.context = counter(r, "N");
        row.splits = counter(r, "splits");
        row.bytes_per_s = counter(r, "bytes/s");
        row.hbm_percent = counter(r, "hbm_percent");
        rows.push_back(row);
    }
    for (GpuDecodeRow& row : rows) {
        row.percent_of_contiguous = NAN;
        if (row.layout == "contiguous") continue;
        for (const GpuDecodeRow& c : rows) {
            if (c.layout == "contiguous" && c.element == row.element && c.model == row.model && c.batch == row.batch &&
                c.context == row.context) {
                row.percent_of_contiguous = 100 * row.bytes_per_s / c.bytes_per_s;
            }
        }
    }
    return rows;
}

std::string report_gpu_decode(const std::vector<MeasuredRun>& runs, std::ostream& out) {
    const std::vector<GpuDecodeRow> rows = gpu_decode_rows(runs);
    std::ostringstream json;
    json << "[";
    if (!rows.empty()) {
        out << "\n(f) GPU paged decode (native/cuda/paged_decode.cu): GB/s of the bytes a step must move (K/V, q, out,"
               " lse), their share of the GPU preset's HBM bandwidth, and paged as a share of contiguous\n";
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const GpuDecodeRow& r = rows[i];
        out << "    " << r.element << " " << r.model << " " << std::setw(10) << std::left << r.layout << std::right
            << " B=" << std::setw(2) << r.batch << " N=" << std::setw(6) << r.context << std::fixed << std::setprecision(1)
            << ": " << r.bytes_per_s / 1e9 << " GB/s";
        if (std::isfinite(r.hbm_percent)) out << ", " << std::setprecision(0) << r.hbm_percent << "% of HBM";
        if (std::isfinite(r.percent_of_contiguous)) {
            out << ", " << std::setprecision(0) << r.percent_of_contiguous << "% of contiguous";
        }
        out << ", " << std::setprecision(0) << r.splits << " split" << (r.splits == 1 ? "" : "s") << "\n"
            << std::defaultfloat << std::setprecision(6);
        json << (i ? "," : "") << "{\"element\":\"" << r.element << "\",\"layout\":\"" << r.layout << "\",\"model\":\""
             << r.model << "\",\"batch\":" << json_number(r.batch) << ",\"context\":" << json_number(r.context)
             << ",\"splits\":" << json_number(r.splits) << ",\"bytes_per_s\":" << json_number(r.bytes_per_s)
             << ",\"hbm_percent\":" << json_number(r.hbm_percent)
             << ",\"percent_of_contiguous\":" << json_number(r.percent_of_contiguous) << "}";
    }
    json << "]";
    return json.str();
}

}  // namespace attn::bench
