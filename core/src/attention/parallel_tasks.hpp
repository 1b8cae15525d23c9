#pragma once
// The optimised CPU paths' tasks on the process's workers (attn/worker_pool.hpp): task indices
// [0, tasks) handed out from a shared counter (tasks differ in cost -- causal blocks, sequences of
// different lengths -- so a static split would leave a core idle), each worker with its own
// scratch. WebAssembly builds without pthreads have no threads to start: everything runs on the
// caller's.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

#include "attn/worker_pool.hpp"

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define ATTN_CPU_THREADS 1
#endif

namespace attn::detail {

// Workers for `tasks` tasks: `requested` (0 = default_workers()), at most one per task and at
// most kMaxWorkers.
inline std::size_t worker_count(std::size_t requested, std::size_t tasks) {
#ifdef ATTN_CPU_THREADS
    const std::size_t available = requested ? requested : default_workers();
    return std::max<std::size_t>(1, std::min({available, tasks, kMaxWorkers}));
#else
    (void)requested;
    (void)tasks;
    return 1;
#endif
}

// Runs run(scratch[w], task) for every task, one worker per scratch (the caller's thread is
// worker 0). `run` must not throw: an exception on a helper thread would terminate. Callers
// allocate the scratch on their own thread first, so an allocation failure reaches them.
template <class Scratch, class Run>
void run_tasks(std::size_t tasks, std::vector<Scratch>& scratch, const Run& run) {
    std::atomic<std::size_t> next{0};
    run_on_workers(scratch.size(), [&](std::size_t w) {
        for (std::size_t t; (t = next.fetch_add(1, std::memory_order_relaxed)) < tasks;) run(scratch[w], t);
    });
}

}  // namespace attn::detail
