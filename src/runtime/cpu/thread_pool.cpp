#include "runtime/cpu/thread_pool.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <system_error>
#include <thread>

#include "diag/diagnostic.hpp"
#include "support/platform.hpp"

namespace tack::runtime::cpu {
namespace {

// How long a worker (or the waiting caller) stays awake before sleeping on the futex: long
// enough that back-to-back dispatches find it awake (a futex wake-up costs 5-50 µs of scheduler
// latency, far more on a loaded host), short enough that an idle pool stops burning cores
// almost at once. After kPauseSpin of pause-spinning the waiter calls sched_yield between
// checks: when threads outnumber free cores, the thread it waits for may be queued on this very
// core, and a pure spin would hold it off for the whole budget (measured on a 2-core VM at load
// 14: 62 µs per empty fan-out with pause-only spinning, 6 µs with the yields).
// kSpin is the caller's budget and the workers' least one (detail::spin_budget_ns).
constexpr auto kSpin = std::chrono::nanoseconds(detail::kSpinNs);
// Gaps between jobs the workers' spin budget is taken from.
constexpr int kGapWindow = 8;
constexpr auto kPauseSpin = std::chrono::microseconds(2);
// Pieces per thread's block: enough that a late or slow thread costs a fraction of its block,
// few enough that each piece is a long contiguous run (a kernel call per piece). Blocks shorter
// than kPiecesPerThread * min_piece (ThreadPool::kMinPieceElems for kernels) get fewer pieces.
constexpr int kPiecesPerThread = 8;

// A worker moves itself off the caller's CPU at most this often (see move_off_cpu).
constexpr auto kMoveInterval = std::chrono::milliseconds(1);

using Clock = std::chrono::steady_clock;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Sleeps while *word == expected (a futex: platform.hpp says why not std::atomic::wait).
void futex_wait(std::atomic<uint32_t>& word, uint32_t expected) {
    support::platform::wait_while(word, expected);
}

void futex_wake_all(std::atomic<uint32_t>& word) {
    support::platform::wake_all(word);
}

// Confines the calling thread to the CPUs of `allowed` but `cpu`; false (nothing changed) when
// `cpu` is not one of them or the platform has no affinity.
bool confine_off(const std::vector<int>& allowed, int cpu) {
    if (cpu < 0 || std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) return false;
    std::vector<int> others;
    for (int c : allowed)
        if (c != cpu) others.push_back(c);
    return support::platform::set_allowed_cpus(others);
}

}  // namespace

namespace detail {

int current_cpu() {
    return support::platform::current_cpu();
}

// Moves the calling thread to another CPU it may run on: narrows its affinity to exclude `cpu`
// (which migrates it at once) and then restores the mask (which moves nothing). Why: a worker
// started or woken by the caller is often placed on the caller's CPU (the scheduler's wake-affine
// placement); there it runs only when the caller yields, so the caller steals every piece and a
// fan-out runs at one thread's speed until the load balancer separates them, which took ~200
// fan-outs (25 ms) on the 2-core VM (2026-12: the worker ran 2-5% of the pieces of the first
// 200 heat steps, 50% after). No effect when the thread may run on one CPU only.
bool move_off_cpu(int cpu) {
    std::vector<int> allowed = support::platform::allowed_cpus();
    if (allowed.size() < 2 || !confine_off(allowed, cpu)) return false;
    support::platform::set_allowed_cpus(allowed);
    return true;
}

// Measured (benchmarks/bench_python.py, 2-core VM, 2026-12): a 90 µs kernel after 0.2-1 ms of
// other work paid a futex wake-up with the 50 µs spin, 66 µs against 48 µs back to back. Most
// short gaps (6 of 8) make the budget; one long pause among them does not end it.
int64_t spin_budget_ns(const int64_t* gaps, int count) {
    int64_t longest = 0;
    int short_gaps = 0;
    for (int i = 0; i < count; ++i) {
        if (gaps[i] < 0 || gaps[i] > kMaxGapNs) continue;
        ++short_gaps;
        longest = std::max(longest, gaps[i]);
    }
    if (count == 0 || short_gaps * 4 < count * 3) return kSpinNs;
    return std::clamp(longest + longest / 4, kSpinNs, kMaxSpinNs);
}

}  // namespace detail

namespace {

// Spins until pred() holds or the spin budget is spent; returns pred(). After kPauseSpin it
// yields between checks while should_yield() says so: a yield hands the CPU to whatever else is
// runnable there for a whole time slice, which helps when that is the thread being waited for
// and costs milliseconds when it is another process's low-priority work.
template <class Pred, class Yield>
bool spin_until(Pred pred, Yield should_yield, Clock::duration budget = kSpin) {
    auto start = Clock::now();
    for (int i = 0;; ++i) {
        if (pred()) return true;
        cpu_relax();
        if ((i & 63) != 63) continue;
        auto spun = Clock::now() - start;
        if (spun > budget) return pred();
        if (spun > kPauseSpin && should_yield()) std::this_thread::yield();
    }
}

// A block's unclaimed pieces [lo, hi) in one word, so the owner (front) and thieves (back)
// claim with one compare-exchange each and no piece is handed out twice.
struct alignas(64) Block {
    std::atomic<uint64_t> bounds{0};
    FanOutStats::Thread stats;  // written only by the thread this slot belongs to

