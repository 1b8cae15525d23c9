#include "attn/kvcache/serving_workload.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <deque>
#include <limits>
#include <string>

#include "attn/error.hpp"

namespace attn::kvcache {
namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

std::string str(std::size_t n) { return std::to_string(n); }

void require_in(const char* name, std::size_t value, std::size_t lo, std::size_t hi) {
    if (value < lo || value > hi) {
        throw Error(std::string(name) + ": must be in [" + str(lo) + ", " + str(hi) + "], got " + str(value));
    }
}

void require_real(const char* name, double value, double lo, double hi, bool lo_open) {
    if (!std::isfinite(value) || value > hi || value < lo || (lo_open && value == lo)) {
        throw Error(std::string(name) + ": must be in " + (lo_open ? "(" : "[") + std::to_string(lo) + ", " +
                    std::to_string(hi) + "], got " + std::to_string(value));
    }
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// ---- scheduler state shared by both allocators -------------------------------------------------

struct Running {
    std::size_t request;
    std::vector<std::size_t> sequence;  // per sample; kNone once the sample finished
};

struct Sim {
    Sim(const Workload& w, const ReplayConfig& c, ReplayResult& o) : workload(w), config(c), out(o) {}
    const Workload& workload;
    const ReplayConfig& config;
    ReplayResult& out;
    std::size_t step = 0;
    std::vector<std::vector<std::size_t>> generated;  // [request][sample]: tokens decoded so far
    std::vector<std::size_t> first_admit_step;        // kNone until admitted
    std::deque<std::size_t> queue;
    std::vector<Running> running;                     // in admission order
    std::size_t preempted = 0, recompute_tokens = 0, generated_tokens = 0, finished = 0, rejected = 0;
    double swap_bytes = 0;

    void emit(ReplayEvent e) {
        if (out.events.size() >= config.max_events) {
            throw Error("config.max_events: the replay recorded more than " + str(config.max_events) + " events");
        }
        e.step = step;
        out.events.push_back(e);
    }
    const Request& request(std::size_t r) const { return workload.requests[r]; }
};

ReplayEvent event(EventKind kind, std::size_t request, std::size_t sample = 0, std::size_t sequence = kNone) {
    ReplayEvent e{};
    e.kind = kind;
    e.request = request;
    e.sample = sample;
    e.sequence = sequence;
    e.parent = kNone;
    e.append_kind = AppendKind::in_place;
    e.physical_block = kNone;
    e.copied_from = kNone;
    return e;
}

// ---- paged backend -------------------------------------------------------------------------------

struct PagedBackend {
    Sim& sim;
    PagedKvCache cache;

    std::size_t bs() const { return cache.config().block_size; }

    // Blocks a (re)admission reserves room for: the prompt, each unfinished sample's generated
    // tokens, and one spare block per sample for its next token (a copy-on-write or a new block).
    std::size_t admission_blocks(std::size_t r) const {
        const Request& q = sim.request(r);
        std::size_t need = ceil_div(q.prompt_tokens, bs());
        for (std::size_t s = 0; s < q.output_tokens.size(); ++s) {
            if (sim.generated[r][s] < q.output_tokens[s]) need += ceil_div(sim.generated[r][s], bs()) + 1;
        }
        return need;
    }
    // Alone in the pool the request needs at most this many blocks, so if it fits, it finishes.
    bool never_fits(std::size_t r) const {
        const Request& q = sim.request(r);
        std::size_t worst = ceil_div(q.prompt_tokens, bs());
        for (std::size_t out : q.output_tokens) worst += ceil_div(out, bs()) + 1;
        return worst > cache.config().num_blocks;
    }

    void append(ReplayEvent& e, std::size_t seq, std::size_t count) {
        for (std::size_t k = 0; k < count; ++k) {
            const AppendOutcome o = cache.append_token(seq, token_value(e.request, e.sample + 1, e.position + k));
            e.append_kind = o.kind;
            e.physical_block = o.physical_block;
            e.copied_from = o.copied_from;
        }
    }

    bool try_admit(std::size_t r) {
        if (admission_blocks(r) > cache.free_blocks()) return false;
        const Request& q = sim.request(r);
        Running run{r, std::vector<std::size_t>(q.output_tokens.size(), kNone)};
        std::size_t prompt_seq = kNone;
        for (std::size_t s = 0; s < q.output_tokens.size(); ++s) {
            if (sim.generated[r][s] == q.output_tokens[s]) continue;  // finished before a preemption
            if (prompt_seq == kNone) {
                // The prompt is written once; every other sample forks from it (§4.4).
                prompt_seq = cache.create_sequence();
                for (std::size_t i = 0; i < q.prompt_tokens; ++i) cache.append_token(prompt_seq, token_value(r, 0, i));
                ReplayEvent e = event(EventKind::admit, r, s, prompt_seq);
                e.tokens = q.prompt_tokens;
                sim.emit(e);
                run.sequence[s] = prompt_seq;
            } else {
                run.sequence[s] = cache.fork(prompt_seq);
                ReplayEvent e = event(EventKind::fork, r, s, run.sequence[s]);
                e.parent = prompt_seq;
                sim.emit(e);
            }
        }
        // A readmitted request recomputes each sample's generated tokens (§4.5, recomputation).
        for (std::size_t s = 0; s < q.output_tokens.size(); ++s) {
            if (run.sequence[s] == kNone || sim.generated[r][s] == 0) continue;
            ReplayEvent e = event(EventKind::append, r, s, run.sequence[s]);
            e.tokens = sim.generated[r][s];
            e.position = 0;
            append(e, run.sequence[s], e.tokens);
            sim.emit(e);
        }
        sim.running.push_back(std::move(run));
        return true;
    }

    // Evicts the most recently admitted request and queues it first (vLLM's policy, §4.5).
    void preempt_last() {
        Running victim = std::move(sim.running.back());
        sim.running.pop_back();
        for (std::size_t s = 0; s < victim.sequence.size(); ++s) {
            if (victim.sequence[s] == kNone) continue;
            const PreemptionCost cost = cache.preempt(victim.sequence[s]);
            ReplayEvent e = event(EventKind::preempt, victim.request, s, victim.sequence[s]);
            e.tokens = cost.tokens_to_recompute;
            sim.emit(e);
            sim.recompute_tokens += cost.tokens_to_recompute;
            sim.swap_bytes += cost.swap_bytes;
        }
        ++sim.preempted;
        sim.queue.push_front(victim.request);
    }

    // Makes room for one token of running[i]'s sample s; false if running[i] itself was evicted.
    bool make_room(std::size_t i, std::size_t s) {
        const std::size_t seq = sim.running[i].sequence[s];
        while (cache.blocks_needed_to_append(seq) > cache.free_blocks()) {
            const bool self = sim.running.size() - 1 == i;
            preempt_last();
            if (self) return false;
        }
        return true;
    }

    void decode(std::size_t i, std::size_t s) {
        Running& run = sim.running[i];
        ReplayEvent e = event(EventKind::append, run.request, s, run.sequence[s]);
        e.tokens = 1;
        e.position = sim.generated[run.request][s];
        append(e, run.sequence[s], 1);
        sim.emit(e);
    }

    void release(std::size_t seq) { cache.free(seq); }

    void snapshot(StepSnapshot& snap, std::size_t) const {
        const PagedStats st = cache.stats();
        snap.capacity_slots = st.num_blocks * st.block_size;
        snap.stored_tokens = st.stored_tokens;
        snap.allocated_slots = st.allocated_slots;
        snap.internal_fragmentation_slots = st.internal_fragmentation_slots;
        snap.free_slots = st.blocks_free * st.block_size;
    }
};

// ---- contiguous backend --------------------------------------------------------------------------

struct ContiguousBackend {
    Sim& sim;
    ContiguousKvCache cache;

    std::size_t reservation(std::size_t r, std::size_t s) const {
        const Request& q = sim.request(r);
        switch (sim.config.reservation) {
            case ReservationPolicy::max_len: return q.prompt_tokens + sim.workload.params.max_output_tokens;
            case ReservationPolicy::pow2: return std::bit_ceil(q.prompt_tokens + q.output_tokens[s]);
            case ReservationPolicy::oracle: break;
        }
        return q.prompt_tokens + q.output_tokens[s];
    }
    // Reservations of the samples one after another; an empty arena takes them all iff they fit.
    bool never_fits(std::size_t r) const {
        std::size_t total = 0;
        for (std::size_t s = 0; s < sim.request(r).output_tokens.size(); ++s) total += reservation(r, s);
        return total > cache.capacity_slots();
    }
    std::size_t largest_reservation(std::size_t r) const {
        std::size_t m = 0;
        for (std::size_t s = 0; s < sim.request(r).output_tokens.size(); ++s) m = std::max(m, reservation(r, s));
        return m;
    }

    bool try_admit(std::size_t r) {
        const Request& q = sim.request(r);
        // Each sample gets its own range holding its own copy of the prompt: nothing is shared.
        // All samples or none: try the reservations on a copy first, so a refused admission
        // leaves no trace (not even consumed reservation ids, which a stepper re-creates).
        ContiguousKvCache trial = cache;
        for (std::size_t s = 0; s < q.output_tokens.size(); ++s) {
            if (!trial.reserve(reservation(r, s), q.prompt_tokens + q.output_tokens[s])) return false;
        }
        Running run{r, std::vector<std::size_t>(q.output_tokens.size(), kNone)};
        for (std::size_t s = 0; s < q.output_tokens.size(); ++s) {
            run.sequence[s] = *cache.reserve(reservation(r, s), q.prompt_tokens + q.output_tokens[s]);
        }
        for (std::size_t s = 0; s < q.output_tokens.size(); ++s) {
            for (std::size_t i = 0; i < q.prompt_tokens; ++i) cache.append_token(run.sequence[s]);
            const ContiguousReservation& res = cache.reservation(run.sequence[s]);
            ReplayEvent e = event(EventKind::admit, r, s, run.sequence[s]);
            e.tokens = q.prompt_tokens;
            e.reserved_slots = res.reserved_slots;
            e.final_slots = res.final_slots;
            sim.emit(e);
        }
        sim.running.push_back(std::move(run));
        return true;
    }

    bool make_room(std::size_t, std::size_t) { return true; }  // the reservation already holds the token

    void decode(std::size_t i, std::size_t s) {
        const Running& run = sim.running[i];
        cache.append_token(run.sequence[s]);
        ReplayEvent e = event(EventKind::append, run.request, s, run.sequence[s]);
        e.tokens = 1;
        e.position = sim.generated[run.request][s];
        sim.emit(e);
    }

    void release(std::size_t id) { cache.release(id); }

    void snapshot(StepSnapshot& snap, std::size_t queue_head) const {
        const ContiguousStats st = cache.stats();
        snap.capacity_slots = st.capacity_slots;
        snap.stored_tokens = st.used_slots;
        snap.allocated_slots = st.reserved_slots;
        snap.reserved_for_future_slots = st.reserved_for_future_slots;
        snap.internal_fragmentation_slots = st.internal_fragmentation_slots;
        snap.external_fragmentation_slots =
            queue_head == kNone ? 0 : cache.external_fragmentation_slots(largest_reservation(queue_head));
        snap.free_slots = st.free_slots;
    }
};

// ---- the scheduler loop --------------------------------------------------------------------------

template <class Backend>
void run_schedule(Sim& sim, Backend& backend) {
    const auto& requests = sim.workload.requests;
    const std::size_t n = requests.size();
    std::size_t next_arrival = 0, done = 0, admitted = 0;
    while (done < n) {
        if (sim.step >= sim.config.max_steps) {
            throw Error("config.max_steps: the workload was not finished after " + str(sim.config.max_steps) + " steps");
        }
        // 1. Arrivals join the queue, or are rejected if they could never run.
        for (; next_arrival < n && requests[next_arrival].arrival_step <= sim.step; ++next_arrival) {
            sim.emit(event(EventKind::arrive, next_arrival));
            if (backend.never_fits(next_arrival)) {
                sim.emit(event(EventKind::reject, next_arrival));
                ++sim.rejected;
                ++done;
            } else {
                sim.queue.push_back(next_arrival);
            }
        }
        // 2. FCFS admission while memory allows.
        while (!sim.queue.empty() && backend.try_admit(sim.queue.front())) {
            const std::size_t r = sim.queue.front();
            sim.queue.pop_front();
            if (sim.first_admit_step[r] == kNone) {
                sim.first_admit_step[r] = sim.step;
                ++admitted;
            }
        }
        // 3. One token per running sequence; finished samples free their memory.
        for (std::size_t i = 0; i < sim.running.size(); ++i) {
            bool evicted = false;
            for (std::size_t s = 0; s < sim.running[i].sequence.size() && !evicted; ++s) {
                if (sim.running[i].sequence[s] == kNone) continue;
                if (!backend.make_room(i, s)) {
                    evicted = true;
                    break;
                }
                const std::size_t r = sim.running[i].request;
                backend.decode(i, s);
                ++sim.generated_tokens;
                if (++sim.generated[r][s] == requests[r].output_tokens[s]) {
                    sim.emit(event(EventKind::finish, r, s, sim.running[i].sequence[s]));
                    backend.release(sim.running[i].sequence[s]);
                    sim.running[i].sequence[s] = kNone;
                }
            }
            if (evicted) break;  // running[i] was the last running request, so nothing follows it
        }
        // Retire requests whose samples are all done (order preserved).
        std::erase_if(sim.running, [&](const Running& run) {
            const bool all_done = std::all_of(run.sequence.begin(), run.sequence.end(), [](std::size_t q) { return q == kNone; });
            if (all_done) {
                ++sim.finished;
                ++done;
            }
            return all_done;
        });

        StepSnapshot snap{};
        snap.step = sim.step;
        backend.snapshot(snap, sim.queue.empty() ? kNone : sim.queue.front());
        snap.running_requests = sim.running.size();
        for (const Running& run : sim.running) {
            snap.running_sequences += static_cast<std::size_t>(
                std::count_if(run.sequence.begin(), run.sequence.end(), [](std::size_t q) { return q != kNone; }));
        }
        snap.queued_requests = sim.queue.size();
        snap.admitted_total = admitted;
        snap.rejected_total = sim.rejected;
        snap.finished_total = sim.finished;
        snap.preempted_total = sim.preempted;
        sim.out.timeline.push_back(snap);
        ++sim.step;
    }
}

ReplaySummary summarise(const Sim& sim, const ReplayResult& r) {
    ReplaySummary s{};
    s.allocator = r.config.allocator;
    s.steps = r.timeline.size();
    s.requests = sim.workload.requests.size();
    s.rejected = sim.rejected;
    s.finished = sim.finished;
    s.preemptions = sim.preempted;
    s.recompute_tokens = sim.recompute_tokens;
    s.swap_bytes_alternative = sim.swap_bytes;
    // Recomputed tokens were decoded once already; count only the first time.
    s.generated_tokens = 0;
    for (const auto& per_sample : sim.generated) {
        for (std::size_t g : per_sample) s.generated_tokens += g;
    }
    double delay = 0;
    for (std::size_t q = 0; q < sim.first_admit_step.size(); ++q) {
        if (sim.first_admit_step[q] == kNone) continue;
        ++s.admitted;
        delay += static_cast<double>(sim.first_admit_step[q] - sim.workload.requests[q].arrival_step);
    }
    s.mean_queue_delay_steps = s.admitted == 0 ? 0.0 : delay / static_cast<double>(s.admitted);
    std::size_t allocated_steps = 0;
    for (const StepSnapshot& t : r.timeline) {
        const double cap = static_cast<double>(t.capacity_slots);
        s.mean_running_requests += static_cast<double>(t.running_requests);
        s.mean_running_sequences += static_cast<double>(t.running_sequences);
        s.mean_queued_requests += static_cast<double>(t.queued_requests);
        s.peak_running_requests = std::max(s.peak_running_requests, t.running_requests);
        s.mean_stored_fraction += static_cast<double>(t.stored_tokens) / cap;
        s.mean_reserved_future_fraction += static_cast<double>(t.reserved_for_future_slots) / cap;
        s.mean_internal_fragmentation_fraction += static_cast<double>(t.internal_fragmentation_slots) / cap;
        s.mean_external_fragmentation_fraction += static_cast<double>(t.external_fragmentation_slots) / cap;
        if (t.allocated_slots > 0) {
            s.mean_utilisation += static_cast<double>(t.stored_tokens) / static_cast<double>(t.allocated_slots);
            ++allocated_steps;
        }
    }
    if (s.steps > 0) {
        const double steps = static_cast<double>(s.steps);
        for (double* m : {&s.mean_running_requests, &s.mean_running_sequences, &s.mean_queued_requests, &s.mean_stored_fraction,
                          &s.mean_reserved_future_fraction, &s.mean_internal_fragmentation_fraction,
                          &s.mean_external_fragmentation_fraction}) {
            *m /= steps;
        }
    }
    if (allocated_steps > 0) s.mean_utilisation /= static_cast<double>(allocated_steps);
    return s;
}

void validate(const ReplayConfig& c) {
    if (c.allocator != AllocatorKind::paged && c.allocator != AllocatorKind::contiguous) {
        throw Error("config.allocator: must be paged or contiguous");
    }
    if (c.reservation != ReservationPolicy::max_len && c.reservation != ReservationPolicy::pow2 &&
        c.reservation != ReservationPolicy::oracle) {
        throw Error("config.reservation: must be max_len, pow2 or oracle");
    }
    require_in("config.num_blocks", c.num_blocks, 1, kMaxPagedBlocks);
    require_in("config.block_size", c.block_size, 1, kMaxBlockSize);
    if (c.num_blocks > kMaxContiguousSlots / c.block_size) {  // divided, so a 32-bit size_t cannot overflow
        throw Error("config.num_blocks * config.block_size: must be at most " + str(kMaxContiguousSlots) + " slots, got " +
                    std::to_string(static_cast<double>(c.num_blocks) * static_cast<double>(c.block_size)));
    }
    if (c.max_steps < 1) throw Error("config.max_steps: must be >= 1, got 0");
    if (c.max_events < 1) throw Error("config.max_events: must be >= 1, got 0");
}

void validate(const WorkloadParams& p) {
    require_in("params.num_requests", p.num_requests, 1, 100000);
    require_real("params.mean_interarrival_steps", p.mean_interarrival_steps, 0, 1e6, true);
    require_in("params.max_prompt_tokens", p.max_prompt_tokens, 1, 65536);
    require_in("params.min_prompt_tokens", p.min_prompt_tokens, 1, p.max_prompt_tokens);
    require_real("params.mean_output_tokens", p.mean_output_tokens, 0, 1e6, true);
    require_in("params.max_output_tokens", p.max_output_tokens, 1, 65536);
    require_real("params.parallel_fraction", p.parallel_fraction, 0, 1, false);
    require_in("params.max_samples", p.max_samples, 2, 64);
}

void validate_workload(const Workload& w) {
    validate(w.params);
    if (w.requests.empty()) throw Error("workload.requests: must not be empty");
    for (std::size_t r = 0; r < w.requests.size(); ++r) {
        const Request& q = w.requests[r];
        const std::string at = "workload.requests[" + str(r) + "]";
        if (q.id != r) throw Error(at + ".id: must equal its index " + str(r) + ", got " + str(q.id));
        if (r > 0 && q.arrival_step < w.requests[r - 1].arrival_step) throw Error(at + ".arrival_step: must not decrease");
        if (q.prompt_tokens < 1 || q.prompt_tokens > 65536) throw Error(at + ".prompt_tokens: must be in [1, 65536]");
        if (q.output_tokens.empty() || q.output_tokens.size() > 64) throw Error(at + ".output_tokens: must hold 1 to 64 samples");
        for (std::size_t out : q.output_tokens) {
            if (out < 1 || out > w.params.max_output_tokens) {
                throw Error(at + ".output_tokens: each must be in [1, " + str(w.params.max_output_tokens) + "], got " + str(out));
            }
        }
    }
}

}  // namespace

Workload make_workload(const WorkloadParams& params) {
    validate(params);
    Workload w{params, {}};
    // Each quantity draws from its own counter stream of the seed, so changing one parameter does
    // not reshuffle the others.
    const auto u = [&](std::uint64_t stream, std::size_t r) { return uniform_from_hash(params.seed ^ splitmix64(stream), r); };
    double t = 0;
    for (std::size_t r = 0; r < params.num_requests; ++r) {
        Request q{};
        q.id = r;
        if (r > 0) t += -params.mean_interarrival_steps * std::log(1.0 - u(1, r));  // exponential gap
        q.arrival_step = static_cast<std::size_t>(t);
        const std::size_t span = params.max_prompt_tokens - params.min_prompt_tokens + 1;
        q.prompt_tokens = params.min_prompt_tokens + std::min(span - 1, static_cast<std::size_t>(u(2, r) * static_cast<double>(span)));
        std::size_t n = 1;
        if (u(3, r) < params.parallel_fraction) {
            n = 2 + std::min(params.max_samples - 2, static_cast<std::size_t>(u(4, r) * static_cast<double>(params.max_samples - 1)));
        }
        for (std::size_t s = 0; s < n; ++s) {
            const double draw = 1.0 + -params.mean_output_tokens * std::log(1.0 - u(5 + s, r));
            q.output_tokens.push_back(std::clamp<std::size_t>(static_cast<std::size_t>(draw), 1, params.max_output_tokens));
        }
        w.requests.push_back(std::move(q));
    }
    return w;
}

ReplayResult replay(const Workload& workload, const ReplayConfig& config) {
    validate(config);
    validate_workload(workload);
    ReplayResult out;
    out.config = config;
    Sim sim(workload, config, out);
    sim.generated.resize(workload.requests.size());
    for (std::size_t r = 0; r < workload.requests.size(); ++r) sim.generated[r].assign(workload.requests[r].output_tokens.size(), 0);
    sim.first_admit_step.assign(workload.requests.size(), kNone);
    if (config.allocator == AllocatorKind::paged) {
        PagedBackend backend{sim, PagedKvCache({config.num_blocks, config.block_size, config.kv_bytes_per_token})};
        run_schedule(sim, backend);
    } else {
        ContiguousBackend backend{sim, ContiguousKvCache(config.num_blocks * config.block_size)};
        run_schedule(sim, backend);
    }
    out.summary = summarise(sim, out);
    return out;
}

// ---- steppers ------------------------------------------------------------------------------------

namespace {

const ReplayResult& require_allocator(const ReplayResult& r, AllocatorKind kind) {
    if (r.config.allocator != kind) {
        throw Error(std::string("replay: must come from a ") + (kind == AllocatorKind::paged ? "paged" : "contiguous") + " replay");
    }
    return r;
}

void require_id(std::size_t got, std::size_t recorded) {
    if (got != recorded) throw Error("replay.events: inconsistent sequence id " + str(got) + " vs recorded " + str(recorded));
}

// Moves `current` to `position`: from the nearest checkpoint at or before it when that is ahead of
// the current state or the target lies behind it, else onwards from the current state. Returns the
// events re-applied.
template <class Cache, class ApplyNext>
std::size_t seek_with_checkpoints(Cache& cache, std::size_t& current, const ReplayCheckpoints<Cache>& checkpoints,
                                  std::size_t size, std::size_t position, ApplyNext apply_next) {
    require_in("position", position, 0, size);
    const std::size_t base = checkpoints.at_or_before(position);
    if (position < current || base > current) {
        cache = checkpoints.cache_at(base);
        current = base;
    }
    // apply_next advances `current` (the stepper's position).
    std::size_t applied = 0;
    while (current < position) {
        apply_next();
        ++applied;
    }
    return applied;
}

// Applies every event once so that each checkpoint is saved, then returns to position 0. Also
// checks the replay: an inconsistent event throws here, not in the middle of a reader's scrub.
template <class Stepper, class Checkpoints>
void record_checkpoints(Stepper& stepper, Checkpoints& checkpoints) {
    checkpoints.offer(0, stepper.cache());
    while (stepper.position() < stepper.size()) stepper.apply_next();
    stepper.seek(0);
}

}  // namespace

PagedReplayStepper::PagedReplayStepper(ReplayResult replay)
    : replay_((require_allocator(replay, AllocatorKind::paged), std::move(replay))),
      cache_({replay_.config.num_blocks, replay_.config.block_size, replay_.config.kv_bytes_per_token}),
      checkpoints_(replay_.events.size(), replay_.config.num_blocks * replay_.config.block_size) {
    record_checkpoints(*this, checkpoints_);
}

const ReplayEvent& PagedReplayStepper::apply_next() {
    if (position_ >= replay_.events.size()) throw Error("position: all " + str(replay_.events.size()) + " events are applied");
    const ReplayEvent& e = replay_.events[position_];
    switch (e.kind) {
        case EventKind::admit: {
            const std::size_t id = cache_.create_sequence();
            require_id(id, e.sequence);
            for (std::size_t i = 0; i < e.tokens; ++i) cache_.append_token(id, token_value(e.request, 0, i));
            break;
        }
        case EventKind::fork: require_id(cache_.fork(e.parent), e.sequence); break;
        case EventKind::append:
            for (std::size_t k = 0; k < e.tokens; ++k) {
                cache_.append_token(e.sequence, token_value(e.request, e.sample + 1, e.position + k));
            }
            break;
        case EventKind::finish: cache_.free(e.sequence); break;
        case EventKind::preempt: cache_.preempt(e.sequence); break;
        case EventKind::arrive:
        case EventKind::reject: break;
    }
    ++position_;
    checkpoints_.offer(position_, cache_);
    return e;
}

std::size_t PagedReplayStepper::seek(std::size_t position) {
    return seek_with_checkpoints(cache_, position_, checkpoints_, size(), position, [this] { apply_next(); });
}

ContiguousReplayStepper::ContiguousReplayStepper(ReplayResult replay)
    : replay_((require_allocator(replay, AllocatorKind::contiguous), std::move(replay))),
      cache_(replay_.config.num_blocks * replay_.config.block_size),
      checkpoints_(replay_.events.size(), replay_.config.num_blocks * replay_.config.block_size) {
    record_checkpoints(*this, checkpoints_);
}

const ReplayEvent& ContiguousReplayStepper::apply_next() {
    if (position_ >= replay_.events.size()) throw Error("position: all " + str(replay_.events.size()) + " events are applied");
    const ReplayEvent& e = replay_.events[position_];
    switch (e.kind) {
        case EventKind::admit: {
            const auto id = cache_.reserve(e.reserved_slots, e.final_slots);
            if (!id) throw Error("replay.events: a recorded reservation does not fit");
            require_id(*id, e.sequence);
            for (std::size_t i = 0; i < e.tokens; ++i) cache_.append_token(*id);
            break;
        }
        case EventKind::append:
            for (std::size_t k = 0; k < e.tokens; ++k) cache_.append_token(e.sequence);
            break;
        case EventKind::finish: cache_.release(e.sequence); break;
        case EventKind::fork:
        case EventKind::preempt: throw Error("replay.events: a contiguous replay has no fork or preempt events");
        case EventKind::arrive:
        case EventKind::reject: break;
    }
    ++position_;
    checkpoints_.offer(position_, cache_);
    return e;
}

std::size_t ContiguousReplayStepper::seek(std::size_t position) {
    return seek_with_checkpoints(cache_, position_, checkpoints_, size(), position, [this] { apply_next(); });
}

}  // namespace attn::kvcache
