#include "summary.hpp"

#include <cmath>
#include <iomanip>
#include <iterator>
#include <set>
#include <sstream>
#include <tuple>

#include "attn/cost/gpu_presets.hpp"
#include "attn/error.hpp"
#include "cpu_benchmarks.hpp"

namespace attn::bench {
namespace {

std::string quoted(std::string_view s) {
    std::string r = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') r += '\\';
        r += c;
    }
    return r + "\"";
}

}  // namespace

std::string report_ratios(const std::vector<MeasuredRun>& runs, std::ostream& out) {
    std::ostringstream json;
    out << std::fixed;

    // (a) Speed-up over standard attention, d = 64 (and d = 128), non-causal and causal.
    out << "\n(a) flash_fast speed-up over standard_blas (standard time / flash time; target >= 1.0x at N=2048, d=64,"
           " growing with N)\n";
    json << "{\"speedup_vs_standard\":[";
    bool first = true;
    for (std::size_t d : kHeadDims) {
        for (double causal : {0.0, 1.0}) {
            out << "    d=" << d << (causal ? " causal    " : " non-causal");
            for (std::size_t n : kCpuSeqLens) {
                const MeasuredRun* f = find_run(runs, "cpu/flash_fast", double(n), double(d), causal);
                const MeasuredRun* s = find_run(runs, "cpu/standard_blas", double(n), double(d), causal);
                const double ratio = f && s ? s->seconds_per_iteration / f->seconds_per_iteration : NAN;
                out << "  N=" << n << ": " << std::setprecision(2) << ratio << "x";
                json << (first ? "" : ",") << "{\"N\":" << n << ",\"d\":" << d << ",\"causal\":" << (causal ? "true" : "false")
                     << ",\"flash_s\":" << json_number(f ? f->seconds_per_iteration : NAN)
                     << ",\"standard_s\":" << json_number(s ? s->seconds_per_iteration : NAN) << ",\"ratio\":" << json_number(ratio) << "}";
                first = false;
            }
            out << "\n";
        }
    }
    json << "],";

    // (b) Share of the machine's sgemm rate: the best of the sgemm runs measured next to the largest
    // flash runs (the attention-shaped products at the largest N and the square one registered
    // after them), so both sides of the ratio saw the same background load.
    const double largest = double(kCpuSeqLens[std::size(kCpuSeqLens) - 1]);
    const MeasuredRun* best = nullptr;
    for (const MeasuredRun& r : runs) {
        const bool nearby = r.family == "cpu/sgemm_square" || (r.family == "cpu/sgemm_qk" && run_counter(&r, "N") == largest);
        if (nearby && (!best || run_counter(&r, "FLOP/s") > run_counter(best, "FLOP/s"))) best = &r;
    }
    const double ceiling = run_counter(best, "FLOP/s");
    out << "\n(b) flash_fast FLOP rate / best sgemm FLOP rate (FA convention 4*B*H*N^2*d, halved when causal;"
           " target >= 50% at N=4096, d=128)\n";
    if (best) {
        out << "    sgemm ceiling: " << std::setprecision(1) << ceiling / 1e9 << " GFLOP/s (" << best->family
            << std::setprecision(0) << ", N=" << run_counter(best, "N") << ", K=" << run_counter(best, "d") << ")\n";
    }
    json << "\"sgemm_ceiling\":{\"flops_per_s\":" << json_number(ceiling) << ",\"benchmark\":" << quoted(best ? best->family : "")
         << ",\"N\":" << json_number(run_counter(best, "N")) << ",\"K\":" << json_number(run_counter(best, "d")) << "},\"flop_rate_vs_sgemm\":[";
    first = true;
    for (std::size_t d : kHeadDims) {
        for (double causal : {0.0, 1.0}) {
            const std::size_t n = kCpuSeqLens[std::size(kCpuSeqLens) - 1];
            const double rate = run_counter(find_run(runs, "cpu/flash_fast", double(n), double(d), causal), "FLOP/s");
            out << "    N=" << n << " d=" << d << (causal ? " causal    " : " non-causal") << ": " << std::setprecision(1)
                << rate / 1e9 << " GFLOP/s = " << std::setprecision(0) << 100 * rate / ceiling << "% of sgemm\n";
            json << (first ? "" : ",") << "{\"N\":" << n << ",\"d\":" << d << ",\"causal\":" << (causal ? "true" : "false")
                 << ",\"flops_per_s\":" << json_number(rate) << ",\"percent_of_sgemm\":" << json_number(100 * rate / ceiling) << "}";
            first = false;
        }
    }
    json << "],";

    // (c) Peak heap bytes per call: linear versus quadratic growth.
    out << "\n(c) peak heap bytes allocated by one call, d=64, non-causal, B=1 H=8 (inputs excluded)\n"
        << "    " << std::setw(6) << "N" << std::setw(16) << "flash_fast" << std::setw(16) << "standard_blas"
        << "   growth per doubling of N (flash, standard)\n";
    json << "\"peak_memory\":[";
    double prev_f = NAN, prev_s = NAN;
    first = true;
    for (std::size_t n : kCpuSeqLens) {
        const double f = run_counter(find_run(runs, "cpu/flash_fast", double(n), 64, 0), "peak_heap_bytes");
        const double s = run_counter(find_run(runs, "cpu/standard_blas", double(n), 64, 0), "peak_heap_bytes");
        out << "    " << std::setw(6) << n << std::setw(16) << std::setprecision(0) << f << std::setw(16) << s;
        if (std::isfinite(prev_f)) out << "   x" << std::setprecision(2) << f / prev_f << ", x" << s / prev_s;
        out << "\n";
        json << (first ? "" : ",") << "{\"N\":" << n << ",\"d\":64,\"flash_bytes\":" << json_number(f) << ",\"standard_bytes\":" << json_number(s)
             << "}";
        first = false;
        prev_f = f;
        prev_s = s;
    }
    json << "]}";
    out << std::defaultfloat << std::setprecision(6);
    return json.str();
}

