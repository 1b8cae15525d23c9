// JavaScript API of Part 4's KV-cache memory models: the seeded serving workload replayed against
// PagedAttention's block allocator and against contiguous max-length reservations (Kwon et al.
// 2023, arXiv:2309.06180), a state-after-event query for stepping through either replay, and the
// summary of both on the same requests, and a checkpointed stepper class over both replays for
// scrubbing. Thin by design: read and check the JS arguments, call the
// core, return plain objects and typed arrays.
#include <emscripten/bind.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "attn/kvcache/serving_workload.hpp"
#include "convert.hpp"
#include "limits.hpp"

namespace attn::wasm {
namespace {

using namespace attn::kvcache;

val args_object(const val& obj) {
    if (obj.isUndefined() || obj.isNull() || obj.typeOf().as<std::string>() != "object") {
        throw Error("arguments: must be an object");
    }
    return obj;
}

// ---- arguments -------------------------------------------------------------------------------

// What a call may ask for: a replay, or the smaller workloads of a ServingStepper.
struct ServingLimits {
    std::size_t requests, blocks, block_size, tokens, events;
};
constexpr ServingLimits kReplayLimits{kMaxServingRequests, kMaxServingBlocks, kMaxServingBlockSize, kMaxServingTokens, kMaxServingEvents};
constexpr ServingLimits kStepperLimits{kMaxStepperRequests, kMaxStepperBlocks, kMaxStepperBlockSize, kMaxStepperTokens, kMaxStepperEvents};

WorkloadParams workload_arg(const val& in, const ServingLimits& limits = kReplayLimits) {
    WorkloadParams p;
    p.seed = integer_arg(in, "seed", 0, kMaxSeed, p.seed);
    p.num_requests = integer_arg(in, "numRequests", 1, limits.requests, std::min(p.num_requests, limits.requests));
    p.mean_interarrival_steps = number_arg(in, "meanInterarrivalSteps", 1e-3, 1e6, p.mean_interarrival_steps);
    p.max_prompt_tokens = integer_arg(in, "maxPromptTokens", 1, limits.tokens, p.max_prompt_tokens);
    p.min_prompt_tokens = integer_arg(in, "minPromptTokens", 1, p.max_prompt_tokens, std::min(p.min_prompt_tokens, p.max_prompt_tokens));
    p.mean_output_tokens = number_arg(in, "meanOutputTokens", 1e-3, 1e6, p.mean_output_tokens);
    p.max_output_tokens = integer_arg(in, "maxOutputTokens", 1, limits.tokens, p.max_output_tokens);
    p.parallel_fraction = number_arg(in, "parallelFraction", 0, 1, p.parallel_fraction);
    p.max_samples = integer_arg(in, "maxSamples", 2, 8, p.max_samples);
    return p;
}

ReservationPolicy reservation_arg(const val& in) {
    const val v = in["reservation"];
    if (v.isUndefined()) return ReservationPolicy::max_len;
    const std::string s = v.isString() ? v.as<std::string>() : "";
    if (s == "max_len") return ReservationPolicy::max_len;
    if (s == "pow2") return ReservationPolicy::pow2;
    if (s == "oracle") return ReservationPolicy::oracle;
    throw Error("reservation: must be one of 'max_len', 'pow2', 'oracle'");
}

ReplayConfig config_arg(const val& in, AllocatorKind allocator, const ServingLimits& limits = kReplayLimits) {
    ReplayConfig c;
    c.allocator = allocator;
    c.num_blocks = integer_arg(in, "numBlocks", 1, limits.blocks, c.num_blocks);
    c.block_size = integer_arg(in, "blockSize", 1, limits.block_size, c.block_size);
    c.reservation = reservation_arg(in);
    c.kv_bytes_per_token = number_arg(in, "kvBytesPerToken", 1, 1e9, c.kv_bytes_per_token);
    c.max_steps = kMaxServingSteps;
    c.max_events = limits.events;
    return c;
}

AllocatorKind allocator_arg(const val& in) {
    const val v = in["allocator"];
    const std::string s = v.isString() ? v.as<std::string>() : "";
    if (s == "paged") return AllocatorKind::paged;
    if (s == "contiguous") return AllocatorKind::contiguous;
    throw Error("allocator: must be one of 'paged', 'contiguous'");
}

// ---- results ---------------------------------------------------------------------------------

const char* kind_name(EventKind k) {
    switch (k) {
        case EventKind::arrive: return "arrive";
        case EventKind::admit: return "admit";
        case EventKind::fork: return "fork";
        case EventKind::append: return "append";
        case EventKind::finish: return "finish";
        case EventKind::preempt: return "preempt";
        case EventKind::reject: return "reject";
    }
    return "?";
}

const char* append_name(AppendKind k) {
    switch (k) {
        case AppendKind::in_place: return "in_place";
        case AppendKind::new_block: return "new_block";
        case AppendKind::copy_on_write: return "copy_on_write";
    }
    return "?";
}

// -1 for "none" (the core's SIZE_MAX), so typed arrays stay Int32.
std::int32_t id32(std::size_t v) { return v == static_cast<std::size_t>(-1) ? -1 : static_cast<std::int32_t>(v); }

val workload_to_js(const Workload& w) {
    val requests = val::array();
    for (const Request& q : w.requests) {
        val o = val::object();
        o.set("id", static_cast<double>(q.id));
        o.set("arrivalStep", static_cast<double>(q.arrival_step));
        o.set("promptTokens", static_cast<double>(q.prompt_tokens));
        std::vector<std::int32_t> outs(q.output_tokens.begin(), q.output_tokens.end());
        o.set("outputTokens", typed_array(outs));
        requests.call<void>("push", o);
    }
    return requests;
}

val summary_to_js(const ReplaySummary& s) {
    val o = val::object();
    o.set("allocator", val(s.allocator == AllocatorKind::paged ? "paged" : "contiguous"));
    o.set("steps", static_cast<double>(s.steps));
    o.set("requests", static_cast<double>(s.requests));
    o.set("admitted", static_cast<double>(s.admitted));
    o.set("rejected", static_cast<double>(s.rejected));
    o.set("finished", static_cast<double>(s.finished));
    o.set("preemptions", static_cast<double>(s.preemptions));
    o.set("recomputeTokens", static_cast<double>(s.recompute_tokens));
    o.set("swapBytesAlternative", s.swap_bytes_alternative);
    o.set("generatedTokens", static_cast<double>(s.generated_tokens));
    o.set("meanRunningRequests", s.mean_running_requests);
    o.set("meanRunningSequences", s.mean_running_sequences);
    o.set("meanQueuedRequests", s.mean_queued_requests);
    o.set("peakRunningRequests", static_cast<double>(s.peak_running_requests));
    o.set("meanQueueDelaySteps", s.mean_queue_delay_steps);
    o.set("meanStoredFraction", s.mean_stored_fraction);
    o.set("meanReservedFutureFraction", s.mean_reserved_future_fraction);
    o.set("meanInternalFragmentationFraction", s.mean_internal_fragmentation_fraction);
    o.set("meanExternalFragmentationFraction", s.mean_external_fragmentation_fraction);
    o.set("meanUtilisation", s.mean_utilisation);
    return o;
}

val replay_to_js(const Workload& w, const ReplayResult& r) {
    const std::size_t n = r.events.size();
    val kinds = val::array();
    std::vector<std::int32_t> step(n), request(n), sample(n), sequence(n), parent(n), tokens(n), block(n), copied(n), reserved(n);
    val append_kinds = val::array();
    for (std::size_t i = 0; i < n; ++i) {
        const ReplayEvent& e = r.events[i];
        kinds.call<void>("push", val(kind_name(e.kind)));
        append_kinds.call<void>("push", e.kind == EventKind::append && r.config.allocator == AllocatorKind::paged
                                            ? val(append_name(e.append_kind)) : val::null());
        step[i] = id32(e.step);
        request[i] = id32(e.request);
        sample[i] = id32(e.sample);
        sequence[i] = id32(e.sequence);
        parent[i] = id32(e.parent);
        tokens[i] = id32(e.tokens);
        block[i] = id32(e.physical_block);
        copied[i] = id32(e.copied_from);
        reserved[i] = e.kind == EventKind::admit && r.config.allocator == AllocatorKind::contiguous ? id32(e.reserved_slots) : -1;
    }
    val events = val::object();
    events.set("kind", kinds);
    events.set("step", typed_array(step));
    events.set("request", typed_array(request));
    events.set("sample", typed_array(sample));
    events.set("sequence", typed_array(sequence));
    events.set("parent", typed_array(parent));
    events.set("tokens", typed_array(tokens));
    events.set("appendKind", append_kinds);
    events.set("physicalBlock", typed_array(block));
    events.set("copiedFrom", typed_array(copied));
    events.set("reservedSlots", typed_array(reserved));

    const std::size_t t = r.timeline.size();
    std::vector<std::int32_t> stored(t), allocated(t), future(t), internal(t), external(t), free_slots(t), running(t), seqs(t),
        queued(t), admitted(t), rejected(t), finished(t), preempted(t);
    for (std::size_t i = 0; i < t; ++i) {
        const StepSnapshot& s = r.timeline[i];
        stored[i] = id32(s.stored_tokens);
        allocated[i] = id32(s.allocated_slots);
        future[i] = id32(s.reserved_for_future_slots);
        internal[i] = id32(s.internal_fragmentation_slots);
        external[i] = id32(s.external_fragmentation_slots);
        free_slots[i] = id32(s.free_slots);
        running[i] = id32(s.running_requests);
        seqs[i] = id32(s.running_sequences);
        queued[i] = id32(s.queued_requests);
        admitted[i] = id32(s.admitted_total);
        rejected[i] = id32(s.rejected_total);
        finished[i] = id32(s.finished_total);
        preempted[i] = id32(s.preempted_total);
    }
    val timeline = val::object();
    timeline.set("storedTokens", typed_array(stored));
    timeline.set("allocatedSlots", typed_array(allocated));
    timeline.set("reservedFutureSlots", typed_array(future));
    timeline.set("internalFragmentationSlots", typed_array(internal));
    timeline.set("externalFragmentationSlots", typed_array(external));
    timeline.set("freeSlots", typed_array(free_slots));
    timeline.set("runningRequests", typed_array(running));
    timeline.set("runningSequences", typed_array(seqs));
    timeline.set("queuedRequests", typed_array(queued));
    timeline.set("admittedTotal", typed_array(admitted));
    timeline.set("rejectedTotal", typed_array(rejected));
    timeline.set("finishedTotal", typed_array(finished));
    timeline.set("preemptedTotal", typed_array(preempted));

    val out = val::object();
    out.set("allocator", val(r.config.allocator == AllocatorKind::paged ? "paged" : "contiguous"));
    out.set("numBlocks", static_cast<double>(r.config.num_blocks));
    out.set("blockSize", static_cast<double>(r.config.block_size));
    out.set("capacitySlots", static_cast<double>(r.config.num_blocks * r.config.block_size));
    out.set("requests", workload_to_js(w));
    out.set("events", events);
    out.set("timeline", timeline);
    out.set("summary", summary_to_js(r.summary));
    return out;
}

// ---- bound functions -------------------------------------------------------------------------

// workload fields + {allocator, numBlocks, blockSize, reservation, kvBytesPerToken}
val paged_replay_js(const val& in_) {
    return guarded([&] {
        const val in = args_object(in_);
        const AllocatorKind allocator = allocator_arg(in);
        const Workload w = make_workload(workload_arg(in));
        return replay_to_js(w, replay(w, config_arg(in, allocator)));
    });
}

// Which request and sample owns each allocator id: ids are never reused, so one pass over the
// whole replay names every id a state can hold.
using Owners = std::map<std::size_t, std::pair<std::size_t, std::size_t>>;
Owners owners_of(const ReplayResult& r) {
    Owners owner;
    for (const ReplayEvent& e : r.events) {
        if (e.kind == EventKind::admit || e.kind == EventKind::fork) owner[e.sequence] = {e.request, e.sample};
    }
    return owner;
}

val state_header(AllocatorKind allocator, std::size_t position, std::size_t events, std::size_t step) {
    val out = val::object();
    out.set("allocator", val(allocator == AllocatorKind::paged ? "paged" : "contiguous"));
    out.set("event", static_cast<double>(position));
    out.set("eventCount", static_cast<double>(events));
    out.set("step", static_cast<double>(step));
    return out;
}

// Block tables, reference counts, free list and stats of the pool, into `out`.
void paged_state_to_js(val& out, const PagedKvCache& cache, const Owners& owner) {
    val sequences = val::array();
    for (auto id : cache.sequences()) {
        const auto& table = cache.block_table(id);
        std::vector<std::int32_t> t(table.begin(), table.end());
        val o = val::object();
        o.set("id", static_cast<double>(id));
        o.set("request", static_cast<double>(owner.at(id).first));
        o.set("sample", static_cast<double>(owner.at(id).second));
        o.set("length", static_cast<double>(cache.length(id)));
        o.set("blockTable", typed_array(t));
        sequences.call<void>("push", o);
    }
    std::vector<std::int32_t> refcounts(cache.config().num_blocks);
    for (std::size_t b = 0; b < refcounts.size(); ++b) refcounts[b] = id32(cache.refcount(b));
    std::vector<std::int32_t> free_list(cache.free_list().begin(), cache.free_list().end());
    const PagedStats st = cache.stats();
    val stats = val::object();
    stats.set("blocksUsed", static_cast<double>(st.blocks_used));
    stats.set("blocksFree", static_cast<double>(st.blocks_free));
    stats.set("blocksShared", static_cast<double>(st.blocks_shared));
    stats.set("sequences", static_cast<double>(st.sequences));
    stats.set("logicalTokens", static_cast<double>(st.logical_tokens));
    stats.set("storedTokens", static_cast<double>(st.stored_tokens));
    stats.set("allocatedSlots", static_cast<double>(st.allocated_slots));
    stats.set("internalFragmentationSlots", static_cast<double>(st.internal_fragmentation_slots));
    stats.set("utilisation", st.utilisation);
    out.set("sequences", sequences);
    out.set("refcounts", typed_array(refcounts));
    out.set("freeList", typed_array(free_list));
    out.set("stats", stats);
}

// Reservations, holes and stats of the arena, into `out`.
void contiguous_state_to_js(val& out, const ContiguousKvCache& cache, const Owners& owner) {
    val reservations = val::array();
    for (const ContiguousReservation& res : cache.reservations()) {
        val o = val::object();
        o.set("id", static_cast<double>(res.id));
        o.set("request", static_cast<double>(owner.at(res.id).first));
        o.set("sample", static_cast<double>(owner.at(res.id).second));
        o.set("offset", static_cast<double>(res.offset));
        o.set("reservedSlots", static_cast<double>(res.reserved_slots));
        o.set("usedSlots", static_cast<double>(res.used_slots));
        o.set("finalSlots", static_cast<double>(res.final_slots));
        reservations.call<void>("push", o);
    }
    val holes = val::array();
    for (const auto& [offset, length] : cache.holes()) {
        val h = val::object();
        h.set("offset", static_cast<double>(offset));
        h.set("slots", static_cast<double>(length));
        holes.call<void>("push", h);
    }
    const ContiguousStats st = cache.stats();
    val stats = val::object();
    stats.set("capacitySlots", static_cast<double>(st.capacity_slots));
    stats.set("reservedSlots", static_cast<double>(st.reserved_slots));
    stats.set("usedSlots", static_cast<double>(st.used_slots));
    stats.set("reservedFutureSlots", static_cast<double>(st.reserved_for_future_slots));
    stats.set("internalFragmentationSlots", static_cast<double>(st.internal_fragmentation_slots));
    stats.set("freeSlots", static_cast<double>(st.free_slots));
    stats.set("largestHoleSlots", static_cast<double>(st.largest_hole_slots));
    stats.set("utilisation", st.utilisation);
    out.set("reservations", reservations);
    out.set("holes", holes);
    out.set("stats", stats);
}

// the same + {event}: the allocator's state after the first `event` events.
val paged_state_at_js(const val& in_) {
    return guarded([&] {
        const val in = args_object(in_);
        const AllocatorKind allocator = allocator_arg(in);
        const Workload w = make_workload(workload_arg(in));
        ReplayResult r = replay(w, config_arg(in, allocator));
        const std::size_t n = r.events.size();
        const std::size_t position = integer_arg(in, "event", 0, n, n);
        const Owners owner = owners_of(r);
        val out = state_header(allocator, position, n, position == 0 ? 0 : r.events[position - 1].step);
        if (allocator == AllocatorKind::paged) {
            PagedReplayStepper stepper(std::move(r));
            stepper.seek(position);
            paged_state_to_js(out, stepper.cache(), owner);
        } else {
            ContiguousReplayStepper stepper(std::move(r));
            stepper.seek(position);
            contiguous_state_to_js(out, stepper.cache(), owner);
        }
        return out;
    });
}

// JavaScript class ServingStepper: one workload replayed by both allocators once, then the state
// of either at the end of any decoding step, from the core's checkpointed steppers -- so a figure
// scrubbing back and forth re-applies a few events per frame instead of replaying from the start.
// Instances live in wasm memory: call .delete() when done, as with every Embind class.
class ServingStepperJs {
public:
    // workload fields + {numBlocks, blockSize, reservation, kvBytesPerToken}
    static ServingStepperJs* create(const val& in_) {
        // Constructors cannot return a JS exception through guarded(): the message is thrown
        // directly, from static storage (see OnlineSoftmax).
        static std::string message;
        try {
            const val in = args_object(in_);
            const Workload w = make_workload(workload_arg(in, kStepperLimits));
            return new ServingStepperJs(w, replay(w, config_arg(in, AllocatorKind::paged, kStepperLimits)),
                                        replay(w, config_arg(in, AllocatorKind::contiguous, kStepperLimits)));
        } catch (const std::exception& e) {
            message = e.what();
        }
        val::global("Error").new_(val(message)).throw_();
    }

