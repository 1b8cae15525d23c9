#include "attn/kvcache/contiguous_kv_cache.hpp"

#include <algorithm>
#include <string>

#include "attn/error.hpp"

namespace attn::kvcache {
namespace {

std::string str(std::size_t n) { return std::to_string(n); }

}  // namespace

ContiguousKvCache::ContiguousKvCache(std::size_t capacity_slots) : capacity_(capacity_slots) {
    if (capacity_slots < 1 || capacity_slots > kMaxContiguousSlots) {
        throw Error("capacity_slots: must be in [1, " + str(kMaxContiguousSlots) + "], got " + str(capacity_slots));
    }
}

std::vector<std::pair<std::size_t, std::size_t>> ContiguousKvCache::holes() const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::size_t cursor = 0;
    for (const auto& [offset, id] : by_offset_) {
        if (offset > cursor) out.emplace_back(cursor, offset - cursor);
        cursor = offset + by_id_.at(id).reserved_slots;
    }
    if (capacity_ > cursor) out.emplace_back(cursor, capacity_ - cursor);
    return out;
}

std::optional<std::size_t> ContiguousKvCache::first_fit(std::size_t slots) const {
    for (const auto& [offset, length] : holes()) {
        if (length >= slots) return offset;
    }
    return std::nullopt;
}

bool ContiguousKvCache::fits(std::size_t reserved_slots) const {
    if (reserved_slots < 1 || reserved_slots > capacity_) {
        throw Error("reserved_slots: must be in [1, " + str(capacity_) + "], got " + str(reserved_slots));
    }
    return first_fit(reserved_slots).has_value();
}

std::optional<ContiguousKvCache::ResId> ContiguousKvCache::reserve(std::size_t reserved_slots, std::size_t final_slots) {
    if (reserved_slots < 1 || reserved_slots > capacity_) {
        throw Error("reserved_slots: must be in [1, " + str(capacity_) + "], got " + str(reserved_slots));
    }
    if (final_slots > reserved_slots) {
        throw Error("final_slots: must be in [0, " + str(reserved_slots) + "] (the reservation), got " + str(final_slots));
    }
    const auto offset = first_fit(reserved_slots);
    if (!offset) return std::nullopt;
    const ResId id = next_id_++;
    by_id_.emplace(id, ContiguousReservation{id, *offset, reserved_slots, 0, final_slots});
    by_offset_.emplace(*offset, id);
    return id;
}

void ContiguousKvCache::append_token(ResId id) {
    const auto it = by_id_.find(id);
    if (it == by_id_.end()) throw Error("id: no live reservation with id " + str(id));
    ContiguousReservation& r = it->second;
    if (r.used_slots == r.reserved_slots) {
        throw Error("id: reservation " + str(id) + " is full (" + str(r.reserved_slots) + " slots); a contiguous cache cannot grow in place");
    }
    ++r.used_slots;
    // A request outgrowing its hindsight length has no never-used tail left.
    r.final_slots = std::max(r.final_slots, r.used_slots);
}

void ContiguousKvCache::release(ResId id) {
    const auto it = by_id_.find(id);
    if (it == by_id_.end()) throw Error("id: no live reservation with id " + str(id));
    by_offset_.erase(it->second.offset);
    by_id_.erase(it);
}

std::size_t ContiguousKvCache::external_fragmentation_slots(std::size_t next_request_slots) const {
    std::size_t unusable = 0;
    for (const auto& [offset, length] : holes()) {
        if (length < next_request_slots) unusable += length;
    }
    return unusable;
}

bool ContiguousKvCache::contains(ResId id) const { return by_id_.count(id) != 0; }

const ContiguousReservation& ContiguousKvCache::reservation(ResId id) const {
    const auto it = by_id_.find(id);
    if (it == by_id_.end()) throw Error("id: no live reservation with id " + str(id));
    return it->second;
}

std::vector<ContiguousReservation> ContiguousKvCache::reservations() const {
    std::vector<ContiguousReservation> out;
    out.reserve(by_offset_.size());
    for (const auto& [offset, id] : by_offset_) out.push_back(by_id_.at(id));
    return out;
}

ContiguousStats ContiguousKvCache::stats() const {
    ContiguousStats st{};
    st.capacity_slots = capacity_;
    st.reservations = by_id_.size();
    for (const auto& [id, r] : by_id_) {
        st.reserved_slots += r.reserved_slots;
        st.used_slots += r.used_slots;
        st.reserved_for_future_slots += r.final_slots - r.used_slots;
        st.internal_fragmentation_slots += r.reserved_slots - r.final_slots;
    }
    st.free_slots = capacity_ - st.reserved_slots;
    for (const auto& [offset, length] : holes()) {
        ++st.holes;
        st.largest_hole_slots = std::max(st.largest_hole_slots, length);
    }
    st.utilisation = st.reserved_slots == 0 ? 0.0 : static_cast<double>(st.used_slots) / static_cast<double>(st.reserved_slots);
    return st;
}

}  // namespace attn::kvcache
