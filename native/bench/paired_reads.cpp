#include "paired_reads.hpp"

#include <algorithm>
#include <string>

#include "attn/error.hpp"

namespace attn::bench {

double median(std::vector<double> seconds) {
    if (seconds.empty()) throw Error("seconds: at least one time is needed for a median, got none");
    std::sort(seconds.begin(), seconds.end());
    const std::size_t n = seconds.size();
    return n % 2 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
}

double median_speed_percent(const std::vector<double>& measured_seconds, const std::vector<double>& reference_seconds) {
    if (measured_seconds.empty() || measured_seconds.size() != reference_seconds.size()) {
        throw Error("measured_seconds/reference_seconds: one time per iteration each, the same positive count, got " +
                    std::to_string(measured_seconds.size()) + " and " + std::to_string(reference_seconds.size()));
    }
    std::vector<double> percent;
    percent.reserve(measured_seconds.size());
    for (std::size_t i = 0; i < measured_seconds.size(); ++i) {
        if (!(measured_seconds[i] > 0 && reference_seconds[i] > 0)) {
            throw Error("measured_seconds/reference_seconds: times must be positive, got " +
                        std::to_string(measured_seconds[i]) + " and " + std::to_string(reference_seconds[i]) +
                        " at iteration " + std::to_string(i));
        }
        percent.push_back(100 * reference_seconds[i] / measured_seconds[i]);
    }
    return median(std::move(percent));
}

}  // namespace attn::bench