std::string model_predictions(const std::vector<Problem>& problems) {
    std::ostringstream json;
    json << "[";
    bool first = true;
    std::set<std::tuple<std::size_t, std::size_t, std::size_t, std::size_t, bool>> seen;
    for (const Problem& p : problems) {
        const bool causal = p.causal != Causal::none;
        if (!seen.insert({p.batch, p.heads, p.seq, p.head_dim, causal}).second) continue;
        for (const cost::GpuPreset& gpu : cost::gpu_presets()) {
            for (cost::Precision precision : {cost::Precision::fp16, cost::Precision::fp32}) {
                for (cost::Algorithm algo : {cost::Algorithm::standard, cost::Algorithm::flash}) {
                    cost::AttentionPrediction pr;
                    try {
                        pr = cost::predict(p.cost_shape(), algo, cost::Pass::forward, gpu, precision);
                    } catch (const Error&) {
                        continue;  // a number this GPU's sources do not publish: no prediction
                    }
                    json << (first ? "" : ",") << "{\"gpu\":" << quoted(gpu.id) << ",\"gpu_name\":" << quoted(gpu.name)
                         << ",\"precision\":" << quoted(cost::precision_name(precision))
                         << ",\"algorithm\":" << quoted(cost::algorithm_name(algo)) << ",\"batch\":" << p.batch
                         << ",\"heads\":" << p.heads << ",\"N\":" << p.seq << ",\"d\":" << p.head_dim
                         << ",\"causal\":" << (causal ? "true" : "false") << ",\"time_s\":" << json_number(pr.time_s)
                         << ",\"flops_per_s\":" << json_number(p.convention_flops() / pr.time_s)
                         << ",\"bound\":" << quoted(cost::bound_name(pr.bound)) << "}";
                    first = false;
                }
            }
        }
    }
    json << "]";
    return json.str();
}

}  // namespace attn::bench
