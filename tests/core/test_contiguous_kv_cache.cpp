// ContiguousKvCache: first-fit reservations in a linear arena and the paper's waste classes
// (Kwon et al. 2023, §3, Figure 3): reserved-for-future, internal and external fragmentation.
#include <algorithm>
#include <map>

#include "attn/error.hpp"
#include "attn/kvcache/contiguous_kv_cache.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::kvcache;

namespace {

// Reservations never overlap, lie inside the arena, and with the holes tile it exactly.
void check_layout(const ContiguousKvCache& cache) {
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    for (const auto& r : cache.reservations()) {
        REQUIRE(r.used_slots <= r.reserved_slots);
        REQUIRE(r.final_slots <= r.reserved_slots);
        REQUIRE(r.used_slots <= r.final_slots);
        ranges.emplace_back(r.offset, r.reserved_slots);
    }
    for (const auto& h : cache.holes()) ranges.push_back(h);
    std::sort(ranges.begin(), ranges.end());
    std::size_t cursor = 0;
    for (const auto& [offset, length] : ranges) {
        REQUIRE(offset == cursor);
        REQUIRE(length > 0);
        cursor += length;
    }
    REQUIRE(cursor == cache.capacity_slots());
}

}  // namespace

TEST_CASE("ContiguousKvCache: first fit, and the three kinds of waste") {
    ContiguousKvCache cache(100);
    const auto a = cache.reserve(40, 25);  // will reach 25 of its 40 slots
    const auto b = cache.reserve(30, 30);
    const auto c = cache.reserve(20, 5);
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(c);
    CHECK(cache.reservation(*a).offset == 0);
    CHECK(cache.reservation(*b).offset == 40);
    CHECK(cache.reservation(*c).offset == 70);
    for (int i = 0; i < 10; ++i) cache.append_token(*a);
    for (int i = 0; i < 3; ++i) cache.append_token(*c);
    ContiguousStats st = cache.stats();
    CHECK(st.reserved_slots == 90);
    CHECK(st.used_slots == 13);
    CHECK(st.reserved_for_future_slots == (25 - 10) + 30 + (5 - 3));
    CHECK(st.internal_fragmentation_slots == 15 + 0 + 15);
    CHECK(st.free_slots == 10);
    CHECK(st.utilisation == doctest::Approx(13.0 / 90.0));
    // Free b: holes of 30 (at 40) and 10 (at 90). A 35-slot request fits in neither although 40 are free.
    cache.release(*b);
    CHECK(cache.holes() == std::vector<std::pair<std::size_t, std::size_t>>{{40, 30}, {90, 10}});
    CHECK_FALSE(cache.fits(35));
    CHECK_FALSE(cache.reserve(35, 35).has_value());
    CHECK(cache.external_fragmentation_slots(35) == 40);
    CHECK(cache.external_fragmentation_slots(20) == 10);  // only the 10-slot hole is too small
    CHECK(cache.external_fragmentation_slots(0) == 0);
    // First fit takes the lowest hole that is large enough.
    const auto d = cache.reserve(8, 8);
    CHECK(cache.reservation(*d).offset == 40);
    st = cache.stats();
    CHECK(st.holes == 2);
    CHECK(st.largest_hole_slots == 22);
    check_layout(cache);
}

TEST_CASE("ContiguousKvCache: a reservation never grows, and bad arguments throw") {
    ContiguousKvCache cache(10);
    const auto a = cache.reserve(3, 2);
    for (int i = 0; i < 3; ++i) cache.append_token(*a);
    // Outgrowing the hindsight length turns that slot from internal fragmentation into use.
    CHECK(cache.stats().internal_fragmentation_slots == 0);
    CHECK_THROWS_WITH_AS(cache.append_token(*a), doctest::Contains("is full (3 slots)"), Error);
    CHECK_THROWS_WITH_AS(cache.reserve(0, 0), doctest::Contains("reserved_slots: must be in [1, 10]"), Error);
    CHECK_THROWS_WITH_AS(cache.reserve(11, 0), doctest::Contains("reserved_slots: must be in [1, 10]"), Error);
    CHECK_THROWS_WITH_AS(cache.reserve(4, 5), doctest::Contains("final_slots: must be in [0, 4]"), Error);
    CHECK_THROWS_WITH_AS(cache.fits(0), doctest::Contains("reserved_slots"), Error);
    CHECK_THROWS_WITH_AS(cache.append_token(7), doctest::Contains("id: no live reservation with id 7"), Error);
    CHECK_THROWS_AS(cache.release(7), Error);
    CHECK_THROWS_AS(cache.reservation(7), Error);
    CHECK_THROWS_WITH_AS(ContiguousKvCache(0), doctest::Contains("capacity_slots: must be in [1, 67108864]"), Error);
    cache.release(*a);
    CHECK(cache.stats().free_slots == 10);
}

TEST_CASE("ContiguousKvCache: layout and accounting under random seeded reserve / append / release") {
    std::size_t total_ops = 0;
    for (std::size_t capacity : {1, 17, 129, 1000}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed = " << seed << ", capacity = " << capacity);
        ContiguousKvCache cache(capacity);
        std::map<std::size_t, std::size_t> used;  // reference: tokens per live reservation
        for (std::size_t op = 0; op < 2000; ++op, ++total_ops) {
            const double u = uniform_from_hash(seed, 2 * op), v = uniform_from_hash(seed, 2 * op + 1);
            if (used.empty() || u < 0.3) {
                const std::size_t want = 1 + std::size_t(v * double(std::min<std::size_t>(capacity, 64)));
                const std::size_t fin = std::size_t(uniform_from_hash(seed ^ 7, op) * double(want + 1));
                // A reservation succeeds exactly when some hole is large enough.
                const auto& holes = cache.holes();
                const bool hole = std::any_of(holes.begin(), holes.end(), [&](auto h) { return h.second >= want; });
                const auto id = cache.reserve(want, std::min(fin, want));
                REQUIRE(id.has_value() == hole);
                if (id) used[*id] = 0;
            } else {
                auto it = used.begin();
                std::advance(it, std::ptrdiff_t(v * double(used.size())) % std::ptrdiff_t(used.size()));
                if (u < 0.8 && it->second < cache.reservation(it->first).reserved_slots) {
                    cache.append_token(it->first);
                    ++it->second;
                } else if (u >= 0.8) {
                    cache.release(it->first);
                    used.erase(it);
                }
            }
            check_layout(cache);
            std::size_t tokens = 0;
            for (const auto& [id, n] : used) {
                REQUIRE(cache.reservation(id).used_slots == n);
                tokens += n;
            }
            const ContiguousStats st = cache.stats();
            REQUIRE(st.used_slots == tokens);
            REQUIRE(st.used_slots + st.reserved_for_future_slots + st.internal_fragmentation_slots + st.free_slots == capacity);
        }
        for (const auto& [id, n] : used) cache.release(id);
        CHECK(cache.stats().free_slots == capacity);
        CHECK(cache.holes().size() == 1);
    }
    MESSAGE("random ContiguousKvCache operations checked: " << total_ops);
}
