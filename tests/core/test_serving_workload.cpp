// The seeded serving workload and its replay against the paged cache (PagedAttention, Kwon et al.
// 2023) and the contiguous-reservation baseline: conservation of memory in every step snapshot,
// every request served or rejected, the steppers re-creating the replay's state event by event
// (with every live sequence's gathered tokens equal to the values its request wrote), and the
// paged cache using its memory better than max-length reservation on the same requests.
#include <map>
#include <vector>
#include <utility>

#include "attn/error.hpp"
#include "attn/kvcache/serving_workload.hpp"
#include "support.hpp"

using namespace attn;
using namespace attn::kvcache;

namespace {

ReplayConfig config(AllocatorKind a, std::size_t blocks, std::size_t bs, ReservationPolicy p = ReservationPolicy::max_len) {
    ReplayConfig c;
    c.allocator = a;
    c.num_blocks = blocks;
    c.block_size = bs;
    c.reservation = p;
    return c;
}

// A small, busy workload: short gaps, many parallel samples, a tight pool.
WorkloadParams small_params(std::uint64_t seed) {
    WorkloadParams p;
    p.seed = seed;
    p.num_requests = 17;
    p.mean_interarrival_steps = 1.0;
    p.min_prompt_tokens = 1;
    p.max_prompt_tokens = 29;
    p.mean_output_tokens = 12.0;
    p.max_output_tokens = 40;
    p.parallel_fraction = 0.5;
    p.max_samples = 3;
    return p;
}

void check_replay(const Workload& w, const ReplayResult& r) {
    const ReplaySummary& s = r.summary;
    CHECK(s.finished + s.rejected == w.requests.size());
    CHECK(s.admitted == s.finished);
    std::size_t expected_tokens = 0, rejected = 0;
    for (const ReplayEvent& e : r.events) rejected += e.kind == EventKind::reject;
    CHECK(rejected == s.rejected);
    for (const Request& q : w.requests) {
        for (std::size_t out : q.output_tokens) expected_tokens += out;
    }
    if (s.rejected == 0) CHECK(s.generated_tokens == expected_tokens);
    CHECK(r.timeline.size() == s.steps);
    for (const StepSnapshot& t : r.timeline) {
        // Every slot of the pool is live KV, waste of one kind, or free.
        REQUIRE(t.stored_tokens + t.reserved_for_future_slots + t.internal_fragmentation_slots + t.free_slots == t.capacity_slots);
        REQUIRE(t.allocated_slots + t.free_slots == t.capacity_slots);
        REQUIRE(t.external_fragmentation_slots <= t.free_slots);
        if (r.config.allocator == AllocatorKind::paged) {
            REQUIRE(t.reserved_for_future_slots == 0);
            REQUIRE(t.external_fragmentation_slots == 0);
            REQUIRE(t.internal_fragmentation_slots < (t.running_sequences + 1) * r.config.block_size * 2);
        } else {
            REQUIRE(t.preempted_total == 0);
        }
    }
    CHECK(r.timeline.back().running_requests == 0);
    CHECK(r.timeline.back().stored_tokens == 0);
}

}  // namespace