    // Decoding steps of the longer replay: stateAtStep takes steps in [0, steps - 1].
    std::size_t steps() const { return steps_; }

    // The whole replay of one allocator, as pagedReplay returns it.
    val replay_js(const val& allocator) const {
        return guarded([&] {
            const AllocatorKind kind = allocator_arg(holder("allocator", allocator));
            return replay_to_js(workload_, kind == AllocatorKind::paged ? paged_.replay() : contiguous_.replay());
        });
    }

    // The allocator's state once every event of steps 0..step is applied.
    val state_at_step(const val& allocator, const val& step_js) {
        return guarded([&] {
            const AllocatorKind kind = allocator_arg(holder("allocator", allocator));
            if (step_js.isUndefined()) throw Error("step: missing");
            const std::size_t step = integer_arg(holder("step", step_js), "step", 0, steps_ - 1, 0);
            if (kind == AllocatorKind::paged) {
                val out = state_header(kind, seek(paged_, step), paged_.size(), step);
                paged_state_to_js(out, paged_.cache(), paged_owner_);
                return out;
            }
            val out = state_header(kind, seek(contiguous_, step), contiguous_.size(), step);
            contiguous_state_to_js(out, contiguous_.cache(), contiguous_owner_);
            return out;
        });
    }

private:
    ServingStepperJs(const Workload& w, ReplayResult paged, ReplayResult contiguous)
        : workload_(w), paged_owner_(owners_of(paged)), contiguous_owner_(owners_of(contiguous)),
          paged_(std::move(paged)), contiguous_(std::move(contiguous)),
          steps_(std::max(paged_.replay().timeline.size(), contiguous_.replay().timeline.size())) {}