    static uint64_t pack(uint32_t lo, uint32_t hi) { return (uint64_t(lo) << 32) | hi; }

    // Returns the claimed piece or -1.
    int64_t claim(bool from_front) {
        uint64_t b = bounds.load(std::memory_order_relaxed);
        for (;;) {
            auto lo = uint32_t(b >> 32), hi = uint32_t(b);
            if (lo >= hi) return -1;
            uint64_t next = from_front ? pack(lo + 1, hi) : pack(lo, hi - 1);
            if (bounds.compare_exchange_weak(b, next, std::memory_order_acq_rel,
                                             std::memory_order_relaxed)) {
                return from_front ? lo : hi - 1;
            }
        }
    }
};

}  // namespace

// Where a sleeping worker may be woken. A futex wake-up lets the scheduler place the worker,
// and on the 2-core KVM guest (2026-12) it placed it on the caller's busy CPU with the other one
// idle (an idle vCPU the host has descheduled reads as "preempted", not idle): the worker then
// waited 2-4 ms for the caller's time slice to end, so the first fan-outs after any idle spell
// ran on one thread (a 2^24 sum after a 50 ms pause: 3.9 ms runnable-but-waiting in
// perf sched). So a worker confines itself to the CPUs other than the caller's before it
// sleeps, and keeps that mask while it works: the scheduler can then only wake it elsewhere.
// It re-confines when the caller is seen on another CPU. Not done when the workers outnumber
// the other CPUs (one of them would be left out), nor where the caller's CPU is unknown.
class CpuSteering {
  public:
    explicit CpuSteering(int num_threads) : allowed_(support::platform::allowed_cpus()) {
        int cpus = static_cast<int>(allowed_.size());
        on_ = cpus >= 2 && num_threads <= cpus;
    }
    bool on() const { return on_; }

    /// Confines the calling worker to the allowed CPUs but `cpu` (migrating it off `cpu` if it
    /// runs there). `avoided` is the CPU it already avoids; nothing is done when that is `cpu`.
    void avoid(int cpu, int& avoided) const {
        if (on_ && cpu != avoided && confine_off(allowed_, cpu)) avoided = cpu;
    }

  private:
    std::vector<int> allowed_;  // the pool creator's mask, which the workers start with
    bool on_ = false;
};

struct ThreadPool::Impl {
    explicit Impl(int threads) : steering(threads) {}

    int num_threads = 0;
    CpuSteering steering;
    std::vector<std::thread> workers;
    std::unique_ptr<Block[]> blocks;

    // The job; written by the caller before `generation` is bumped (release), read by workers
    // after they observe the bump (acquire) and find `open_generation` equal to it.
    RangeFn fn = nullptr;
    void* ctx = nullptr;
    int64_t start = 0, end = 0, piece_len = 0;
    bool steal = true;
    bool timed = false;

    // The CPU the caller ran on when it opened the current job (-1: unknown).
    std::atomic<int> caller_cpu{-1};

    alignas(64) std::atomic<uint32_t> generation{0};
    alignas(64) std::atomic<uint32_t> remaining{0};  // pieces not yet finished
    alignas(64) std::atomic<uint32_t> open_generation{0};
    std::atomic<int> active{0};  // workers inside the open job
    std::atomic<int> sleeping_workers{0};
    std::atomic<bool> caller_sleeping{false};
    std::atomic<bool> stopping{false};
    std::atomic<bool> busy{false};

