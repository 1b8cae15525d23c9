// The process's CPU workers (attn/worker_pool.hpp): every index of every job runs exactly once,
// and the job has ended when the call returns -- over thousands of back-to-back jobs of changing
// sizes (helpers late, early, or polling from the job before), with other threads taking the CPUs
// from the helpers, from two callers at once, and from inside a job; bad arguments are refused. The thread tests (tests/threads) run this file
// under ThreadSanitizer too.
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "attn/worker_pool.hpp"
#include "support.hpp"

using namespace attn;

namespace {

// Runs `jobs` jobs of 1..max_workers indices in turn and checks each index ran once per job, with
// every count read after the call returned (a helper still inside the job would be caught by
// ThreadSanitizer, or by a count that changes afterwards).
void check_jobs(std::size_t jobs, std::size_t max_workers) {
    std::vector<std::atomic<int>> runs(max_workers);
    for (std::size_t j = 0; j < jobs; ++j) {
        const std::size_t workers = 1 + j % max_workers;
        for (auto& r : runs) r.store(0, std::memory_order_relaxed);
        run_on_workers(workers, [&](std::size_t w) { runs[w].fetch_add(1, std::memory_order_relaxed); });
        for (std::size_t w = 0; w < max_workers; ++w) {
            const int expected = w < workers ? 1 : 0;
            if (runs[w].load(std::memory_order_relaxed) != expected) {
                FAIL("job " << j << " with " << workers << " workers ran index " << w << " "
                            << runs[w].load() << " times");
            }
        }
    }
}

}  // namespace

TEST_CASE("worker pool: every index of every job runs exactly once, whatever the job size") {
    check_jobs(5000, 2);
    check_jobs(2000, 5);  // on a 2-CPU machine, more workers than CPUs
}

// Threads that only spin take CPUs from the pool's helpers at random moments, so a helper is
// often stopped between seeing a job and claiming its index, while the caller moves on to the next
// job: the window in which a helper could take an index of a job it did not see.
TEST_CASE("worker pool: every index runs exactly once while other threads compete for the CPUs") {
    std::vector<std::jthread> spinners;  // stopped and joined on the way out, even after a failure
    for (unsigned i = 0; i < std::max(2u, std::thread::hardware_concurrency()); ++i) {
        spinners.emplace_back([](std::stop_token stop) {
            while (!stop.stop_requested()) {}
        });
    }
    check_jobs(3000, 4);
}

TEST_CASE("worker pool: a job's writes are all visible to the caller when the call returns") {
    for (std::size_t workers : {2u, 3u, 8u}) {
        std::vector<std::uint64_t> out(workers * 1000);
        for (int round = 1; round <= 200; ++round) {
            run_on_workers(workers, [&](std::size_t w) {
                for (std::size_t i = 0; i < 1000; ++i) out[w * 1000 + i] = round * 1000003ull + w * 1000 + i;
            });
            std::size_t wrong = 0;
            for (std::size_t n = 0; n < out.size(); ++n) wrong += out[n] != round * 1000003ull + n;
            REQUIRE(wrong == 0);
        }
    }
}

TEST_CASE("worker pool: two callers at once each get every index of their own job once") {
    std::atomic<bool> failed{false};
    auto caller = [&] {
        std::vector<std::atomic<int>> runs(3);
        for (int j = 0; j < 2000; ++j) {
            for (auto& r : runs) r.store(0);
            run_on_workers(3, [&](std::size_t w) { runs[w].fetch_add(1); });
            for (auto& r : runs) {
                if (r.load() != 1) failed = true;
            }
        }
    };
    {
        std::jthread a(caller), b(caller);
    }
    CHECK_FALSE(failed.load());
}

TEST_CASE("worker pool: a job that runs another job does not wait for itself") {
    std::vector<std::atomic<int>> inner(2 * 4);
    run_on_workers(2, [&](std::size_t outer) {
        run_on_workers(4, [&](std::size_t w) { inner[outer * 4 + w].fetch_add(1); });
    });
    for (auto& r : inner) CHECK(r.load() == 1);
}

TEST_CASE("worker pool: the default is one worker per hardware thread, at least 1 and at most kMaxWorkers") {
    const std::size_t hardware = std::thread::hardware_concurrency();
    CHECK(default_workers() == std::clamp<std::size_t>(hardware, 1, kMaxWorkers));
}

TEST_CASE("worker pool: one worker runs on the caller's thread") {
    std::thread::id ran_on;
    run_on_workers(1, [&](std::size_t) { ran_on = std::this_thread::get_id(); });
    CHECK(ran_on == std::this_thread::get_id());
}

TEST_CASE("worker pool: refuses a worker count of 0 or above kMaxWorkers, and an empty job") {
    const auto job = [](std::size_t) {};
    test::check_error([&] { run_on_workers(0, job); }, "workers must be in [1, 1024], got 0");
    test::check_error([&] { run_on_workers(kMaxWorkers + 1, job); }, "workers must be in [1, 1024], got 1025");
    test::check_error([&] { run_on_workers(2, std::function<void(std::size_t)>{}); }, "job must be a callable");
}
