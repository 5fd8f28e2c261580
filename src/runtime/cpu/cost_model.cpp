#include "runtime/cpu/cost_model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/cpu/cpu_info.hpp"

namespace tack::runtime::cpu {
namespace {

// Ratios, not thresholds in elements or nanoseconds, so they carry across machines (E10).
constexpr double kBreakEvenMargin = 2.0;    // parallel ~ F + T/P: P/(P-1) <= 2 plus insurance
constexpr double kDefaultFanOutNs = 200e3;  // prior, high on purpose: wrong = fan out later
constexpr double kMinNsPerElem = 1e-3;      // an all-but-empty kernel still reads as measured
constexpr double kCostSmoothing = 0.25;
constexpr double kMaxSampleRatio = 8.0;        // beyond this a rise is capped, a drop believed
constexpr double kSampleOverheadRatio = 10.0;  // a timed slice is worth 10x the call overhead
constexpr double kProbeReferenceNsPerElem = 24.0;
constexpr int64_t kSliceFraction = 64;  // a recheck slice is at least 1/64 of the range
constexpr uint64_t kRecheckDoublingLimit = 1024;
constexpr int kOverheadReps = 5;
constexpr int kWarmupFanOuts = 3;
constexpr int kCalibrationFanOuts = 9;
constexpr double kGoldenFraction = 0.6180339887498949;
constexpr double kParallelClamp = 0.9;     // v2: rate = r_s - min(r_p, 0.9 r_s) stays positive
constexpr double kRpMinWorkerNs = 1000.0;  // shorter worker spans are mostly clock and wake noise
constexpr double kRpTrustedSpanRatio = 20.0;  // median span >= 20 * workers * call overhead
constexpr double kConfirmBand = 4.0;  // serial is "affordable" up to 4 margins of fan-out cost
// A range whose serial run would take this long fans out whatever F and r_p say: the worst a
// fan-out can lose is its overhead, while serial gives up (1 - 1/threads) of a millisecond or
// more; estimates of F and r_p read high under load (a descheduled worker) and used to lock such
// ranges serial for good.
constexpr double kAlwaysParallelNs = 1e6;
// Sleeping workers cost a futex wake-up each; until one is measured assume it dear (4x the warm
// cost, at least 50 µs), so small ranges do not fan out into a parked vCPU.
constexpr double kColdFanOutRatio = 4.0;
constexpr double kColdFanOutFloorNs = 50e3;
// The cheapest fan-out cost assumed possible whatever the calibration read: every one of its
// empty fan-outs can read high (a worker descheduled behind another process for each), and a
// floor that high would keep ranges from ever being probed. A probe costs the caller little
// (the pool never waits for a worker that has not woken), so erring low is cheap.
constexpr double kFanOutFloorCapNs = 10e3;
// First sight: prefix pieces double from 1/4096 of the range until one takes this long (cold
// code and data make the first pieces read dear) or an eighth of the range has run.
constexpr double kFirstSightPieceNs = 10e3;
constexpr int64_t kFirstSightPrefixFraction = 8;
constexpr double kMinParallelBusyNs = 2000.0;  // shorter fan-outs are mostly wake-up noise
constexpr uint32_t kSampleEvery = 16;          // fast-path ranges: one timed call in this many

using Clock = std::chrono::steady_clock;

double elapsed_ns(Clock::time_point t0) {
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

// The fan-out part of a recheck: the pool sees a contiguous virtual range [start, end - hole_len)
// and each chunk is mapped around the slice [hole_begin, hole_begin + hole_len) that already ran
// serially, so every real index still runs exactly once (E9).
struct HoleCtx {
    RangeFn fn;
    void* ctx;
    int64_t hole_begin;
    int64_t hole_len;
};

void run_around_hole(void* raw, int64_t lo, int64_t hi) {
    const auto& h = *static_cast<HoleCtx*>(raw);
    if (hi <= h.hole_begin) {
        h.fn(h.ctx, lo, hi);
    } else if (lo >= h.hole_begin) {
        h.fn(h.ctx, lo + h.hole_len, hi + h.hole_len);
    } else {
        h.fn(h.ctx, lo, h.hole_begin);
        h.fn(h.ctx, h.hole_begin + h.hole_len, hi + h.hole_len);
    }
}

// Asymmetric smoothing (E10): an estimate too high fans out ranges that cannot repay it (up to
// ~10x slower per dispatch), one too low only leaves speedup unclaimed, so a far-higher sample
// (usually a descheduled run) is capped and a far-lower one believed outright.
double smoothed_serial(double prev, double sample) {
    if (prev <= 0.0) return sample;
    if (sample > prev * kMaxSampleRatio)
        return prev + kCostSmoothing * (prev * kMaxSampleRatio - prev);
    if (sample * kMaxSampleRatio < prev) return sample;
    return prev + kCostSmoothing * (sample - prev);
}

std::atomic<uint64_t> g_fan_outs{0};

uint64_t next_recheck_after(uint64_t n) {
    return n < kRecheckDoublingLimit ? 2 * n : n + kRecheckDoublingLimit;
}

// True once per schedule step (counts 1, 2, 4 ... 1024, then every 1024th): the caller that
// wins the compare-exchange does the recheck.
bool recheck_due(std::atomic<uint64_t>& next, uint64_t count) {
    uint64_t due = next.load(std::memory_order_relaxed);
    return count >= due && next.compare_exchange_strong(due, next_recheck_after(count));
}

}  // namespace

CostModel::CostModel(const CostModel& other) {
    *this = other;
}

CostModel& CostModel::operator=(const CostModel& other) {
    parallel_min_elems_.store(other.parallel_min_elems());
    call_overhead_ns_.store(other.call_overhead_ns());
    ns_per_elem_.store(other.serial_ns_per_elem());
    ns_per_elem_parallel_.store(other.parallel_ns_per_elem());
    parallel_dispatches_.store(other.parallel_dispatches());
    next_recheck_.store(other.next_recheck_.load());
    held_back_.store(other.held_back_.load());
    next_parallel_recheck_.store(other.next_parallel_recheck_.load());
    scattered_.store(other.scattered_.load());
    confirmed_.store(other.confirmed_.load());
    return *this;
}

void CpuExecutor::FanOutCost::reset(double prior, double floor) {
    count_ = 0;
    estimate_.store(prior, std::memory_order_relaxed);
    floor_.store(std::min(prior, floor), std::memory_order_relaxed);
}

void CpuExecutor::FanOutCost::add(double sample) {
    if (busy_.exchange(true, std::memory_order_acquire)) return;
    samples_[count_ % kWindow] = sample;
    ++count_;
    if (sample < floor_.load(std::memory_order_relaxed))
        floor_.store(sample, std::memory_order_relaxed);
    double sorted[kWindow];
    int n = std::min(count_, kWindow);
    std::copy(samples_, samples_ + n, sorted);
    std::nth_element(sorted, sorted + n / 2, sorted + n);
    estimate_.store(sorted[n / 2], std::memory_order_relaxed);
    busy_.store(false, std::memory_order_release);
}

CpuExecutor::CpuExecutor(int num_threads, support::CpuPolicy policy, std::optional<double> margin)
    : num_threads_(std::max(1, num_threads)),
      policy_(policy),
      margin_(margin.value_or(kBreakEvenMargin)),
      warm_(kDefaultFanOutNs),
      cold_(kDefaultFanOutNs) {
    if (num_threads_ < 2) return;  // E11: one thread means no pool, always serial
    pool_ = std::make_unique<ThreadPool>(num_threads_);
    num_threads_ = pool_->num_threads();  // fewer when the system refused threads
    if (num_threads_ < 2) {
        pool_.reset();
        return;
    }
    // The first fan-outs also start the threads and read high; only warm ones count.
    pool_->measure_fan_out_ns(kWarmupFanOuts);
    double cheapest = 0.0;
    double warm = pool_->measure_fan_out_ns(kCalibrationFanOuts, &cheapest);
    warm_.reset(warm, std::min(cheapest, kFanOutFloorCapNs));
    double cold = std::max(kColdFanOutRatio * warm, kColdFanOutFloorNs);
    cold_.reset(cold, cold);
    update_serial_bound();
}

std::unique_ptr<CpuExecutor> CpuExecutor::from_environment(std::optional<int> num_threads_option) {
    int threads = resolve_thread_count(num_threads_option);
    support::CpuPolicy policy = support::env_cpu_policy();
    std::optional<double> margin = support::env_cpu_margin();
    return std::make_unique<CpuExecutor>(threads, policy, margin);
}

void CpuExecutor::assume_fan_out_ns(double warm, double cold, std::optional<double> cheapest) {
    warm_.reset(warm, cheapest.value_or(warm));
    cold_.reset(cold, cheapest.value_or(cold));
    update_serial_bound();
}

void CpuExecutor::update_serial_bound() {
    double f = std::min(warm_.estimate(), cold_.estimate());
    serial_bound_ns_.store(std::min(f * margin_, kAlwaysParallelNs), std::memory_order_relaxed);
}

// n + 1: min_elems_for() truncates its threshold to an integer, so n * r_s < bound alone could
// still reach it. Below the bound, dispatch's slow path would also run serially: would_fan_out()
// and run_serial()'s recheck both need n >= min(F * M, 1 ms) / rate with rate <= r_s.
bool CpuExecutor::surely_serial(const CostModel& model, int64_t total) const {
    double r_s = model.serial_ns_per_elem();
    return r_s > 0.0 && double(total + 1) * r_s < serial_bound_ns();
}

double CpuExecutor::inline_ns(const CostModel& model, int64_t total) const {
    if (total <= 0) return 0.0;
    if (pool_ && !surely_serial(model, total)) return std::numeric_limits<double>::infinity();
    double r_s = model.serial_ns_per_elem();
    if (r_s <= 0.0) return std::numeric_limits<double>::infinity();  // never measured
    return double(total) * r_s + std::max(model.call_overhead_ns(), 0.0);
}

int64_t CpuExecutor::min_elems_for(double ns_per_elem, double ns_per_elem_parallel) const {
    return min_elems_for(ns_per_elem, ns_per_elem_parallel, fan_out_ns());
}

int64_t CpuExecutor::min_elems_for(double ns_per_elem, double ns_per_elem_parallel,
                                   double fan_out) const {
    if (!pool_ || ns_per_elem <= 0.0) return kNeverParallel;
    double rate = ns_per_elem - std::min(ns_per_elem_parallel, kParallelClamp * ns_per_elem);
    double elems = std::min(fan_out * margin_ / rate, kAlwaysParallelNs / ns_per_elem);
    if (!(elems < double(kNeverParallel))) return kNeverParallel;
    return std::max<int64_t>(num_threads_, static_cast<int64_t>(elems));
}

double CpuExecutor::current_fan_out_ns() const {
    return pool_ && pool_->workers_sleeping() ? cold_fan_out_ns() : fan_out_ns();
}

// The pool never waits for a worker that has not woken (the caller steals its pieces), so a
// probe into sleeping workers costs the caller the futex wake itself, not the worker's wake-up
// latency: the cold estimate would be too dear. But that wake is not free either: on the 2-core
// KVM guest a FUTEX_WAKE to a parked vCPU took 20-27 us in the caller (2026-12), and the second
// call of every fresh 4096-element kernel (1 us serial) was such a probe at 21 us. So with the
// workers asleep the cheapest cost assumed is the cheapest cold fan-out seen, capped like the
// warm floor: ranges that could not pay even that are left to be probed when the workers are up.
double CpuExecutor::optimistic_fan_out_ns() const {
    if (pool_ && pool_->workers_sleeping()) return std::min(cold_.floor(), kFanOutFloorCapNs);
    return std::min(warm_.floor(), cold_.floor());
}

// A serial dispatch that r_s alone would thread at the cheapest fan-out cost seen: its turn on
// the probe schedule (held-back dispatch 1, 2, 4 ... 1024, then every 1024th) fans it out.
bool CpuExecutor::probe_due(CostModel& model, int64_t total) const {
    if (total < min_elems_for(model.serial_ns_per_elem(), 0.0, optimistic_fan_out_ns()))
        return false;
    uint64_t n = model.held_back_.fetch_add(1, std::memory_order_relaxed) + 1;
    return recheck_due(model.next_parallel_recheck_, n);
}

bool CpuExecutor::would_fan_out(const CostModel& model, int64_t total) const {
    double r_s = model.serial_ns_per_elem();
    double r_p = policy_ == support::CpuPolicy::V2 ? model.parallel_ns_per_elem() : 0.0;
    return total >= min_elems_for(r_s, r_p, current_fan_out_ns());
}

void CpuExecutor::update_thresholds(CostModel& model) const {
    double r_s = model.serial_ns_per_elem();
    double r_p = policy_ == support::CpuPolicy::V2 ? model.parallel_ns_per_elem() : 0.0;
    model.parallel_min_elems_.store(min_elems_for(r_s, r_p), std::memory_order_relaxed);
}

int64_t CpuExecutor::probe_min_range() const {
    return std::max<int64_t>(num_threads_,
                             int64_t(fan_out_ns() * kBreakEvenMargin / kProbeReferenceNsPerElem));
}

void CpuExecutor::dispatch(CostModel& model, RangeFn fn, void* ctx, int64_t start, int64_t end) {
    if (end <= start) return;
    int64_t total = end - start;
    // One thread, or a range far from every threshold: serial, timed now and then (inline_ns()
    // needs r_s even without a pool).
    if (!pool_ || surely_serial(model, total)) {
        run_serial_sampled(model, fn, ctx, start, end);
        return;
    }
    if (model.serial_ns_per_elem() > 0.0 && would_fan_out(model, total)) {
        // v2 confirmation: first samples are never clean (a bandwidth-bound kernel read 3-4x
        // dear, up to 15x), so before the first near-threshold fan-out take a clean one.
        bool confirm = policy_ == support::CpuPolicy::V2 &&
                       !model.confirmed_.load(std::memory_order_relaxed) &&
                       serial_is_affordable(model, total);
        if (confirm) {
            run_serial_timed(model, fn, ctx, start, end, total);
        } else {
            run_parallel(model, fn, ctx, start, end);
        }
    } else if (model.serial_ns_per_elem() <= 0.0 && total >= probe_min_range()) {
        run_first_sight(model, fn, ctx, start, end);
    } else {
        run_serial(model, fn, ctx, start, end);
    }
}

// First sight of a variant at a range where threading might pay: time a doubling prefix, then
// decide the rest on its last piece, so a one-shot large dispatch is not stuck serial for want
// of a sample, and the first piece's cold code and data (page faults, a JIT'd function never
// run) do not pass for its cost: that reading made small ranges fan out into sleeping workers.
void CpuExecutor::run_first_sight(CostModel& model, RangeFn fn, void* ctx, int64_t start,
                                  int64_t end) {
    int64_t total = end - start;
    int64_t limit = std::max<int64_t>(1, total / kFirstSightPrefixFraction);
    int64_t piece = std::max<int64_t>(16, total / 4096);
    int64_t done = 0;
    for (;;) {
        piece = std::min(piece, limit - done);
        auto t0 = Clock::now();
        fn(ctx, start + done, start + done + piece);
        double ns = elapsed_ns(t0);
        done += piece;
        if (ns >= kFirstSightPieceNs || done >= limit) {
            // Only the last piece is a sample; the earlier ones warmed code and caches.
            if (model.ns_per_elem_.load(std::memory_order_relaxed) <= 0.0)
                record_serial_sample(model, fn, ctx, piece, total, ns);
            break;
        }
        piece *= 2;
    }
    int64_t probe = done;
    if (would_fan_out(model, total - probe)) {
        fan_out(model, fn, ctx, start + probe, end);
    } else {
        run_serial_timed(model, fn, ctx, start + probe, end, total);
        model.scattered_.store(false, std::memory_order_relaxed);  // all of it ran here
    }
}

// A range that r_s alone would thread at the cheapest fan-out cost seen, but that F or r_p keeps
// serial, is fanned out now and then: both are refreshed only by fan-outs, so a high reading
// (say, from a loaded moment) would otherwise stop the very fan-outs that could lower it.
void CpuExecutor::run_serial(CostModel& model, RangeFn fn, void* ctx, int64_t start, int64_t end) {
    if (probe_due(model, end - start)) {
        fan_out(model, fn, ctx, start, end);
        return;
    }
    run_serial_timed(model, fn, ctx, start, end, end - start);
}

// Two clock reads are a quarter of a 1-element launch, so ranges on the fast path are timed only
// every kSampleEvery-th call (the counter is racy on purpose: a lost update shifts the schedule);
// always while unmeasured, and right after a fan-out scattered the data (the sample then clears
// that). A cost that rises is noticed within kSampleEvery calls; launches predicted brief enough
// to keep the GIL have a fixed cost per iteration (KernelFacts::fixed_cost), so theirs cannot
// jump with an argument's value.
void CpuExecutor::run_serial_sampled(CostModel& model, RangeFn fn, void* ctx, int64_t start,
                                     int64_t end) {
    uint32_t n = model.untimed_.load(std::memory_order_relaxed);
    if (n + 1 < kSampleEvery && model.serial_ns_per_elem() > 0.0 &&
        !model.scattered_.load(std::memory_order_relaxed)) {
        model.untimed_.store(n + 1, std::memory_order_relaxed);
        fn(ctx, start, end);
        return;
    }
    model.untimed_.store(0, std::memory_order_relaxed);
    // The timed call is also where a fast-path range gets its probe (run_serial): a fan-out cost
    // read high puts ranges on this path that a cheaper pool would thread.
    if (pool_ && model.serial_ns_per_elem() > 0.0 && probe_due(model, end - start)) {
        fan_out(model, fn, ctx, start, end);
        return;
    }
    run_serial_timed(model, fn, ctx, start, end, end - start);
}

// `range_total` is the dispatch's whole range: a run covering it gathers the data on this thread.
void CpuExecutor::run_serial_timed(CostModel& model, RangeFn fn, void* ctx, int64_t start,
                                   int64_t end, int64_t range_total) {
    auto t0 = Clock::now();
    fn(ctx, start, end);
    record_serial_sample(model, fn, ctx, end - start, range_total, elapsed_ns(t0));
    if (end - start == range_total && model.scattered_.load(std::memory_order_relaxed))
        model.scattered_.store(false, std::memory_order_relaxed);
}

bool CpuExecutor::serial_is_affordable(const CostModel& model, int64_t total) const {
    double serial = double(total) * model.serial_ns_per_elem();
    return serial <= kConfirmBand * margin_ * fan_out_ns() && serial < kAlwaysParallelNs;
}

// The new r_s from the previous estimate and one sample.
double CpuExecutor::serial_estimate(CostModel& model, double prev, double sample,
                                    int64_t range_total) const {
    double estimate = smoothed_serial(prev, sample);
    if (policy_ != support::CpuPolicy::V2) return estimate;
    if (!model.scattered_.load(std::memory_order_relaxed)) {
        // The first clean sample replaces whatever dear first samples taught.
        bool first_clean = !model.confirmed_.exchange(true, std::memory_order_relaxed);
        return first_clean ? std::min(estimate, sample) : estimate;
    }
    // A scattered sample is an upper bound. Where serial is affordable a clean one is cheap to
    // get, so it may only lower the estimate; where serial is dear, a rise is real evidence.
    if (prev > 0.0 && estimate > prev && serial_is_affordable(model, range_total)) return prev;
    return estimate;
}

void CpuExecutor::record_serial_sample(CostModel& model, RangeFn fn, void* ctx, int64_t elems,
                                       int64_t range_total, double elapsed) {
    if (elems <= 0 || model.busy_.exchange(true, std::memory_order_acquire)) return;
    if (model.call_overhead_ns() < 0.0) {
        // Empty calls run no iterations, so this probe is safe on any kernel (E9).
        double best = elapsed;
        for (int i = 0; i < kOverheadReps; ++i) {
            auto t0 = Clock::now();
            fn(ctx, 0, 0);
            best = std::min(best, elapsed_ns(t0));
        }
        model.call_overhead_ns_.store(best, std::memory_order_relaxed);
    }
    // The fixed per-call cost is paid by every chunk, so threading does not divide it: charging
    // it per element made cheap kernels look expensive and fan out where serial won.
    double sample = std::max((elapsed - model.call_overhead_ns()) / double(elems), kMinNsPerElem);
    double estimate = serial_estimate(model, model.serial_ns_per_elem(), sample, range_total);
    model.ns_per_elem_.store(estimate, std::memory_order_relaxed);
    update_thresholds(model);
    model.busy_.store(false, std::memory_order_release);
}

// A high r_p keeps ranges serial, so like r_s a far-higher sample (a worker descheduled for the
// whole fan-out) is capped and a far-lower one believed: uncapped, one such sample pushed r_p
// past r_s and kept saxpy serial for hundreds of calls.
void CpuExecutor::record_parallel_sample(CostModel& model, double sample) {
    if (model.busy_.exchange(true, std::memory_order_acquire)) return;
    double prev = model.parallel_ns_per_elem();
    model.ns_per_elem_parallel_.store(smoothed_serial(prev, sample), std::memory_order_relaxed);
    update_thresholds(model);
    model.busy_.store(false, std::memory_order_release);
}

// A recheck slice; the whole range only when that is short. probe_min_range() follows the live
// fan-out cost, so under load it grew past long ranges and the rechecks at parallel dispatch
// 1, 2, 4 ... ran those serially in full (a 10 ms kernel, serial on its 3rd and 5th calls).
int64_t CpuExecutor::sample_elems(const CostModel& model, int64_t total) const {
    double rate = std::max(model.serial_ns_per_elem(), kMinNsPerElem);
    if (total <= probe_min_range() && double(total) * rate < kAlwaysParallelNs) return total;
    double target_ns = kSampleOverheadRatio * std::max(model.call_overhead_ns(), 1.0);
    auto target = static_cast<int64_t>(std::min(target_ns / rate, double(total)));
    return std::clamp<int64_t>(std::max(target, total / kSliceFraction), 1, total);
}

// A fan-out cannot re-measure the serial rate, and an estimate that chose threading cannot be
// checked against itself, so on the recheck schedule a slice is timed serially (at a
// golden-ratio position, so successive slices touch different data) while the rest fans out.
void CpuExecutor::run_parallel(CostModel& model, RangeFn fn, void* ctx, int64_t start,
                               int64_t end) {
    uint64_t n = model.parallel_dispatches_.fetch_add(1, std::memory_order_relaxed) + 1;
    if (!recheck_due(model.next_recheck_, n)) {
        fan_out(model, fn, ctx, start, end);
        return;
    }
    int64_t total = end - start;
    int64_t slice = sample_elems(model, total);
    if (slice >= total) {
        run_serial_timed(model, fn, ctx, start, end, total);
        return;
    }
    double position = std::fmod(double(n) * kGoldenFraction, 1.0);
    int64_t hole_begin = start + static_cast<int64_t>(position * double(total - slice));
    run_serial_timed(model, fn, ctx, hole_begin, hole_begin + slice, total);
    HoleCtx hole{fn, ctx, hole_begin, slice};
    fan_out(model, run_around_hole, &hole, start, end - slice);
}

uint64_t fan_out_count() {
    return g_fan_outs.load(std::memory_order_relaxed);
}

void CpuExecutor::fan_out(CostModel& model, RangeFn fn, void* ctx, int64_t start, int64_t end) {
    model.scattered_.store(true, std::memory_order_relaxed);
    g_fan_outs.fetch_add(1, std::memory_order_relaxed);
    FanOutStats stats;
    if (!pool_->run(fn, ctx, start, end, &stats)) return;  // ran serially: pool busy
    record_fan_out(model, stats, end - start);
}

// F from this fan-out: its wall time minus the busiest thread's time inside the kernel (the
// wake-up, the join, and any wait for a thread that started late). r_p (v2): the busiest
// thread's time over the range, i.e. what the parallel part of a dispatch costs per element.
void CpuExecutor::record_fan_out(CostModel& model, const FanOutStats& stats, int64_t total) {
    double busiest = 0.0;
    for (const auto& t : stats.threads)
        busiest = std::max(busiest, t.busy_ns);
    double overhead = std::max(stats.wall_ns - busiest, 0.0);
    (stats.woke_sleepers ? cold_ : warm_).add(overhead);
    update_serial_bound();
    if (policy_ != support::CpuPolicy::V2 || total <= 0 || busiest < kMinParallelBusyNs) return;
    record_parallel_sample(model, std::max(busiest / double(total), kMinNsPerElem));
}

}  // namespace tack::runtime::cpu