    // The caller's recent gaps between jobs (written inside run() only, which `busy` keeps to
    // one thread at a time) and the workers' spin budget taken from them.
    std::array<int64_t, kGapWindow> gaps_ns{};
    int gap_count = 0, next_gap = 0;
    Clock::time_point last_end{};
    std::atomic<int64_t> worker_spin_ns{detail::kSpinNs};

    void record_gap(Clock::time_point now);
    void worker_loop(int index);
    void work(int index);
    void run_piece(int index, int64_t piece);
    void wait_for_job(uint32_t seen, int& avoided);
    void wait_for_pieces();
};

void ThreadPool::Impl::record_gap(Clock::time_point now) {
    if (last_end == Clock::time_point{}) return;
    gaps_ns[size_t(next_gap)] =
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_end).count();
    next_gap = (next_gap + 1) % kGapWindow;
    gap_count = std::min(gap_count + 1, kGapWindow);
    worker_spin_ns.store(detail::spin_budget_ns(gaps_ns.data(), gap_count),
                         std::memory_order_relaxed);
}

void ThreadPool::Impl::run_piece(int index, int64_t piece) {
    int64_t lo = start + piece_len * piece;
    int64_t hi = std::min(end, lo + piece_len);
    if (lo < hi) {
        if (timed) {
            auto t0 = Clock::now();
            fn(ctx, lo, hi);
            blocks[index].stats.busy_ns +=
                std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
            blocks[index].stats.elems += hi - lo;
        } else {
            fn(ctx, lo, hi);
        }
    }
    if (remaining.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        caller_sleeping.load(std::memory_order_seq_cst)) {
        futex_wake_all(remaining);
    }
}

// Own block front to back, then the others' from the back.
void ThreadPool::Impl::work(int index) {
    for (int64_t p; (p = blocks[index].claim(true)) >= 0;)
        run_piece(index, p);
    if (!steal) return;
    for (int k = 1; k < num_threads; ++k) {
        Block& victim = blocks[(index + k) % num_threads];
        for (int64_t p; (p = victim.claim(false)) >= 0;)
            run_piece(index, p);
    }
}

void ThreadPool::Impl::wait_for_job(uint32_t seen, int& avoided) {
    auto changed = [&] { return generation.load(std::memory_order_acquire) != seen; };
    // A worker waiting for the next job yields only on the caller's CPU, where its spinning
    // would hold off the caller itself. Elsewhere a yield let a nice-19 process on the other
    // core of the 2-core VM run a full slice (2026-12): jobs then found the worker descheduled,
    // the caller stole every piece, and each empty calibration fan-out read 60 µs+, which kept
    // a 0.12 ms heat step serial.
    auto on_callers_cpu = [&] {
        int cpu = detail::current_cpu();
        return cpu < 0 || cpu == caller_cpu.load(std::memory_order_relaxed);
    };
    auto budget = std::chrono::nanoseconds(worker_spin_ns.load(std::memory_order_relaxed));
    if (spin_until(changed, on_callers_cpu, budget)) return;
    steering.avoid(caller_cpu.load(std::memory_order_relaxed), avoided);
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
    int avoided = -1;  // the CPU this worker's mask leaves out (CpuSteering)
    Clock::time_point last_move{};
    for (;;) {
        wait_for_job(seen, avoided);
        seen = generation.load(std::memory_order_acquire);
        if (stopping.load(std::memory_order_acquire)) return;
        // Checked whether or not the job is still open: a worker on the caller's CPU mostly runs
        // only after the caller has stolen every piece and closed the job.
        int cpu = detail::current_cpu();
        if (cpu >= 0 && cpu == caller_cpu.load(std::memory_order_relaxed)) {
            if (steering.on()) {
                steering.avoid(cpu, avoided);
            } else if (auto now = Clock::now(); now - last_move >= kMoveInterval) {
                last_move = now;
                detail::move_off_cpu(cpu);
            }
        }
        // Second Dekker pair, with the caller's close: we announce ourselves, then check the job
        // is still the one we woke for; the caller closes, then waits for active == 0. A worker
        // that wakes after its job closed touches nothing of it.
        active.fetch_add(1, std::memory_order_seq_cst);
        if (open_generation.load(std::memory_order_seq_cst) == seen) work(index);
        active.fetch_sub(1, std::memory_order_seq_cst);
    }
}

