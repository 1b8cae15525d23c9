#include "attn/worker_pool.hpp"

#include <algorithm>
#include <string>

#include "attn/error.hpp"

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <thread>
#include <vector>
#define ATTN_CPU_THREADS 1
#endif

namespace attn {
namespace {

void run_serially(std::size_t workers, const std::function<void(std::size_t)>& job) {
    for (std::size_t w = 0; w < workers; ++w) job(w);
}

#ifdef ATTN_CPU_THREADS

// How long a helper polls for the next job before it sleeps. Long enough to bridge the gaps
// between the calls of a decode loop or a benchmark (tens of microseconds to a millisecond), short
// enough that an idle process gives its CPUs back almost at once.
constexpr auto kPollFor = std::chrono::milliseconds(2);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// Jobs are numbered. For job g the caller opens claims[w] = 2g for each of its indices w > 0; index
// w is run by whoever first moves it to 2g + 1: helper w when it sees the job, or the caller once
// its own index is done. So a helper that starts late costs nothing, and one still looking at an
// earlier job claims nothing (that job's indices were all taken before this one opened) and
// touches none of it.
class Pool {
public:
    ~Pool() {
        quit_.store(true, std::memory_order_relaxed);
        job_number_.fetch_add(1, std::memory_order_release);
        job_number_.notify_all();
    }

    // False if another call holds the workers (the caller then runs the job itself).
    bool try_run(std::size_t workers, const std::function<void(std::size_t)>& job) {
        if (busy_.exchange(true, std::memory_order_acquire)) return false;
        try {
            while (helpers_.size() + 1 < workers) {
                const std::size_t w = helpers_.size() + 1;
                helpers_.emplace_back([this, w] { serve(w); });
            }
        } catch (const std::exception&) {
            // No thread (or no memory) for another helper: the indices no helper serves are the
            // caller's to claim.
        }
        const std::uint64_t number = job_number_.load(std::memory_order_relaxed) + 1;
        for (std::size_t w = 1; w < workers; ++w) claims_[w].store(2 * number, std::memory_order_relaxed);
        job_.store(&job, std::memory_order_relaxed);
        job_number_.store(number, std::memory_order_release);
        job_number_.notify_all();
        job(0);
        for (std::size_t w = 1; w < workers; ++w) {
            if (claim(w, number)) job(w);
        }
        while (running_.load(std::memory_order_acquire) != 0) cpu_relax();
        busy_.store(false, std::memory_order_release);
        return true;
    }

private:
    bool claim(std::size_t w, std::uint64_t number) {
        std::uint64_t open = 2 * number;
        return claims_[w].compare_exchange_strong(open, open + 1, std::memory_order_acq_rel);
    }

    // Helper w: waits for each job (polling, then asleep) and runs its index if still unclaimed.
    void serve(std::size_t w) {
        std::uint64_t seen = 0;
        for (;;) {
            const auto polled_since = std::chrono::steady_clock::now();
            std::uint64_t number;
            while ((number = job_number_.load(std::memory_order_acquire)) == seen &&
                   std::chrono::steady_clock::now() - polled_since < kPollFor) {
                cpu_relax();
            }
            if (number == seen) {
                job_number_.wait(seen, std::memory_order_acquire);
                continue;
            }
            seen = number;
            if (quit_.load(std::memory_order_relaxed)) return;
            // Counted before claiming, so a caller that saw every index claimed and nothing
            // running knows no helper is still inside its job.
            running_.fetch_add(1, std::memory_order_acq_rel);
            if (claim(w, number)) (*job_.load(std::memory_order_relaxed))(w);
            running_.fetch_sub(1, std::memory_order_acq_rel);
        }
    }

    std::atomic<bool> busy_{false}, quit_{false};
    std::atomic<std::uint64_t> job_number_{0};
    std::atomic<const std::function<void(std::size_t)>*> job_{nullptr};
    std::atomic<std::size_t> running_{0};
    std::unique_ptr<std::atomic<std::uint64_t>[]> claims_ = std::make_unique<std::atomic<std::uint64_t>[]>(kMaxWorkers);
    std::vector<std::jthread> helpers_;  // last: joined first, while the rest still exists
};

#endif

}  // namespace

std::size_t default_workers() {
#ifdef ATTN_CPU_THREADS
    return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMaxWorkers);
#else
    return 1;
#endif
}

void run_on_workers(std::size_t workers, const std::function<void(std::size_t worker)>& job) {
    if (workers < 1 || workers > kMaxWorkers) {
        throw Error("run_on_workers: workers must be in [1, " + std::to_string(kMaxWorkers) + "], got " +
                    std::to_string(workers));
    }
    if (!job) throw Error("run_on_workers: job must be a callable, got an empty std::function");
#ifdef ATTN_CPU_THREADS
    static Pool pool;
    if (workers > 1 && pool.try_run(workers, job)) return;
#endif
    run_serially(workers, job);
}

}  // namespace attn
