#pragma once
// A seeded serving workload and a simple iteration-level scheduler that replays it against the
// paged KV cache (PagedAttention, Kwon et al. 2023, arXiv:2309.06180) and against the contiguous
// reservation baseline, so both allocators see the same requests.
//
// Workload: Poisson arrivals (exponential gaps, as in the paper's §6.1 set-up), prompt lengths
// uniform in [min, max], output lengths exponential with a given mean, clipped to
// [1, max_output_tokens] (short outputs are common and the maximum is rare -- the situation where
// reserving the maximum wastes most). A fraction of the requests ask for n > 1 parallel samples of
// one prompt (§4.4): the paged cache stores the prompt once and forks; the baseline reserves n
// separate ranges, each with its own copy of the prompt.
//
// Scheduler (one step = one decoding iteration, Orca-style continuous batching):
//   1. requests arriving at this step join a FCFS queue;
//   2. the queue head is admitted while memory allows (no skipping: a head that does not fit
//      blocks the queue); a request that could not run even in an empty pool is rejected;
//   3. every running sequence appends one token; a finished sequence frees its memory.
// Paged: admission needs blocks for the prompt plus one per sample; when a decode finds no free
// block, the most recently admitted request is preempted (vLLM's policy, §4.5), its tokens are
// accounted as recomputation, and it goes back to the queue head; when readmitted it re-prefills
// the prompt and each sample's generated tokens.
// Contiguous: admission reserves, for each sample, prompt + max_output_tokens slots (or less under
// the Orca variants `pow2` and `oracle`, §6.1); a reservation never grows, so nothing is preempted.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attn/kvcache/contiguous_kv_cache.hpp"
#include "attn/kvcache/paged_kv_cache.hpp"
#include "attn/kvcache/replay_checkpoints.hpp"
#include "attn/random.hpp"

