#pragma once
// Copies of a replay stepper's cache taken every `interval` events, so that a seek to any position
// restores the nearest copy at or before it and re-applies fewer than `interval` events, instead of
// replaying from the first event (a figure's scrubber seeks back and forth on every frame).
// The interval grows with the pool so that all copies together hold at most kCheckpointSlotBudget
// token slots, whatever the replay's length.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace attn::kvcache {

inline constexpr std::size_t kCheckpointSlotBudget = std::size_t{1} << 22;
inline constexpr std::size_t kMinCheckpointInterval = 16;  // a copy costs about as much as a few events

template <class Cache>
class ReplayCheckpoints {
public:
    // For a replay of `events` events on a cache of `capacity_slots` slots (>= 1).
    ReplayCheckpoints(std::size_t events, std::size_t capacity_slots) {
        const std::size_t copies = std::max<std::size_t>(1, kCheckpointSlotBudget / capacity_slots);
        interval_ = std::max(kMinCheckpointInterval, (events + copies - 1) / copies);
    }
    std::size_t interval() const { return interval_; }
    // Keeps `cache` as the state after `position` events when that is the next checkpoint due
    // (positions must be offered in increasing order, starting at 0).
    void offer(std::size_t position, const Cache& cache) {
        if (position == saved_.size() * interval_) saved_.push_back(cache);
    }
    // The checkpoint position at or before `position` (0 is always saved once offered).
    std::size_t at_or_before(std::size_t position) const {
        return std::min(position / interval_, saved_.size() - 1) * interval_;
    }
    const Cache& cache_at(std::size_t checkpoint_position) const { return saved_[checkpoint_position / interval_]; }

private:
    std::size_t interval_ = kMinCheckpointInterval;
    std::vector<Cache> saved_;
};

}  // namespace attn::kvcache