TEST_CASE("make_workload: seeded, within its parameters, and validated") {
    const WorkloadParams p;
    const Workload a = make_workload(p), b = make_workload(p);
    REQUIRE(a.requests.size() == p.num_requests);
    std::size_t parallel = 0;
    for (std::size_t r = 0; r < a.requests.size(); ++r) {
        const Request& q = a.requests[r];
        CHECK(q.id == r);
        CHECK(q.arrival_step == b.requests[r].arrival_step);
        CHECK(q.output_tokens == b.requests[r].output_tokens);
        if (r > 0) CHECK(q.arrival_step >= a.requests[r - 1].arrival_step);
        CHECK(q.prompt_tokens >= p.min_prompt_tokens);
        CHECK(q.prompt_tokens <= p.max_prompt_tokens);
        CHECK(q.output_tokens.size() >= 1);
        CHECK(q.output_tokens.size() <= p.max_samples);
        for (std::size_t o : q.output_tokens) CHECK((o >= 1 && o <= p.max_output_tokens));
        parallel += q.output_tokens.size() > 1;
    }
    CHECK(parallel > 0);
    WorkloadParams other = p;
    other.seed = p.seed + 1;
    bool differs = false;
    const Workload c = make_workload(other);
    for (std::size_t r = 0; r < c.requests.size(); ++r) differs |= c.requests[r].prompt_tokens != a.requests[r].prompt_tokens;
    CHECK(differs);

    WorkloadParams bad = p;
    bad.num_requests = 0;
    CHECK_THROWS_WITH_AS(make_workload(bad), doctest::Contains("params.num_requests: must be in [1, 100000]"), Error);
    bad = p;
    bad.min_prompt_tokens = 200;
    CHECK_THROWS_WITH_AS(make_workload(bad), doctest::Contains("params.min_prompt_tokens: must be in [1, 96]"), Error);
    bad = p;
    bad.mean_interarrival_steps = 0;
    CHECK_THROWS_WITH_AS(make_workload(bad), doctest::Contains("params.mean_interarrival_steps"), Error);
    bad = p;
    bad.parallel_fraction = 1.5;
    CHECK_THROWS_WITH_AS(make_workload(bad), doctest::Contains("params.parallel_fraction"), Error);
    bad = p;
    bad.max_samples = 1;
    CHECK_THROWS_WITH_AS(make_workload(bad), doctest::Contains("params.max_samples: must be in [2, 64]"), Error);
    bad = p;
    bad.mean_output_tokens = NAN;
    CHECK_THROWS_AS(make_workload(bad), Error);
}

TEST_CASE("replay: the default workload, paged against contiguous reservations") {
    const Workload w = make_workload(WorkloadParams{});
    const ReplayResult paged = replay(w, ReplayConfig{});
    check_replay(w, paged);
    std::map<ReservationPolicy, ReplaySummary> contiguous;
    for (auto policy : {ReservationPolicy::max_len, ReservationPolicy::pow2, ReservationPolicy::oracle}) {
        const ReplayResult r = replay(w, config(AllocatorKind::contiguous, paged.config.num_blocks, paged.config.block_size, policy));
        check_replay(w, r);
        contiguous[policy] = r.summary;
    }
    const ReplaySummary& p = paged.summary;
    const ReplaySummary& m = contiguous[ReservationPolicy::max_len];
    // Same requests, same tokens generated; paging keeps more requests running, so it queues less
    // and finishes sooner (paper §6: higher throughput from larger batches).
    CHECK(p.generated_tokens == m.generated_tokens);
    CHECK(p.mean_utilisation > m.mean_utilisation);
    CHECK(p.mean_utilisation > contiguous[ReservationPolicy::oracle].mean_utilisation);
    CHECK(p.mean_running_requests > m.mean_running_requests);
    CHECK(p.steps < m.steps);
    CHECK(m.mean_internal_fragmentation_fraction > contiguous[ReservationPolicy::oracle].mean_internal_fragmentation_fraction);
    CHECK(contiguous[ReservationPolicy::oracle].mean_internal_fragmentation_fraction == 0.0);
    const auto line = [](const char* name, const ReplaySummary& s) {
        MESSAGE(std::string(name) << ": steps " << s.steps << ", utilisation (stored/allocated) " << s.mean_utilisation << ", stored/capacity "
                     << s.mean_stored_fraction << ", reserved-future " << s.mean_reserved_future_fraction << ", internal frag "
                     << s.mean_internal_fragmentation_fraction << ", external frag " << s.mean_external_fragmentation_fraction
                     << ", running " << s.mean_running_requests << " (peak " << s.peak_running_requests << "), queued "
                     << s.mean_queued_requests << ", queue delay " << s.mean_queue_delay_steps << " steps, admitted "
                     << s.admitted << ", rejected " << s.rejected << ", preemptions " << s.preemptions << ", recompute tokens "
                     << s.recompute_tokens << ", generated " << s.generated_tokens);
    };
    line("paged", p);
    line("contiguous max_len", m);
    line("contiguous pow2", contiguous[ReservationPolicy::pow2]);
    line("contiguous oracle", contiguous[ReservationPolicy::oracle]);
}

