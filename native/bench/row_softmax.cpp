#include "row_softmax.hpp"

#include <cblas.h>

#include <algorithm>
#include <limits>
#include <numbers>
#include <vector>

#include "attn/attention/fast_exp2.hpp"
#include "attn/worker_pool.hpp"

namespace attn::bench {
namespace {

constexpr std::size_t kLanes = 16;  // independent partial results: lets the compiler keep a
                                    // whole SIMD register of them (a float sum is not reassociable)

}  // namespace

void softmax_row(float* s, std::size_t count, std::size_t visible) {
    if (visible == 0) {
        std::fill(s, s + count, 0.0f);
        return;
    }
    float lane[kLanes];
    std::fill(lane, lane + kLanes, -std::numeric_limits<float>::infinity());
    const std::size_t whole = visible / kLanes * kLanes;
    for (std::size_t j = 0; j < whole; j += kLanes) {
        for (std::size_t t = 0; t < kLanes; ++t) lane[t] = s[j + t] > lane[t] ? s[j + t] : lane[t];
    }
    float max = *std::max_element(lane, lane + kLanes);
    for (std::size_t j = whole; j < visible; ++j) max = s[j] > max ? s[j] : max;
    if (max == -std::numeric_limits<float>::infinity()) {  // every visible score masked
        std::fill(s, s + count, 0.0f);
        return;
    }

    const float shift = max * std::numbers::log2e_v<float>;
    std::fill(lane, lane + kLanes, 0.0f);
    for (std::size_t j = 0; j < whole; j += kLanes) {
        for (std::size_t t = 0; t < kLanes; ++t) {
            s[j + t] = fast_exp2(s[j + t] * std::numbers::log2e_v<float> - shift);
            lane[t] += s[j + t];
        }
    }
    float sum = 0.0f;
    for (std::size_t t = 0; t < kLanes; ++t) sum += lane[t];
    for (std::size_t j = whole; j < visible; ++j) {
        s[j] = fast_exp2(s[j] * std::numbers::log2e_v<float> - shift);
        sum += s[j];
    }
    const float inv = 1.0f / sum;
    for (std::size_t j = 0; j < visible; ++j) s[j] *= inv;
    std::fill(s + visible, s + count, 0.0f);
}

void parallel_rows(std::size_t rows, const std::function<void(std::size_t)>& fn) {
    const std::size_t workers = default_workers();
    // The rows are the parallelism: a BLAS call inside runs on its own thread, or OpenBLAS would
    // start its threads for each small product and oversubscribe the cores.
    const int blas_threads = openblas_get_num_threads();
    openblas_set_num_threads(1);
    auto work = [&](std::size_t w) {
        for (std::size_t r = w; r < rows; r += workers) fn(r);
    };
    run_on_workers(workers, work);  // the threads the flash path it is compared with runs on
    openblas_set_num_threads(blas_threads);
}

}  // namespace attn::bench
