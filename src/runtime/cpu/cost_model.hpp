#pragma once
// The serial-vs-parallel decision for CPU dispatches (CONTRACT E9, E10).
//
// Each compiled variant keeps a CostModel; the backend keeps one CpuExecutor. A dispatch is
//     executor.dispatch(variant.cost, fn, ctx, 0, n);
// which runs every index of [0, n) exactly once, either serially on the calling thread (timed, to
// learn the variant's per-element cost) or fanned out over the pool. A range fans out when
//     n * r_s >= kAlwaysParallelNs (1 ms)            -- never a long serial run on many cores
//  or n * (r_s - min(r_p, 0.9 r_s)) >= F * M          -- v1: r_p = 0
// with F the pool's fan-out cost, M the margin (2.0, or TACK_CPU_MARGIN), r_s the variant's
// smoothed serial ns/element and r_p its parallel ns/element (the busiest thread's time inside
// the kernel over the range's length). F is kept twice, for workers still spinning ("warm") and
// for workers asleep on the futex ("cold", a wake-up that costs 5 µs on a quiet host and
// milliseconds on a VM whose idle vCPUs the hypervisor parked), each the median of the last
// fan-outs' overhead (wall time minus the busiest thread's time), so it follows the machine's
// load instead of keeping what start-up saw. Unmeasured variants and one-thread executors never
// fan out; a variant's first large dispatch times a doubling prefix (the first, cold pieces
// read dear) and decides the rest on the last piece.
//
// A measured range far below every threshold (n * r_s < min(warm F, cold F) * M, and < 1 ms)
// takes a fast path with one comparison: serial, timed one call in 16, and predictable
// (inline_ns) by callers that hold a lock across brief launches.
//
// Each estimate can only be refreshed by one kind of dispatch, so the other kind is run on
// purpose now and then: fanned-out dispatches time a serial slice (>= 1/64 of the range, at a
// golden-ratio position) at parallel dispatch 1, 2, 4 ... 1024 and every 1024th after; ranges
// kept serial that would fan out at the cheapest fan-out cost seen (with r_p = 0) are fanned out
// on the same schedule to re-measure F and r_p: an estimate read high (a calibration taken while
// the worker sat on the caller's CPU, a loaded moment) stops the very fan-outs that could lower
// it, and used to keep a 0.12 ms heat step serial for a whole process. v2 also
// distrusts serial samples taken while the data is scattered over other cores' caches (after a
// fan-out): they may lower an estimate but not raise it while serial is affordable, and until a
// clean sample exists an affordable range runs serially to take one. Probes (call overhead,
// fan-out calibration) only ever run empty ranges.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "runtime/cpu/thread_pool.hpp"
#include "support/env.hpp"
#include "support/interrupt.hpp"

namespace tack::runtime::cpu {

inline constexpr int64_t kNeverParallel = int64_t(1) << 62;

/// Dispatches (or parts of one) handed to the pool since the process started, over every
/// executor: lets tests in fresh processes count the policy's decisions, whatever CPU time the
/// scheduler then gave the workers.
uint64_t fan_out_count();

/// Per compiled variant. Copying takes a snapshot (so variants can live in ordinary containers).
/// Safe to share between threads dispatching the same variant: updates that find the model busy
/// are dropped (a lost sample only delays learning).
class CostModel {
  public:
    CostModel() = default;
    CostModel(const CostModel& other);
    CostModel& operator=(const CostModel& other);

    /// Ranges of at least this many elements fan out while the workers are awake (as of the
    /// variant's last sample; dispatch recomputes it from the current fan-out cost).
    int64_t parallel_min_elems() const {
        return parallel_min_elems_.load(std::memory_order_relaxed);
    }
    /// Smoothed serial cost in ns per element; 0 until the first serial sample.
    double serial_ns_per_elem() const { return ns_per_elem_.load(std::memory_order_relaxed); }
    /// Smoothed parallel cost in ns per element of the whole range (v2); 0 until measured.
    double parallel_ns_per_elem() const {
        return ns_per_elem_parallel_.load(std::memory_order_relaxed);
    }
    /// Cost of one call on an empty range (ns), subtracted from serial samples; < 0 = unmeasured.
    double call_overhead_ns() const { return call_overhead_ns_.load(std::memory_order_relaxed); }
    uint64_t parallel_dispatches() const {
        return parallel_dispatches_.load(std::memory_order_relaxed);
    }

  private:
    friend class CpuExecutor;
    std::atomic<int64_t> parallel_min_elems_{kNeverParallel};
    std::atomic<bool> busy_{false};  // guards the read-modify-write of the estimates
    std::atomic<double> call_overhead_ns_{-1.0};
    std::atomic<double> ns_per_elem_{0.0};
    std::atomic<double> ns_per_elem_parallel_{0.0};
    std::atomic<uint64_t> parallel_dispatches_{0};
    std::atomic<uint64_t> next_recheck_{1};  // parallel dispatch number of the next serial slice
    std::atomic<uint64_t> held_back_{0};     // v2: serial dispatches that r_p alone kept serial
    std::atomic<uint64_t> next_parallel_recheck_{1};
    // v2: the data may sit in other cores' caches (true at first and after any fan-out; cleared
    // by a serial run of a whole dispatch range), so a serial sample now reads dear.
    std::atomic<bool> scattered_{true};
    std::atomic<bool> confirmed_{false};  // v2: a clean (not scattered) sample has been taken
    std::atomic<uint32_t> untimed_{0};    // fast-path calls since the last timed one
};

class CpuExecutor {
  public:
    /// num_threads from resolve_thread_count(); margin from TACK_CPU_MARGIN, else 2.0. With
    /// num_threads >= 2 the pool is started and its fan-out cost calibrated (a few warm-up
    /// fan-outs, then the minimum of 5 empty fan-outs).
    CpuExecutor(int num_threads, support::CpuPolicy policy, std::optional<double> margin);

