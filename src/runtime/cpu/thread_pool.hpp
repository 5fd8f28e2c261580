#pragma once
// A persistent pool of worker threads with low fan-out latency and work stealing.
//
// A fan-out splits [start, end) into num_threads contiguous blocks (E10's ceil(total/threads)
// split), each cut into a few pieces. Every thread, the caller included, takes the pieces of
// its own block front to back; a thread whose block is empty steals pieces from the back of
// another's. So a worker that is slow to wake (a descheduled vCPU, a loaded host) or a block of
// expensive iterations (Mandelbrot rows) costs at most one piece of waiting, not a whole block,
// and each thread still streams through contiguous memory. The caller returns once every piece
// has run and no worker is still inside the job; it never waits for a worker that has not
// woken. Every index of [start, end) runs exactly once (E9) on every path.
//
// Workers spin on a generation counter after each job, then sleep on a futex; the spin lasts
// through the gaps the caller has recently left between jobs (detail::spin_budget_ns), so a
// launch after a little Python work finds them awake. A worker
// keeps off the CPU the caller opened the last job on: its affinity mask leaves that CPU out
// while it sleeps (so a wake-up cannot place it there) and it re-confines itself when it finds
// the caller on its own CPU, where it would run only when the caller yields and the caller would
// steal all. Pools with more workers than other CPUs only move a worker off (at most once a
// millisecond) and restore its mask.

#include <cstdint>
#include <memory>
#include <vector>

namespace tack::runtime::cpu {

/// The compiled kernel's range entry point: runs iterations [start, end) with the bound args.
using RangeFn = void (*)(void* ctx, int64_t start, int64_t end);

/// What one fan-out measured (for the cost model): per thread, the elements it ran and the time
/// spent inside fn; the wall time of the whole run().
struct FanOutStats {
    struct Thread {
        int64_t elems = 0;
        double busy_ns = 0.0;
    };
    std::vector<Thread> threads;  // index 0 is the caller
    double wall_ns = 0.0;
    bool woke_sleepers = false;  // some worker was asleep on the futex when the job started
};

namespace detail {
/// The CPU the calling thread runs on; -1 where the system does not say.
int current_cpu();
/// Migrates the calling thread off `cpu` to another CPU of its affinity mask, which it then
/// restores unchanged. False (nothing done) when the thread may run on `cpu` alone.
bool move_off_cpu(int cpu);

/// How long idle workers spin before they sleep, from the gaps (ns) between the caller's last
/// jobs: through the longest recent gap and a quarter more when most recent gaps were short
/// (a simulation's Python work between launches), capped at kMaxSpinNs; the base kSpinNs when
/// the caller pauses for longer (an idle pool then stops burning cores almost at once).
inline constexpr int64_t kSpinNs = 50'000;
inline constexpr int64_t kMaxGapNs = 2'000'000;
inline constexpr int64_t kMaxSpinNs = kMaxGapNs + kMaxGapNs / 4;
int64_t spin_budget_ns(const int64_t* gaps, int count);
}  // namespace detail

class ThreadPool {
  public:
    /// Starts `num_threads - 1` workers (the caller is the last thread). num_threads >= 2; a
    /// one-thread backend has no pool (E11). When the system refuses a thread, the pool keeps the
    /// ones it started (num_threads() says how many) and prints a warning.
    explicit ThreadPool(int num_threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int num_threads() const;

    /// Runs fn(ctx, lo, hi) over pieces that cover [start, end) exactly once (see the header
    /// comment); returns when all have run. Empty pieces are not called. An empty range
    /// (end <= start) still wakes the workers and waits until each has checked in: that is the
    /// empty fan-out the cost model probes. If another thread is already inside run() (a
    /// concurrent dispatch, or fn itself dispatching), the whole range runs serially on this
    /// calling thread instead of waiting: that never deadlocks and a busy pool has no idle cores
    /// to offer anyway. Returns true when the range was fanned out, false when it ran serially.
    /// With `stats`, each piece is timed (two clock reads per piece). Pieces are at least
    /// `min_piece` indices long: kernel ranges keep long contiguous runs; a range of host tasks,
    /// each index a whole chunk of work, passes 1 so that every task can be stolen.
    static constexpr int64_t kMinPieceElems = 2048;
    bool run(RangeFn fn, void* ctx, int64_t start, int64_t end, FanOutStats* stats = nullptr,
             int64_t min_piece = kMinPieceElems);

    /// True when some worker sleeps on the futex: the next fan-out pays its wake-up.
    bool workers_sleeping() const;

    /// Median wall time of `reps` empty fan-outs in nanoseconds (E10 calibration). The median,
    /// not E10's minimum: on a loaded host the minimum catches the rare fan-out that found every
    /// worker on a free core (measured 0.3 µs against a 5.5 µs median on a 2-core VM), and a
    /// fan-out cost read low is the expensive mistake (fan-outs that lose to serial).
    /// With `min_ns`, also the cheapest of them (the cost model's optimistic fan-out cost).
    double measure_fan_out_ns(int reps = 9, double* min_ns = nullptr);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tack::runtime::cpu
