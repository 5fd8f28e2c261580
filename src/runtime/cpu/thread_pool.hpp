#pragma once
// A persistent pool of worker threads with low fan-out latency (CONTRACT E10 "fan-out =
// num_threads contiguous chunks of ceil(total/num_threads) on a persistent pool").
//
// Workers spin briefly on a generation counter after each job, then sleep on a futex; the
// calling thread runs the first chunk itself. Every index of [start, end) runs exactly once
// (E9) on every path.

#include <cstdint>
#include <memory>

namespace tack::runtime::cpu {

/// The compiled kernel's range entry point: runs iterations [start, end) with the bound args.
using RangeFn = void (*)(void* ctx, int64_t start, int64_t end);

class ThreadPool {
  public:
    /// Starts `num_threads - 1` workers (the caller is the last thread). num_threads >= 2;
    /// a one-thread backend has no pool (E11).
    explicit ThreadPool(int num_threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int num_threads() const;

    /// Splits [start, end) into num_threads contiguous chunks of ceil(total/num_threads) and
    /// runs fn(ctx, chunk_start, chunk_end) for every non-empty chunk, the calling thread taking
    /// the first; returns when all are done. Chunks past the end are not called. An empty range
    /// (end <= start) still wakes and joins the workers: that is the empty fan-out the cost model
    /// probes. If another thread is already inside run() (a concurrent dispatch, or fn itself
    /// dispatching), the whole range runs serially on this calling thread instead of waiting:
    /// that never deadlocks and a busy pool has no idle cores to offer anyway.
    /// Returns true when the range was fanned out, false when it ran serially.
    bool run(RangeFn fn, void* ctx, int64_t start, int64_t end);

    /// Median wall time of `reps` empty fan-outs in nanoseconds (E10 calibration). The median,
    /// not E10's minimum: on a loaded host the minimum catches the rare fan-out that found every
    /// worker on a free core (measured 0.3 µs against a 5.5 µs median on a 2-core VM), and a
    /// fan-out cost read low is the expensive mistake (fan-outs that lose to serial).
    double measure_fan_out_ns(int reps = 9);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tack::runtime::cpu