TEST_CASE("replay + steppers: random seeded workloads re-created event by event") {
    std::size_t events_checked = 0, preemptions = 0, cows = 0;
    for (std::size_t bs : {1, 3, 16}) {
        for (std::size_t blocks : {17, 113}) {
            const std::uint64_t seed = test::next_seed();
            INFO("seed = " << seed << ", block_size = " << bs << ", blocks = " << blocks);
            const Workload w = make_workload(small_params(seed));
            const ReplayResult paged = replay(w, config(AllocatorKind::paged, blocks, bs));
            check_replay(w, paged);
            preemptions += paged.summary.preemptions;

            // The stepper reproduces the replay; each live sequence holds its prompt then its own
            // sample's tokens, whatever forks, copy-on-writes and preemptions happened.
            PagedReplayStepper stepper(paged);
            std::map<std::size_t, std::pair<std::size_t, std::size_t>> owner;  // seq -> (request, sample)
            std::size_t step = 0;
            while (stepper.position() < stepper.size()) {
                const ReplayEvent& e = stepper.apply_next();
                ++events_checked;
                cows += e.kind == EventKind::append && e.append_kind == AppendKind::copy_on_write;
                if (e.kind == EventKind::admit || e.kind == EventKind::fork) owner[e.sequence] = {e.request, e.sample};
                const bool step_done = stepper.position() == stepper.size() || paged.events[stepper.position()].step != e.step;
                if (!step_done) continue;
                // Between steps the pool matches the recorded snapshot (steps with no event
                // cannot change memory).
                while (paged.timeline[step].step < e.step) ++step;
                const PagedStats st = stepper.cache().stats();
                REQUIRE(st.stored_tokens == paged.timeline[step].stored_tokens);
                REQUIRE(st.allocated_slots == paged.timeline[step].allocated_slots);
                for (auto id : stepper.cache().sequences()) {
                    const auto [req, sample] = owner.at(id);
                    const std::size_t prompt = w.requests[req].prompt_tokens;
                    const std::vector<float> got = stepper.cache().gather(id);
                    REQUIRE(got.size() >= prompt);
                    for (std::size_t i = 0; i < got.size(); ++i) {
                        REQUIRE(got[i] == (i < prompt ? token_value(req, 0, i) : token_value(req, sample + 1, i - prompt)));
                    }
                }
            }
            CHECK(stepper.cache().free_blocks() == blocks);  // no leak at the end of the workload
            stepper.seek(stepper.size() / 2);
            CHECK(stepper.position() == stepper.size() / 2);
            stepper.seek(0);
            CHECK(stepper.cache().stats().blocks_used == 0);
            CHECK_THROWS_WITH_AS(stepper.seek(stepper.size() + 1), doctest::Contains("position: must be in [0, "), Error);

            const ReplayResult contiguous = replay(w, config(AllocatorKind::contiguous, blocks, bs, ReservationPolicy::pow2));
            check_replay(w, contiguous);
            ContiguousReplayStepper cs(contiguous);
            while (cs.position() < cs.size()) cs.apply_next();
            CHECK(cs.cache().stats().free_slots == blocks * bs);
            CHECK_THROWS_WITH_AS(cs.apply_next(), doctest::Contains("all "), Error);
            CHECK_THROWS_WITH_AS(ContiguousReplayStepper{paged}, doctest::Contains("replay: must come from a contiguous replay"), Error);
            CHECK_THROWS_WITH_AS(PagedReplayStepper{contiguous}, doctest::Contains("replay: must come from a paged replay"), Error);
        }
    }
    CHECK(preemptions > 0);  // the tight pools force evictions
    CHECK(cows > 0);
    MESSAGE("replay events re-applied and checked: " << events_checked << ", preemptions " << preemptions << ", copy-on-writes " << cows);
}

