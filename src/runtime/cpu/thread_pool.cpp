#include "runtime/cpu/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <thread>
#include <vector>

#include "diag/diagnostic.hpp"

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tack::runtime::cpu {
namespace {

// How long a worker (or the waiting caller) stays awake before sleeping on the futex: long
// enough that back-to-back dispatches find it awake (a futex wake-up costs 5-50 µs of scheduler
// latency, far more on a loaded host), short enough that an idle pool stops burning cores
// almost at once. After kPauseSpin of pause-spinning the waiter calls sched_yield between
// checks: when threads outnumber free cores, the thread it waits for may be queued on this very
// core, and a pure spin would hold it off for the whole budget (measured on a 2-core VM at load
// 14: 62 µs per empty fan-out with pause-only spinning, 6 µs with the yields).
constexpr auto kSpin = std::chrono::microseconds(50);
constexpr auto kPauseSpin = std::chrono::microseconds(2);

using Clock = std::chrono::steady_clock;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Sleeps while *word == expected. std::atomic::wait would do, but libstdc++ only spins a
// fixed count before its own futex and gives no control over the budget.
void futex_wait(std::atomic<uint32_t>& word, uint32_t expected) {
#if defined(__linux__)
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, nullptr,
            nullptr, 0);
#else
    word.wait(expected);
#endif
}

void futex_wake_all(std::atomic<uint32_t>& word) {
#if defined(__linux__)
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
            nullptr, 0);
#else
    word.notify_all();
#endif
}

// Spins until pred() holds or the spin budget is spent; returns pred().
template <class Pred>
bool spin_until(Pred pred) {
    auto start = Clock::now();
    for (int i = 0;; ++i) {
        if (pred()) return true;
        cpu_relax();
        if ((i & 63) != 63) continue;
        auto spun = Clock::now() - start;
        if (spun > kSpin) return pred();
        if (spun > kPauseSpin) std::this_thread::yield();
    }
}

}  // namespace

struct ThreadPool::Impl {
    int num_threads = 0;
    std::vector<std::thread> workers;

    // The job; written by the caller before `generation` is bumped (release), read by workers
    // after they observe the bump (acquire), and left alone until `remaining` reaches 0.
    RangeFn fn = nullptr;
    void* ctx = nullptr;
    int64_t start = 0, end = 0, chunk = 0;

    alignas(64) std::atomic<uint32_t> generation{0};
    alignas(64) std::atomic<uint32_t> remaining{0};
    std::atomic<int> sleeping_workers{0};
    std::atomic<bool> caller_sleeping{false};
    std::atomic<bool> stopping{false};
    std::atomic<bool> busy{false};

    void worker_loop(int index);
    void run_chunk(int index) const;
    void wait_for_job(uint32_t seen);
    void wait_for_workers();
};

void ThreadPool::Impl::run_chunk(int index) const {
    int64_t lo = start + chunk * index;
    if (lo >= end) return;
    int64_t hi = end - lo > chunk ? lo + chunk : end;
    fn(ctx, lo, hi);
}

void ThreadPool::Impl::wait_for_job(uint32_t seen) {
    auto changed = [&] { return generation.load(std::memory_order_acquire) != seen; };
    if (spin_until(changed)) return;
    // Dekker handshake with run(): we publish that we sleep, then re-read generation; run()
    // bumps generation, then reads sleeping_workers. seq_cst on both sides means at least one
    // of us sees the other, and FUTEX_WAIT itself re-checks the word atomically.
    sleeping_workers.fetch_add(1, std::memory_order_seq_cst);
    while (generation.load(std::memory_order_seq_cst) == seen)
        futex_wait(generation, seen);
    sleeping_workers.fetch_sub(1, std::memory_order_relaxed);
}

void ThreadPool::Impl::worker_loop(int index) {
    uint32_t seen = 0;
    for (;;) {
        wait_for_job(seen);
        seen = generation.load(std::memory_order_acquire);
        if (stopping.load(std::memory_order_acquire)) return;
        run_chunk(index);
        if (remaining.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
            caller_sleeping.load(std::memory_order_seq_cst)) {
            futex_wake_all(remaining);
        }
    }
}

void ThreadPool::Impl::wait_for_workers() {
    auto done = [&] { return remaining.load(std::memory_order_acquire) == 0; };
    if (spin_until(done)) return;
    caller_sleeping.store(true, std::memory_order_seq_cst);
    for (uint32_t left; (left = remaining.load(std::memory_order_seq_cst)) != 0;) {
        futex_wait(remaining, left);
    }
    caller_sleeping.store(false, std::memory_order_relaxed);
}

ThreadPool::ThreadPool(int num_threads) : impl_(std::make_unique<Impl>()) {
    TACK_ASSERT(num_threads >= 2, "a thread pool needs at least two threads");
    impl_->num_threads = num_threads;
    impl_->workers.reserve(num_threads - 1);
    for (int i = 1; i < num_threads; ++i) {
        impl_->workers.emplace_back([impl = impl_.get(), i] { impl->worker_loop(i); });
    }
}

ThreadPool::~ThreadPool() {
    impl_->stopping.store(true, std::memory_order_release);
    impl_->generation.fetch_add(1, std::memory_order_seq_cst);
    futex_wake_all(impl_->generation);
    for (auto& worker : impl_->workers)
        worker.join();
}

int ThreadPool::num_threads() const {
    return impl_->num_threads;
}

bool ThreadPool::run(RangeFn fn, void* ctx, int64_t start, int64_t end) {
    Impl& p = *impl_;
    if (p.busy.exchange(true, std::memory_order_acquire)) {
        // Another dispatch (or fn itself) holds the pool. Waiting could deadlock when fn
        // dispatches, and the workers are busy anyway, so this range runs here, in one piece.
        if (end > start) fn(ctx, start, end);
        return false;
    }
    int64_t total = end > start ? end - start : 0;
    p.fn = fn;
    p.ctx = ctx;
    p.start = start;
    p.end = start + total;
    p.chunk = (total + p.num_threads - 1) / p.num_threads;
    p.remaining.store(static_cast<uint32_t>(p.num_threads - 1), std::memory_order_relaxed);
    p.generation.fetch_add(1, std::memory_order_seq_cst);
    if (p.sleeping_workers.load(std::memory_order_seq_cst) > 0) futex_wake_all(p.generation);
    p.run_chunk(0);
    p.wait_for_workers();
    p.busy.store(false, std::memory_order_release);
    return true;
}

double ThreadPool::measure_fan_out_ns(int reps) {
    std::vector<double> samples;
    for (int i = 0; i < std::max(1, reps); ++i) {
        auto t0 = Clock::now();
        run([](void*, int64_t, int64_t) {}, nullptr, 0, 0);
        samples.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
    }
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
    return samples[samples.size() / 2];
}

}  // namespace tack::runtime::cpu