namespace attn::kvcache {

struct WorkloadParams {
    std::uint64_t seed = 2023;
    std::size_t num_requests = 64;            // in [1, 100000]
    double mean_interarrival_steps = 2.0;     // mean gap between arrivals, in decoding steps; (0, 1e6]
    std::size_t min_prompt_tokens = 8;        // in [1, max_prompt_tokens]
    std::size_t max_prompt_tokens = 96;       // in [1, 65536]
    double mean_output_tokens = 48.0;         // mean of the exponential before clipping; (0, 1e6]
    std::size_t max_output_tokens = 256;      // cap on generated tokens per sample; in [1, 65536]
    double parallel_fraction = 0.25;          // share of requests with n > 1 samples; [0, 1]
    std::size_t max_samples = 4;              // n is uniform in [2, max_samples] for those; in [2, 64]
};

struct Request {
    std::size_t id;
    std::size_t arrival_step;
    std::size_t prompt_tokens;
    std::vector<std::size_t> output_tokens;   // one entry per parallel sample (n = size())
};

struct Workload {
    WorkloadParams params;
    std::vector<Request> requests;            // by arrival step, then id
};

// Throws attn::Error naming the field when a parameter is out of range.
Workload make_workload(const WorkloadParams& params);

// KV payload of a token: a deterministic function of (request, sample, position), so a replay, a
// preempted-and-readmitted request and a test all write and expect the same values. Prompt tokens
// use sample 0; sample s (0-based) writes its generated tokens under sample s + 1.
inline float token_value(std::size_t request, std::size_t sample, std::size_t position) {
    return static_cast<float>(uniform_from_hash(splitmix64(request) ^ (sample * 0x9E3779B97F4A7C15ull), position));
}

enum class AllocatorKind { paged, contiguous };
// How much a contiguous reservation holds per sample (Orca variants, paper §6.1):
// max_len = prompt + max_output_tokens; pow2 = the next power of two >= prompt + output
// (at most 2x over-reservation); oracle = exactly prompt + output.
enum class ReservationPolicy { max_len, pow2, oracle };

struct ReplayConfig {
    AllocatorKind allocator = AllocatorKind::paged;
    std::size_t num_blocks = 128;             // pool size, in [1, 2^20]; the contiguous arena has num_blocks * block_size slots
    std::size_t block_size = kDefaultBlockSize;
    ReservationPolicy reservation = ReservationPolicy::max_len;  // contiguous only
    double kv_bytes_per_token = kOpt13bKvBytesPerToken;          // prices swap in bytes
    std::size_t max_steps = 1000000;          // the replay throws if the workload is not done by then
    std::size_t max_events = 50000000;        // and if it records more events than this
};

enum class EventKind {
    arrive,   // request joins the queue
    admit,    // sequence created and its prompt (plus, on readmission, its generated tokens) written
    fork,     // a sample forks from the request's prompt sequence
    append,   // one decoded token
    finish,   // a sample is done; its memory is freed
    preempt,  // paged: a sample is evicted (its request goes back to the queue head)
    reject,   // request can never fit
};

struct ReplayEvent {
    EventKind kind;
    std::size_t step;
    std::size_t request;
    std::size_t sample;           // 0-based; the prompt sequence of an admit is sample 0
    std::size_t sequence;         // paged SeqId / contiguous ResId it acts on (fork: the child)
    std::size_t parent;           // fork: the parent sequence
    std::size_t tokens;           // admit: prompt tokens written; append: tokens written (1 when decoding,
                                  // a sample's generated tokens when readmitted); preempt: tokens to recompute
    std::size_t position;         // append: index among the sample's generated tokens of the first one
    std::size_t reserved_slots;   // contiguous admit: the reservation
    std::size_t final_slots;      // contiguous admit: the length it will reach
    AppendKind append_kind;       // paged append (its last token): in place / new block / copy-on-write
    std::size_t physical_block;   // paged append: block written
    std::size_t copied_from;      // paged append: CoW source block (= physical_block without a copy)
};

// Memory and queue state at the end of one step. All memory figures are token slots.
struct StepSnapshot {
    std::size_t step;
    std::size_t capacity_slots;
    std::size_t stored_tokens;                 // slots holding live KV (shared tokens once)
    std::size_t allocated_slots;               // paged: used blocks x block_size; contiguous: reserved
    std::size_t reserved_for_future_slots;     // contiguous: used later, idle now; paged: 0
    std::size_t internal_fragmentation_slots;  // paged: unfilled last-block tails; contiguous: never-used tails
    std::size_t external_fragmentation_slots;  // contiguous: free slots in holes too small for the queue head
    std::size_t free_slots;
    std::size_t running_requests, running_sequences, queued_requests;
    std::size_t admitted_total, rejected_total, finished_total, preempted_total;
};

struct ReplaySummary {
    AllocatorKind allocator;
    std::size_t steps;                          // decoding iterations until the last request finished
    std::size_t requests, admitted, rejected, finished;
    std::size_t preemptions;                    // requests evicted (paged)
    std::size_t recompute_tokens;               // tokens re-prefilled after preemption
    double swap_bytes_alternative;              // what swapping the preempted blocks out would have moved
    std::size_t generated_tokens;               // decoded tokens that count (excludes recomputation)
    double mean_running_requests, mean_running_sequences, mean_queued_requests;
    std::size_t peak_running_requests;
    double mean_queue_delay_steps;              // arrival -> first admission, over admitted requests
    // Means over steps of fractions of the pool capacity.
    double mean_stored_fraction;                // live KV / capacity
    double mean_reserved_future_fraction, mean_internal_fragmentation_fraction, mean_external_fragmentation_fraction;
    // Mean over steps with something allocated of stored / allocated (the paper's Figure 2 measure:
    // the share of the KV memory a system has taken that holds token states).
    double mean_utilisation;
};

struct ReplayResult {
    ReplayConfig config;
    std::vector<ReplayEvent> events;
    std::vector<StepSnapshot> timeline;
    ReplaySummary summary;
};

// Replays `workload` with `config`'s allocator. Throws attn::Error naming the field for a bad
// config, and when max_steps or max_events is exceeded.
ReplayResult replay(const Workload& workload, const ReplayConfig& config);

// Re-applies a paged replay's events one at a time to a fresh PagedKvCache, so a visualization can
// show block tables and the pool after any event. The constructor applies every event once,
// keeping checkpoints (replay_checkpoints.hpp), and leaves the stepper at position 0.
class PagedReplayStepper {
public:
    // Throws if `replay` is not a paged replay.
    explicit PagedReplayStepper(ReplayResult replay);
    std::size_t size() const { return replay_.events.size(); }
    std::size_t position() const { return position_; }   // events applied so far
    // Applies event position() and returns it; throws at the end.
    const ReplayEvent& apply_next();
    // Moves to the state after the first `position` events, position in [0, size()], from the
    // current state or the nearest checkpoint before it. Returns the events it re-applied: fewer
    // than checkpoint_interval().
    std::size_t seek(std::size_t position);
    std::size_t checkpoint_interval() const { return checkpoints_.interval(); }
    const PagedKvCache& cache() const { return cache_; }
    const ReplayResult& replay() const { return replay_; }

private:
    ReplayResult replay_;
    PagedKvCache cache_;
    ReplayCheckpoints<PagedKvCache> checkpoints_;
    std::size_t position_ = 0;
};

// The same for a contiguous replay.
class ContiguousReplayStepper {
public:
    explicit ContiguousReplayStepper(ReplayResult replay);
    std::size_t size() const { return replay_.events.size(); }
    std::size_t position() const { return position_; }
    const ReplayEvent& apply_next();
    std::size_t seek(std::size_t position);
    std::size_t checkpoint_interval() const { return checkpoints_.interval(); }
    const ContiguousKvCache& cache() const { return cache_; }
    const ReplayResult& replay() const { return replay_; }

private:
    ReplayResult replay_;
    ContiguousKvCache cache_;
    ReplayCheckpoints<ContiguousKvCache> checkpoints_;
    std::size_t position_ = 0;
};

}  // namespace attn::kvcache