    /// Reads TACK_CPU_THREADS (unless num_threads_option is set), TACK_CPU_POLICY and
    /// TACK_CPU_MARGIN; throws a ValueError CompileError for malformed values (C29).
    static std::unique_ptr<CpuExecutor> from_environment(std::optional<int> num_threads_option);

    int num_threads() const { return num_threads_; }
    support::CpuPolicy policy() const { return policy_; }
    double margin() const { return margin_; }
    /// Fan-out cost in ns with the workers awake: the start-up calibration, then the median of
    /// recent live fan-outs (the 200 µs prior when there is no pool).
    double fan_out_ns() const { return warm_.estimate(); }
    /// The same when the workers sleep on the futex (a wake-up each).
    double cold_fan_out_ns() const { return cold_.estimate(); }
    /// Replaces the fan-out cost estimates (tests: a calibration taken under heavy load), and
    /// the cheapest fan-out seen (default: the smaller estimate).
    void assume_fan_out_ns(double warm, double cold, std::optional<double> cheapest = {});
    /// Would a range of `total` fan out now (the decision dispatch makes for a measured variant)?
    bool would_fan_out(const CostModel& model, int64_t total) const;
    /// The predicted ns of dispatch(model, ..., total) when it takes the fast path: the variant
    /// is measured and the range lies below every fan-out threshold, so it runs serially on the
    /// calling thread, but for a rare probe (probe_due) that fans it out and takes no longer.
    /// +infinity otherwise.
    double inline_ns(const CostModel& model, int64_t total) const;
    /// nullptr for a one-thread executor.
    ThreadPool* pool() { return pool_.get(); }

    /// Runs fn over [start, end), every index exactly once, serially or fanned out as `model`
    /// decides, and updates `model` from what it measured.
    void dispatch(CostModel& model, RangeFn fn, void* ctx, int64_t start, int64_t end);
    /// The same as consecutive dispatches of bounded length, asking `poll` between them; throws
    /// support::Interrupted when it says so (interruptible.cpp).
    void dispatch_interruptible(CostModel& model, RangeFn fn, void* ctx, int64_t start, int64_t end,
                                support::InterruptPoll& poll);

    /// The threshold this executor derives from the rates (exposed for tests and reports).
    int64_t min_elems_for(double ns_per_elem, double ns_per_elem_parallel = 0.0) const;
    /// The same for a given fan-out cost.
    int64_t min_elems_for(double ns_per_elem, double ns_per_elem_parallel, double fan_out) const;

  private:
    /// A fan-out cost estimate: the median of the last kWindow samples (seeded by a prior), and
    /// the cheapest fan-out seen since the prior (what the pool can cost at best).
    class FanOutCost {
      public:
        static constexpr int kWindow = 8;
        explicit FanOutCost(double prior) : estimate_(prior), floor_(prior) {}
        double estimate() const { return estimate_.load(std::memory_order_relaxed); }
        double floor() const { return floor_.load(std::memory_order_relaxed); }
        void reset(double prior, double floor);
        void add(double sample);  // dropped when another thread is adding

      private:
        std::atomic<double> estimate_;
        std::atomic<double> floor_;
        std::atomic<bool> busy_{false};
        double samples_[kWindow] = {};
        int count_ = 0;
    };

    /// Ranges whose serial time r_s * n lies below this never fan out, whatever the workers'
    /// state: min(warm F, cold F) * margin, capped at kAlwaysParallelNs. Kept current by every
    /// change of the fan-out estimates, so dispatch decides those ranges with one comparison.
    double serial_bound_ns() const { return serial_bound_ns_.load(std::memory_order_relaxed); }
    bool surely_serial(const CostModel& model, int64_t total) const;
    void update_serial_bound();
    void run_serial(CostModel& model, RangeFn fn, void* ctx, int64_t start, int64_t end);
    void run_serial_sampled(CostModel& model, RangeFn fn, void* ctx, int64_t start, int64_t end);
    void run_first_sight(CostModel& model, RangeFn fn, void* ctx, int64_t start, int64_t end);
    void run_parallel(CostModel& model, RangeFn fn, void* ctx, int64_t start, int64_t end);
    void fan_out(CostModel& model, RangeFn fn, void* ctx, int64_t start, int64_t end);
    void run_serial_timed(CostModel& model, RangeFn fn, void* ctx, int64_t start, int64_t end,
                          int64_t range_total);
    void record_serial_sample(CostModel& model, RangeFn fn, void* ctx, int64_t elems,
                              int64_t range_total, double elapsed_ns);
    double serial_estimate(CostModel& model, double prev, double sample, int64_t range_total) const;
    bool serial_is_affordable(const CostModel& model, int64_t total) const;
    void record_parallel_sample(CostModel& model, double sample);
    void record_fan_out(CostModel& model, const FanOutStats& stats, int64_t total);
    double current_fan_out_ns() const;
    /// The cheapest fan-out either estimate has seen: ranges that would thread at this cost are
    /// probed now and then even while the estimates say serial (see probe_due).
    double optimistic_fan_out_ns() const;
    bool probe_due(CostModel& model, int64_t total) const;
    void update_thresholds(CostModel& model) const;
    int64_t probe_min_range() const;
    int64_t sample_elems(const CostModel& model, int64_t total) const;

    int num_threads_;
    support::CpuPolicy policy_;
    double margin_;
    FanOutCost warm_;
    FanOutCost cold_;
    std::atomic<double> serial_bound_ns_{0.0};
    std::unique_ptr<ThreadPool> pool_;
};

}  // namespace tack::runtime::cpu
