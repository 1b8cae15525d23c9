#pragma once
// The baseline PagedAttention replaces: every request reserves one contiguous range of KV slots
// for the longest it might become (prompt + maximum output) when it is admitted, in a linear
// arena, first fit (Kwon et al. 2023, arXiv:2309.06180, §3 and Figure 3, describing
// FasterTransformer and Orca).
//
// The paper sorts the memory such a system holds into three kinds of waste (§3, Figure 3):
//   * reserved slots: reserved for tokens the request will produce later (used eventually, but
//     idle now);
//   * internal fragmentation: reserved beyond the length the request will ever reach (never used);
//   * external fragmentation: free slots in holes too small for the next request.
// The first two split "reserved but unused" by hindsight, so a reservation records the length its
// request will finally reach (`final_slots`, known to a simulator, never to a real server).
#include <cstddef>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace attn::kvcache {

inline constexpr std::size_t kMaxContiguousSlots = std::size_t{1} << 26;

struct ContiguousReservation {
    std::size_t id;
    std::size_t offset;          // first slot of the range
    std::size_t reserved_slots;  // length of the range
    std::size_t used_slots;      // tokens written so far
    std::size_t final_slots;     // tokens the request will hold when it finishes (<= reserved_slots)
};

struct ContiguousStats {
    std::size_t capacity_slots;
    std::size_t reservations;
    std::size_t reserved_slots;                  // sum of reserved ranges
    std::size_t used_slots;                      // tokens held
    std::size_t reserved_for_future_slots;       // sum of final - used: idle now, used later
    std::size_t internal_fragmentation_slots;    // sum of reserved - final: never used
    std::size_t free_slots;                      // capacity - reserved
    std::size_t holes;                           // maximal free ranges
    std::size_t largest_hole_slots;
    double utilisation;                          // used / reserved; 0 when nothing is reserved
};

class ContiguousKvCache {
public:
    using ResId = std::size_t;

    // capacity_slots in [1, 2^26].
    explicit ContiguousKvCache(std::size_t capacity_slots);

    // Reserves `reserved_slots` contiguous slots at the lowest offset where they fit (first fit);
    // nullopt when no hole is large enough (the request must wait or be rejected).
    // reserved_slots in [1, capacity]; final_slots in [0, reserved_slots].
    std::optional<ResId> reserve(std::size_t reserved_slots, std::size_t final_slots);
    // Whether reserve(reserved_slots, .) would succeed now.
    bool fits(std::size_t reserved_slots) const;
    // Writes one token into the reservation's next slot; throws when the reservation is full.
    void append_token(ResId id);
    // Returns the range to the arena (the request finished, or was rejected after all).
    void release(ResId id);

    // Free slots in holes smaller than `next_request_slots`: memory the next request cannot use
    // although it is free (§3). 0 when next_request_slots is 0 (nothing is waiting).
    std::size_t external_fragmentation_slots(std::size_t next_request_slots) const;

    bool contains(ResId id) const;
    const ContiguousReservation& reservation(ResId id) const;
    std::vector<ContiguousReservation> reservations() const;     // by offset
    std::vector<std::pair<std::size_t, std::size_t>> holes() const;  // (offset, length), by offset
    ContiguousStats stats() const;
    std::size_t capacity_slots() const { return capacity_; }

private:
    std::optional<std::size_t> first_fit(std::size_t slots) const;

    std::size_t capacity_;
    std::map<ResId, ContiguousReservation> by_id_;
    std::map<std::size_t, ResId> by_offset_;
    ResId next_id_ = 0;
};

}  // namespace attn::kvcache
