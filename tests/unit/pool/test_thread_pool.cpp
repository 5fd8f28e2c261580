// ThreadPool: every index of [start, end) runs exactly once on every path (CONTRACT E9), chunks
// are the contiguous ceil(total/num_threads) split of E10, and concurrent or nested run() calls
// neither deadlock nor lose indices.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "runtime/cpu/thread_pool.hpp"

#if defined(__linux__)
#include <sched.h>
#endif

namespace tack::runtime::cpu {
namespace {

// Counts how often each index of a window [base, base + size) runs; indices outside the window
// are counted as strays.
struct HitCounter {
    int64_t base;
    std::vector<std::atomic<int>> hits;
    std::atomic<int> strays{0};

    HitCounter(int64_t base_, size_t size) : base(base_), hits(size) {}

    static void count(void* raw, int64_t lo, int64_t hi) {
        auto* self = static_cast<HitCounter*>(raw);
        for (int64_t i = lo; i < hi; ++i) {
            int64_t k = i - self->base;
            if (k < 0 || k >= int64_t(self->hits.size())) {
                self->strays.fetch_add(1);
            } else {
                self->hits[k].fetch_add(1);
            }
        }
    }

    // Returns "" when exactly [start, end) ran once each, else a description.
    std::string check(int64_t start, int64_t end) const {
        if (strays.load() != 0) return "strays: " + std::to_string(strays.load());
        for (size_t k = 0; k < hits.size(); ++k) {
            int64_t i = base + int64_t(k);
            int expected = (i >= start && i < end) ? 1 : 0;
            if (hits[k].load() != expected) {
                return "index " + std::to_string(i) + " ran " + std::to_string(hits[k].load()) +
                       " times";
            }
        }
        return "";
    }
};

TEST(ThreadPool, EveryIndexOnceOverRandomRangesAndThreadCounts) {
    std::mt19937_64 rng(1234);
    for (int threads : {2, 3, 4, 7, 8, 16}) {
        ThreadPool pool(threads);
        EXPECT_EQ(pool.num_threads(), threads);
        for (int trial = 0; trial < 60; ++trial) {
            int64_t start = int64_t(rng() % 2001) - 1000;
            int64_t len = int64_t(rng() % (trial % 3 == 0 ? 40 : 5000));
            HitCounter counter(start - 8, size_t(len + 16));
            EXPECT_TRUE(pool.run(HitCounter::count, &counter, start, start + len));
            ASSERT_EQ(counter.check(start, start + len), "")
                << "threads=" << threads << " start=" << start << " len=" << len;
        }
    }
}

struct ChunkLog {
    std::mutex mutex;
    std::vector<std::pair<int64_t, int64_t>> chunks;
    static void record(void* raw, int64_t lo, int64_t hi) {
        auto* self = static_cast<ChunkLog*>(raw);
        std::lock_guard lock(self->mutex);
        self->chunks.emplace_back(lo, hi);
    }
};

TEST(ThreadPool, ChunksAreContiguousCeilSplits) {
    ThreadPool pool(4);
    // (total, expected chunks): ceil(10/4) = 3 -> [0,3) [3,6) [6,9) [9,10);
    // ceil(5/4) = 2 -> [0,2) [2,4) [4,5) and the fourth chunk starts past the end.
    struct Case {
        int64_t total;
        std::vector<std::pair<int64_t, int64_t>> expected;
    };
    std::vector<Case> cases = {
        {10, {{0, 3}, {3, 6}, {6, 9}, {9, 10}}},
        {5, {{0, 2}, {2, 4}, {4, 5}}},
        {1, {{0, 1}}},
        {8, {{0, 2}, {2, 4}, {4, 6}, {6, 8}}},
    };
    for (const auto& c : cases) {
        ChunkLog log;
        pool.run(ChunkLog::record, &log, 100, 100 + c.total);
        std::sort(log.chunks.begin(), log.chunks.end());
        std::vector<std::pair<int64_t, int64_t>> expected;
        for (auto [lo, hi] : c.expected)
            expected.emplace_back(100 + lo, 100 + hi);
        EXPECT_EQ(log.chunks, expected) << "total=" << c.total;
    }
}

// Pieces: contiguous, disjoint, covering the range; a large range is cut into several pieces per
// thread so a late worker costs a piece, not its block.
TEST(ThreadPool, LargeRangesSplitIntoPiecesThatCoverIt) {
    ThreadPool pool(2);
    for (int64_t total : {int64_t(4095), int64_t(1) << 16, int64_t(1) << 20, int64_t(1000003)}) {
        ChunkLog log;
        FanOutStats stats;
        ASSERT_TRUE(pool.run(ChunkLog::record, &log, 7, 7 + total, &stats));
        std::sort(log.chunks.begin(), log.chunks.end());
        int64_t next = 7;
        for (auto [lo, hi] : log.chunks) {
            ASSERT_EQ(lo, next);
            ASSERT_LT(lo, hi);
            next = hi;
        }
        EXPECT_EQ(next, 7 + total);
        if (total >= (1 << 16)) {
            EXPECT_GT(log.chunks.size(), 2u);
        }
        int64_t elems = 0;
        for (const auto& t : stats.threads)
            elems += t.elems;
        EXPECT_EQ(elems, total);
        EXPECT_GT(stats.wall_ns, 0.0);
    }
}

// A worker that is slow (descheduled, or given the expensive iterations) has its remaining
// pieces taken by the others: the caller never waits for a whole block.
TEST(ThreadPool, IdleThreadsStealFromASlowOne) {
    ThreadPool pool(2);
    struct Slow {
        std::thread::id caller = std::this_thread::get_id();
        std::atomic<int64_t> by_caller{0};
        std::vector<std::atomic<int>> hits = std::vector<std::atomic<int>>(1 << 16);
        static void run(void* raw, int64_t lo, int64_t hi) {
            auto* s = static_cast<Slow*>(raw);
            if (std::this_thread::get_id() == s->caller) {
                s->by_caller += hi - lo;
            } else {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
            for (int64_t i = lo; i < hi; ++i)
                s->hits[size_t(i)].fetch_add(1);
        }
    } slow;
    ASSERT_TRUE(pool.run(Slow::run, &slow, 0, 1 << 16));
    for (auto& h : slow.hits)
        ASSERT_EQ(h.load(), 1);
    // The worker's block has 8 pieces; sleeping 20 ms in its first, it leaves the rest.
    EXPECT_GT(slow.by_caller.load(), int64_t(1) << 15);
}

// Host tasks (each index a whole chunk of work) pass min_piece = 1: every task can be stolen, so
// a caller held up in its first task leaves the rest of its block to the worker; with the
// kernels' 2048-element minimum the 16 tasks would be two unstealable pieces.
TEST(ThreadPool, SingleTaskPiecesAreStolen) {
    ThreadPool pool(2);
    struct Tasks {
        std::thread::id caller = std::this_thread::get_id();
        std::atomic<int> by_worker{0};
        std::vector<std::atomic<int>> hits = std::vector<std::atomic<int>>(16);
        static void run(void* raw, int64_t lo, int64_t hi) {
            auto* t = static_cast<Tasks*>(raw);
            for (int64_t i = lo; i < hi; ++i) {
                if (std::this_thread::get_id() == t->caller) {
                    // The caller's first task waits (up to 5 s) for the worker to take more
                    // than its own block of 8.
                    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
                    while (i == 0 && t->by_worker.load() <= 8 &&
                           std::chrono::steady_clock::now() < until)
                        std::this_thread::sleep_for(std::chrono::microseconds(100));
                } else {
                    t->by_worker.fetch_add(1);
                }
                t->hits[size_t(i)].fetch_add(1);
            }
        }
    } tasks;
    ASSERT_TRUE(pool.run(Tasks::run, &tasks, 0, 16, nullptr, 1));
    for (auto& h : tasks.hits)
        ASSERT_EQ(h.load(), 1);
    EXPECT_GT(tasks.by_worker.load(), 8);
}

TEST(ThreadPool, EmptyRangeCallsNothing) {
    ThreadPool pool(3);
    ChunkLog log;
    EXPECT_TRUE(pool.run(ChunkLog::record, &log, 5, 5));
    EXPECT_TRUE(pool.run(ChunkLog::record, &log, 9, 2));
    EXPECT_TRUE(log.chunks.empty());
    EXPECT_GT(pool.measure_fan_out_ns(5), 0.0);
}

TEST(ThreadPool, ConcurrentRunFromFourThreads) {
    ThreadPool pool(4);
    std::atomic<int> fanned_out{0}, serial{0};
    auto caller = [&](int seed) {
        std::mt19937_64 rng(seed);
        for (int i = 0; i < 150; ++i) {
            int64_t len = int64_t(rng() % 3000);
            HitCounter counter(0, size_t(len));
            (pool.run(HitCounter::count, &counter, 0, len) ? fanned_out : serial).fetch_add(1);
            ASSERT_EQ(counter.check(0, len), "") << "len=" << len;
        }
    };
    std::vector<std::thread> callers;
    for (int t = 0; t < 4; ++t)
        callers.emplace_back(caller, 100 + t);
    for (auto& t : callers)
        t.join();
    EXPECT_EQ(fanned_out.load() + serial.load(), 600);
    EXPECT_GT(fanned_out.load(), 0);
}

struct Nested {
    ThreadPool* pool;
    HitCounter* inner;
    std::atomic<int> serial_runs{0};
    static void outer(void* raw, int64_t lo, int64_t hi) {
        auto* self = static_cast<Nested*>(raw);
        // Each outer index owns 10 inner indices; run() from inside a job must not deadlock.
        if (!self->pool->run(HitCounter::count, self->inner, lo * 10, hi * 10)) {
            self->serial_runs.fetch_add(1);
        }
    }
};

TEST(ThreadPool, NestedRunFallsBackToSerial) {
    ThreadPool pool(4);
    HitCounter inner(0, 400);
    Nested nested{&pool, &inner};
    ASSERT_TRUE(pool.run(Nested::outer, &nested, 0, 40));
    EXPECT_EQ(inner.check(0, 400), "");
    EXPECT_EQ(nested.serial_runs.load(), 4);
}

TEST(ThreadPool, ManyBackToBackRunsAcrossSleeps) {
    // Alternates hot dispatches with pauses long enough that workers fall asleep on the futex.
    ThreadPool pool(3);
    for (int i = 0; i < 200; ++i) {
        if (i % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        HitCounter counter(0, 97);
        pool.run(HitCounter::count, &counter, 0, 97);
        ASSERT_EQ(counter.check(0, 97), "") << "iteration " << i;
    }
}

TEST(ThreadPool, WorkersSpinThroughTheRecentGapsBetweenJobs) {
    using detail::kMaxSpinNs;
    using detail::kSpinNs;
    using detail::spin_budget_ns;
    EXPECT_EQ(spin_budget_ns(nullptr, 0), kSpinNs);  // no job yet
    const int64_t back_to_back[8] = {1'000, 2'000, 500, 800, 1'500, 900, 700, 1'200};
    EXPECT_EQ(spin_budget_ns(back_to_back, 8), kSpinNs);
    // Python work of 0.2-1 ms between launches: through the longest gap and a quarter more.
    const int64_t python_steps[8] = {200'000, 800'000, 1'000'000, 400'000,
                                     300'000, 900'000, 500'000,   600'000};
    EXPECT_EQ(spin_budget_ns(python_steps, 8), 1'250'000);
    // One long pause among short gaps keeps the budget; mostly long pauses end it.
    int64_t one_pause[8] = {200'000, 800'000, 50'000'000, 400'000,
                            300'000, 900'000, 500'000,    600'000};
    EXPECT_EQ(spin_budget_ns(one_pause, 8), 1'125'000);
    const int64_t idle[8] = {50'000'000, 3'000'000, 9'000'000, 400'000,
                             2'500'000,  900'000,   7'000'000, 600'000};
    EXPECT_EQ(spin_budget_ns(idle, 8), kSpinNs);
    // Gaps just under the cap spin at most kMaxSpinNs.
    const int64_t long_steps[4] = {1'999'000, 2'000'000, 1'900'000, 1'950'000};
    EXPECT_EQ(spin_budget_ns(long_steps, 4), kMaxSpinNs);
}

TEST(ThreadPool, JobsAfterShortGapsRunEveryIndexOnceWhileAnotherCoreIsBusy) {
    // The workers' long spin and the futex path it falls back to, with a thread burning a core:
    // gaps of 0.1-3 ms between jobs cross the budget both ways.
    ThreadPool pool(3);
    std::atomic<bool> stop{false};
    std::thread burner([&] {
        volatile uint64_t x = 0;
        while (!stop.load(std::memory_order_relaxed))
            x = x + 1;
    });
    std::mt19937 rng(7);
    for (int i = 0; i < 300; ++i) {
        auto gap = std::chrono::microseconds(100 + rng() % (i % 60 < 50 ? 900 : 3000));
        auto until = std::chrono::steady_clock::now() + gap;
        while (std::chrono::steady_clock::now() < until) {
        }
        HitCounter counter(0, 5000);
        pool.run(HitCounter::count, &counter, 0, 5000, nullptr, 64);
        ASSERT_EQ(counter.check(0, 5000), "") << "job " << i;
    }
    stop = true;
    burner.join();
}

#if defined(__linux__)
// The worker's way off the caller's CPU: the thread ends up elsewhere and its affinity mask is
// what it was.
TEST(ThreadPool, MoveOffCpuMigratesAndRestoresTheMask) {
    cpu_set_t before;
    ASSERT_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
    if (CPU_COUNT(&before) < 2) GTEST_SKIP() << "this process may run on one CPU only";
    std::thread([&] {
        int cpu = detail::current_cpu();
        ASSERT_GE(cpu, 0);
        ASSERT_TRUE(detail::move_off_cpu(cpu));
        EXPECT_NE(detail::current_cpu(), cpu);
        cpu_set_t after;
        ASSERT_EQ(sched_getaffinity(0, sizeof(after), &after), 0);
        EXPECT_TRUE(CPU_EQUAL(&before, &after));
    }).join();
    // A thread confined to one CPU stays where it is.
    std::thread([&] {
        int cpu = detail::current_cpu();
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
        EXPECT_FALSE(detail::move_off_cpu(cpu));
        EXPECT_EQ(detail::current_cpu(), cpu);
    }).join();
}

// A worker never runs on the CPU the caller opened the previous job on once it has slept (its
// mask leaves that CPU out, so a wake-up cannot place it there): on the 2-core VM a worker woken
// onto the busy caller's CPU waited 2-4 ms for a time slice while the other CPU idled.
TEST(ThreadPool, SleepingWorkersAreNotWokenOntoTheCallersCpu) {
    cpu_set_t all;
    ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
    if (CPU_COUNT(&all) < 2) GTEST_SKIP() << "this process may run on one CPU only";
    std::thread([&] {
        ThreadPool pool(2);  // the worker starts with the full mask
        int cpu = detail::current_cpu();
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);  // the caller stays on `cpu`
        struct Where {
            std::thread::id caller = std::this_thread::get_id();
            int caller_cpu = -1;
            std::atomic<int> worker_pieces{0}, on_callers_cpu{0}, mask_has_it{0};
            static void run(void* raw, int64_t, int64_t) {
                auto* w = static_cast<Where*>(raw);
                // Every piece takes a while, so the worker wakes before the caller has stolen
                // them all.
                std::this_thread::sleep_for(std::chrono::microseconds(200));
                if (std::this_thread::get_id() == w->caller) return;
                w->worker_pieces.fetch_add(1);
                if (detail::current_cpu() == w->caller_cpu) w->on_callers_cpu.fetch_add(1);
                cpu_set_t mask;
                if (sched_getaffinity(0, sizeof(mask), &mask) == 0 &&
                    CPU_ISSET(w->caller_cpu, &mask))
                    w->mask_has_it.fetch_add(1);
            }
        } where;
        where.caller_cpu = cpu;
        pool.run(Where::run, &where, 0, 1 << 16);  // the worker learns the caller's CPU
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // and sleeps, steered
        where.worker_pieces = 0;
        where.on_callers_cpu = 0;
        where.mask_has_it = 0;
        for (int i = 0; i < 20; ++i) {
            pool.run(Where::run, &where, 0, 1 << 16);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the worker sleeps
        }
        EXPECT_GT(where.worker_pieces.load(), 0);
        EXPECT_EQ(where.on_callers_cpu.load(), 0);
        EXPECT_EQ(where.mask_has_it.load(), 0);
    }).join();
}

// Every index still runs once when the caller is pinned next to its pool's workers (they all
// may run only where the caller does, so none can move off it).
TEST(ThreadPool, CallerAndWorkersOnOneCpu) {
    std::thread([] {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(detail::current_cpu(), &one);
        ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
        ThreadPool pool(3);  // the workers inherit the one-CPU mask
        for (int i = 0; i < 50; ++i) {
            HitCounter counter(0, 4096);
            pool.run(HitCounter::count, &counter, 0, 4096);
            ASSERT_EQ(counter.check(0, 4096), "") << "iteration " << i;
        }
    }).join();
}
#endif

}  // namespace
}  // namespace tack::runtime::cpu