void ThreadPool::Impl::wait_for_pieces() {
    auto done = [&] { return remaining.load(std::memory_order_acquire) == 0; };
    if (!spin_until(done, [] { return true; })) {
        caller_sleeping.store(true, std::memory_order_seq_cst);
        for (uint32_t left; (left = remaining.load(std::memory_order_seq_cst)) != 0;)
            futex_wait(remaining, left);
        caller_sleeping.store(false, std::memory_order_relaxed);
    }
    open_generation.store(0, std::memory_order_seq_cst);
    // A worker counted here is running (it just checked in, or is leaving), so this is short.
    while (active.load(std::memory_order_seq_cst) != 0)
        cpu_relax();
}

ThreadPool::ThreadPool(int num_threads) : impl_(std::make_unique<Impl>(num_threads)) {
    TACK_ASSERT(num_threads >= 2, "a thread pool needs at least two threads");
    impl_->blocks = std::make_unique<Block[]>(size_t(num_threads));
    impl_->workers.reserve(size_t(num_threads - 1));
    for (int i = 1; i < num_threads; ++i) {
        try {
            impl_->workers.emplace_back([impl = impl_.get(), i] { impl->worker_loop(i); });
        } catch (const std::system_error& e) {
            std::fprintf(stderr,
                         "tack: warning: the CPU backend could start only %d of %d threads (%s); "
                         "running with %d\n",
                         i, num_threads, e.what(), i);
            break;
        }
    }
    impl_->num_threads = int(impl_->workers.size()) + 1;
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

bool ThreadPool::workers_sleeping() const {
    return impl_->sleeping_workers.load(std::memory_order_relaxed) > 0;
}

bool ThreadPool::run(RangeFn fn, void* ctx, int64_t start, int64_t end, FanOutStats* stats,
                     int64_t min_piece) {
    Impl& p = *impl_;
    if (p.busy.exchange(true, std::memory_order_acquire)) {
        // Another dispatch (or fn itself) holds the pool. Waiting could deadlock when fn
        // dispatches, and the workers are busy anyway, so this range runs here, in one piece.
        if (end > start) fn(ctx, start, end);
        return false;
    }
    auto t0 = Clock::now();
    p.record_gap(t0);
    const int threads = p.num_threads;
    int64_t total = end > start ? end - start : 0;
    int64_t block = (total + threads - 1) / threads;
    int pieces =
        int(std::clamp<int64_t>(block / std::max<int64_t>(1, min_piece), 1, kPiecesPerThread));
    p.fn = fn;
    p.ctx = ctx;
    p.start = start;
    p.end = start + total;
    p.piece_len = std::max<int64_t>(1, (block + pieces - 1) / pieces);
    p.steal = total > 0;  // empty: each worker must check in (the probe's wake-up)
    p.timed = stats != nullptr;
    // Pieces past the end are handed out like the others and run nothing.
    for (int t = 0; t < threads; ++t) {
        p.blocks[t].bounds.store(Block::pack(uint32_t(t * pieces), uint32_t((t + 1) * pieces)),
                                 std::memory_order_relaxed);
        p.blocks[t].stats = {};
    }
    p.remaining.store(uint32_t(threads * pieces), std::memory_order_relaxed);
    p.caller_cpu.store(detail::current_cpu(), std::memory_order_relaxed);
    uint32_t gen = p.generation.load(std::memory_order_relaxed) + 1;
    if (gen == 0) gen = 1;  // 0 means "no open job"
    p.open_generation.store(gen, std::memory_order_seq_cst);
    p.generation.store(gen, std::memory_order_seq_cst);
    bool woke = p.sleeping_workers.load(std::memory_order_seq_cst) > 0;
    if (woke) futex_wake_all(p.generation);
    p.work(0);
    p.wait_for_pieces();
    if (stats) {
        stats->threads.resize(size_t(threads));
        for (int t = 0; t < threads; ++t)
            stats->threads[size_t(t)] = p.blocks[t].stats;
        stats->wall_ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
        stats->woke_sleepers = woke;
    }
    p.last_end = Clock::now();
    p.busy.store(false, std::memory_order_release);
    return true;
}

double ThreadPool::measure_fan_out_ns(int reps, double* min_ns) {
    std::vector<double> samples;
    for (int i = 0; i < std::max(1, reps); ++i) {
        auto t0 = Clock::now();
        run([](void*, int64_t, int64_t) {}, nullptr, 0, 0);
        samples.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
    }
    if (min_ns) *min_ns = *std::min_element(samples.begin(), samples.end());
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
    return samples[samples.size() / 2];
}

}  // namespace tack::runtime::cpu
