// CpuExecutor::dispatch_interruptible (support/interrupt.hpp): a launch whose caller installed an
// interrupt poll runs as consecutive dispatches of about kChunkNs each, every one fanned out or
// serial as the cost model decides, and the caller asks the poll between them. Chunking at the
// executor, not inside the pool, keeps the caller free to ask: in one fan-out it may wait for
// a worker's last piece, which in a long launch is long. A launch predicted shorter than two
// chunks is one dispatch, as without a poll. Measured by benchmarks/bench_interrupts.py --long
// (2-core VM, 2026-12; a 250 ms launch from Python against the same through _time_native_calls,
// which installs no poll): 1.01x-1.03x; with 20 ms chunks a 48 ms launch took 1.03x-1.09x (each
// join waits for its slowest piece).

#include <algorithm>
#include <chrono>

#include "runtime/cpu/cost_model.hpp"

namespace tack::runtime::cpu {

namespace {

constexpr double kChunkNs = 100e6;
constexpr int64_t kFirstChunk = 4096;  // a variant never measured: measure on a small chunk

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

void CpuExecutor::dispatch_interruptible(CostModel& model, RangeFn fn, void* ctx, int64_t start,
                                         int64_t end, support::InterruptPoll& poll) {
    double r = model.serial_ns_per_elem();
    double total = double(end - start);
    if (r > 0.0 && total * r < 2 * kChunkNs) return dispatch(model, fn, ctx, start, end);
    double chunk = r > 0.0 ? kChunkNs * num_threads_ / r : kFirstChunk;
    int64_t last_poll = now_ns();
    for (int64_t at = start; at < end;) {
        int64_t hi = at + int64_t(std::clamp(chunk, 1.0, double(end - at)));
        int64_t t0 = now_ns();
        dispatch(model, fn, ctx, at, hi);
        int64_t t1 = now_ns();
        // Aim the next chunk at kChunkNs, growing at most 8-fold at a time.
        double took = double(std::max<int64_t>(t1 - t0, 1));
        chunk = std::min(double(hi - at) * kChunkNs / took, double(hi - at) * 8);
        at = hi;
        support::check_interrupt(&poll, t1, last_poll);
    }
}

}  // namespace tack::runtime::cpu
