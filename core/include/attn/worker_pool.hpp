#pragma once
// The process's CPU workers: helper threads started once and kept, which the optimised CPU paths
// (flash forward, paged decode) and the benchmarks' bandwidth ceilings share.
//
// Why kept, and why they spin a little before they sleep: a decode step's attention over an 8k
// context reads ~64 MiB in ~1.5 ms. A thread started for each call, or one woken from sleep, asks
// the OS -- and in a virtual machine the host -- for an idle CPU, which a busy host grants
// 0.2-3 ms late in most calls (measured on a 2-vCPU EPYC guest): by then the caller has done the
// work alone, at a single core's bandwidth. A helper that polls for a while after each job (as
// OpenMP runtimes do) keeps its CPU, and starts the next job within microseconds.
#include <cstddef>
#include <functional>

namespace attn {

// Largest worker count a call may ask for (the optimised paths' num_threads bound).
inline constexpr std::size_t kMaxWorkers = 1024;

// The workers a call uses when not told otherwise: one per hardware thread (at least 1, at most
// kMaxWorkers); 1 in WebAssembly builds without pthreads.
std::size_t default_workers();

// Runs job(w) once for every w in [0, workers), worker 0 on the caller's thread, and returns when
// all have returned. A helper that has not started by the time the caller's share is done is
// not waited for: the caller runs its index itself, so `job` must not assume which thread runs
// which index. `workers` is in [1, kMaxWorkers] (attn::Error otherwise). `job` must not throw.
// If another thread is using the workers, this call runs every index on the caller's thread.
// WebAssembly builds without pthreads always do.
void run_on_workers(std::size_t workers, const std::function<void(std::size_t worker)>& job);

}  // namespace attn