    static val holder(const char* name, const val& v) {
        val o = val::object();
        o.set(name, v);
        return o;
    }

    // Moves `stepper` past the last event of `step` (events are in step order); returns its position.
    template <class Stepper>
    static std::size_t seek(Stepper& stepper, std::size_t step) {
        const auto& events = stepper.replay().events;
        const auto end = std::upper_bound(events.begin(), events.end(), step,
                                          [](std::size_t s, const ReplayEvent& e) { return s < e.step; });
        stepper.seek(static_cast<std::size_t>(end - events.begin()));
        return stepper.position();
    }

    Workload workload_;
    Owners paged_owner_, contiguous_owner_;
    PagedReplayStepper paged_;
    ContiguousReplayStepper contiguous_;
    std::size_t steps_;
};

// workload fields + {numBlocks, blockSize}: paged and the three contiguous policies on the same requests.
val paged_summary_js(const val& in_) {
    return guarded([&] {
        const val in = in_.isUndefined() ? val::object() : args_object(in_);
        const Workload w = make_workload(workload_arg(in));
        ReplayConfig c = config_arg(in, AllocatorKind::paged);
        val out = val::object();
        out.set("paged", summary_to_js(replay(w, c).summary));
        c.allocator = AllocatorKind::contiguous;
        const std::pair<const char*, ReservationPolicy> policies[] = {
            {"maxLen", ReservationPolicy::max_len}, {"pow2", ReservationPolicy::pow2}, {"oracle", ReservationPolicy::oracle}};
        for (const auto& [name, policy] : policies) {
            c.reservation = policy;
            out.set(std::string("contiguous") + (name[0] == 'm' ? "MaxLen" : name[0] == 'p' ? "Pow2" : "Oracle"),
                    summary_to_js(replay(w, c).summary));
        }
        return out;
    });
}

val paged_workload_defaults_js() {
    return guarded([&] {
        const WorkloadParams p;
        const ReplayConfig c;
        val o = val::object();
        o.set("seed", static_cast<double>(p.seed));
        o.set("numRequests", static_cast<double>(p.num_requests));
        o.set("meanInterarrivalSteps", p.mean_interarrival_steps);
        o.set("minPromptTokens", static_cast<double>(p.min_prompt_tokens));
        o.set("maxPromptTokens", static_cast<double>(p.max_prompt_tokens));
        o.set("meanOutputTokens", p.mean_output_tokens);
        o.set("maxOutputTokens", static_cast<double>(p.max_output_tokens));
        o.set("parallelFraction", p.parallel_fraction);
        o.set("maxSamples", static_cast<double>(p.max_samples));
        o.set("numBlocks", static_cast<double>(c.num_blocks));
        o.set("blockSize", static_cast<double>(c.block_size));
        o.set("kvBytesPerToken", c.kv_bytes_per_token);
        return o;
    });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attn_paged) {
    emscripten::function("pagedReplay", &paged_replay_js);
    emscripten::function("pagedStateAt", &paged_state_at_js);
    emscripten::function("pagedSummary", &paged_summary_js);
    emscripten::function("pagedWorkloadDefaults", &paged_workload_defaults_js);
    emscripten::class_<ServingStepperJs>("ServingStepper")
        .constructor(&ServingStepperJs::create, emscripten::allow_raw_pointers())
        .property("steps", &ServingStepperJs::steps)
        .function("replay", &ServingStepperJs::replay_js)
        .function("stateAtStep", &ServingStepperJs::state_at_step);
}

}  // namespace attn::wasm
