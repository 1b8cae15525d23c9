#pragma once
// Private to the core: what the two loop orders of flash_forward share -- option checks, the
// on-chip state of one query block and how a trace step is stamped with its head's counters.
#include <utility>
#include <vector>

#include "attn/attention/flash_forward.hpp"
#include "attn/attention/online_softmax.hpp"
#include "attn/attention/sram_blocks.hpp"
#include "hbm_traffic.hpp"

namespace attn::detail {

inline constexpr std::uint64_t kStatBytes = 4;  // fp32 statistics, scores and accumulator

// Checks the options and returns the block sizes to use (derived from sram_elements when set).
BlockSizes flash_blocks(const FlashOptions& o, const AttentionProblem& p);

// The on-chip state of one query block (rows of m, l and the unnormalised accumulator) and the
// scratch of its current tile, from which trace steps are recorded.
template <class T>
struct QueryBlock {
    std::size_t rows = 0, value_dim = 0;
    std::vector<online_softmax::State<T>> state;
    std::vector<T> acc;      // rows x value_dim
    std::vector<T> rescale;  // per row, of the last step
    std::vector<T> scores, weights;

    void reset(std::size_t n_rows, std::size_t dv, std::size_t max_cols) {
        rows = n_rows;
        value_dim = dv;
        state.assign(rows, {});
        acc.assign(rows * dv, T(0));
        rescale.assign(rows, T(1));
        scores.resize(rows * max_cols);
        weights.resize(rows * max_cols);
    }

    FlashTraceStep<T> snapshot(FlashStepKind kind, std::size_t q_block, std::size_t k_block, std::size_t row_begin,
                               std::size_t col_begin, std::size_t col_end) const {
        FlashTraceStep<T> s{kind, q_block, k_block, row_begin, row_begin + rows, col_begin, col_end,
                            {}, {}, {}, {}, rescale, acc, std::vector<T>(rows * value_dim), 0, 0, 0, 0, {}};
        if (kind == FlashStepKind::tile) {
            const std::size_t n = rows * (col_end - col_begin);
            s.scores.assign(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(n));
            s.weights.assign(weights.begin(), weights.begin() + static_cast<std::ptrdiff_t>(n));
        }
        s.m.reserve(rows);
        s.l.reserve(rows);
        for (std::size_t r = 0; r < rows; ++r) {
            s.m.push_back(state[r].m);
            s.l.push_back(state[r].l);
            online_softmax::finalize(state[r], &acc[r * value_dim], value_dim, &s.output[r * value_dim]);
        }
        return s;
    }
};

// Records the trace of one (batch, head): each step carries the counters accumulated since the
// head began, the on-chip bytes live during it and the transfers listed since the last step.
template <class T>
class HeadRecorder {
public:
    HeadRecorder(FlashResult<T>& r, HbmTraffic& traffic, bool tracing)
        : r_(r), traffic_(traffic), start_(r.stats), tracing_(tracing) {
        traffic_.set_listing(tracing);
    }
    bool tracing() const { return tracing_; }
    void record(FlashTraceStep<T> step, std::uint64_t sram_bytes) {
        step.hbm_bytes_read = r_.stats.hbm_bytes_read - start_.hbm_bytes_read;
        step.hbm_bytes_written = r_.stats.hbm_bytes_written - start_.hbm_bytes_written;
        step.flops = r_.stats.flops - start_.flops;
        step.sram_bytes_held = sram_bytes;
        step.transfers = traffic_.take_step();
        r_.trace.push_back(std::move(step));
    }

private:
    FlashResult<T>& r_;
    HbmTraffic& traffic_;
    FlashStats start_;
    bool tracing_;
};

// FlashAttention-1's loop order (flash_forward_fa1.cpp); fills r.output, r.lse, r.stats, r.trace.
template <class T>
void flash_forward_fa1(const Tensor4<T>& q, const Tensor4<T>& k, const Tensor4<T>& v, const FlashOptions& options,
                       const AttentionProblem& p, FlashResult<T>& r);

}  // namespace attn::detail