namespace {

// Everything a figure draws of a paged state: each live sequence's table and length, and the
// reference count of every block.
std::vector<std::size_t> fingerprint(const PagedKvCache& c) {
    std::vector<std::size_t> f;
    for (auto id : c.sequences()) {
        f.push_back(id);
        f.push_back(c.length(id));
        f.insert(f.end(), c.block_table(id).begin(), c.block_table(id).end());
    }
    for (std::size_t b = 0; b < c.config().num_blocks; ++b) f.push_back(c.refcount(b));
    return f;
}

std::vector<std::size_t> fingerprint(const ContiguousKvCache& c) {
    std::vector<std::size_t> f;
    for (const ContiguousReservation& r : c.reservations()) f.insert(f.end(), {r.id, r.offset, r.reserved_slots, r.used_slots});
    for (const auto& [offset, length] : c.holes()) f.insert(f.end(), {offset, length});
    return f;
}

// Seeks in a seeded random order land on the state of applying the events in order, and each
// re-applies fewer events than the checkpoint interval (never more than a walk forward would).
template <class Stepper>
void check_random_seeks(Stepper stepper, std::uint64_t seed) {
    std::vector<std::vector<std::size_t>> in_order{fingerprint(stepper.cache())};
    while (stepper.position() < stepper.size()) {
        stepper.apply_next();
        in_order.push_back(fingerprint(stepper.cache()));
    }
    const std::size_t interval = stepper.checkpoint_interval();
    CHECK(interval >= kMinCheckpointInterval);
    for (std::size_t k = 0; k < 200; ++k) {
        const std::size_t from = stepper.position();
        const auto to = static_cast<std::size_t>(uniform_from_hash(seed, k) * static_cast<double>(stepper.size() + 1));
        const std::size_t applied = stepper.seek(to);
        REQUIRE(stepper.position() == to);
        REQUIRE(fingerprint(stepper.cache()) == in_order[to]);
        REQUIRE(applied < interval);
        if (to >= from) REQUIRE(applied <= to - from);
    }
}

}  // namespace

TEST_CASE("replay steppers: seeks anywhere restore a checkpoint and re-apply fewer events than its interval") {
    for (std::size_t bs : {1, 16}) {
        const std::uint64_t seed = test::next_seed();
        INFO("seed = " << seed << ", block_size = " << bs);
        WorkloadParams p = small_params(seed);
        p.num_requests = 40;
        const Workload w = make_workload(p);
        const ReplayResult paged = replay(w, config(AllocatorKind::paged, 29, bs));
        REQUIRE(paged.events.size() > 4 * kMinCheckpointInterval);
        check_random_seeks(PagedReplayStepper(paged), seed);
        check_random_seeks(ContiguousReplayStepper(replay(w, config(AllocatorKind::contiguous, 29, bs))), seed + 1);
    }
    // A large pool gets fewer copies: the interval grows so that the copies stay within the budget.
    const ReplayCheckpoints<PagedKvCache> big(1000000, kCheckpointSlotBudget / 8);
    CHECK(big.interval() == 1000000 / 8);
    const ReplayCheckpoints<PagedKvCache> small(100, 64);
    CHECK(small.interval() == kMinCheckpointInterval);
}

TEST_CASE("replay: requests too large for the pool are rejected, and bad configs throw") {
    WorkloadParams p = small_params(test::next_seed());
    p.min_prompt_tokens = 20;
    const Workload w = make_workload(p);
    // 2 blocks of 8 slots: no 20-token prompt fits in either allocator.
    for (auto a : {AllocatorKind::paged, AllocatorKind::contiguous}) {
        const ReplayResult r = replay(w, config(a, 2, 8));
        CHECK(r.summary.rejected == w.requests.size());
        CHECK(r.summary.admitted == 0);
        CHECK(r.summary.generated_tokens == 0);
    }
    ReplayConfig c;
    c.num_blocks = 0;
    CHECK_THROWS_WITH_AS(replay(w, c), doctest::Contains("config.num_blocks: must be in [1, 1048576]"), Error);
    c = ReplayConfig{};
    c.block_size = 5000;
    CHECK_THROWS_WITH_AS(replay(w, c), doctest::Contains("config.block_size: must be in [1, 4096]"), Error);
    c = ReplayConfig{};
    c.num_blocks = 1 << 20;
    c.block_size = 4096;
    CHECK_THROWS_WITH_AS(replay(w, c), doctest::Contains("config.num_blocks * config.block_size"), Error);
    c = ReplayConfig{};
    c.max_steps = 3;
    CHECK_THROWS_WITH_AS(replay(w, c), doctest::Contains("config.max_steps"), Error);
    c = ReplayConfig{};
    c.max_events = 10;
    CHECK_THROWS_WITH_AS(replay(w, c), doctest::Contains("config.max_events"), Error);
    Workload broken = w;
    broken.requests[0].output_tokens.clear();
    CHECK_THROWS_WITH_AS(replay(broken, ReplayConfig{}), doctest::Contains("workload.requests[0].output_tokens"), Error);
    broken = w;
    broken.requests[1].output_tokens[0] = p.max_output_tokens + 1;
    CHECK_THROWS_WITH_AS(replay(broken, ReplayConfig{}), doctest::Contains("workload.requests[1].output_tokens: each must be in"), Error);
}
