#include "runtime/cpu/graph_replay.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tack::runtime::cpu {

namespace {

void pause() {
#if defined(__x86_64__)
    _mm_pause();
#endif
}

struct Piece {
    int phase;
    int owner;  // the participant that runs it when it is there (the same part every time)
    int64_t lo, hi;
    int64_t after;  // pieces of one repetition before this piece's phase
};

struct Job {
    std::span<const Phase> phases;
    std::vector<Piece> pieces;  // one repetition's
    int64_t per_rep = 0;
    int64_t total = 0;  // pieces of all repetitions
    int participants = 1;
    // Per piece of a repetition: the repetitions it has been claimed for. Piece i of
    // repetition r is free while claimed[i] == r (every earlier repetition has finished before
    // it may start, so it was claimed for each of them).
    std::unique_ptr<std::atomic<int64_t>[]> claimed;
    alignas(64) std::atomic<int64_t> done{0};
};

// Runs linear piece k if it is free and every piece of the phases before it has finished.
bool try_run(Job& job, int64_t k) {
    int64_t rep = k / job.per_rep;
    auto i = static_cast<size_t>(k % job.per_rep);
    const Piece& p = job.pieces[i];
    if (job.claimed[i].load(std::memory_order_relaxed) != rep) return false;
    if (job.done.load(std::memory_order_acquire) < rep * job.per_rep + p.after) return false;
    int64_t expect = rep;
    if (!job.claimed[i].compare_exchange_strong(expect, rep + 1, std::memory_order_acq_rel))
        return false;
    const Phase& ph = job.phases[static_cast<size_t>(p.phase)];
    ph.fn(ph.ctx, p.lo, p.hi);
    job.done.fetch_add(1, std::memory_order_acq_rel);
    return true;
}

// Whether linear piece k was claimed (by its owner or a helper).
bool taken(const Job& job, int64_t k) {
    return job.claimed[static_cast<size_t>(k % job.per_rep)].load(std::memory_order_relaxed) >
           k / job.per_rep;
}

// Runs a free piece of the phase in progress (one a late or absent participant owns); false
// when there is none ready.
bool help(Job& job, int64_t before) {
    int64_t d = job.done.load(std::memory_order_acquire);
    if (d >= job.total) return false;
    int64_t rep = d / job.per_rep;
    int64_t k = rep * job.per_rep + job.pieces[static_cast<size_t>(d % job.per_rep)].after;
    int64_t end = std::min({before, job.total, k + job.per_rep});
    for (; k < end; ++k) {
        if (try_run(job, k)) return true;
    }
    return false;
}

// One participant: its own pieces in order (so each thread keeps touching the same part of
// the data), helping with free pieces while the next of its own is not ready.
void participate(void* ctx, int64_t index, int64_t) {
    auto& job = *static_cast<Job*>(ctx);
    auto me = static_cast<int>(index);
    int64_t k = 0;
    auto next_own = [&] {
        while (k < job.total &&
               (job.pieces[static_cast<size_t>(k % job.per_rep)].owner != me || taken(job, k)))
            ++k;
    };
    next_own();
    for (int idle = 0; job.done.load(std::memory_order_acquire) < job.total;) {
        if (k < job.total && try_run(job, k)) {
            ++k;
            next_own();
            idle = 0;
            continue;
        }
        next_own();
        if (help(job, k < job.total ? k : job.total)) {
            idle = 0;
            continue;
        }
        if (++idle < 4096) {
            pause();
        } else {
            std::this_thread::yield();  // a descheduled thread we wait for needs the core
        }
    }
}

}  // namespace

void replay_phases(ThreadPool* pool, std::span<const Phase> phases, int times) {
    bool split = false;
    for (const Phase& ph : phases)
        split |= ph.pieces > 1 && ph.total > 1;
    if (!pool || !split) {
        for (int t = 0; t < times; ++t) {
            for (const Phase& ph : phases) {
                if (ph.total > 0) ph.fn(ph.ctx, 0, ph.total);
            }
        }
        return;
    }
    Job job;
    job.phases = phases;
    job.participants = pool->num_threads();
    int64_t before = 0;
    for (size_t i = 0; i < phases.size(); ++i) {
        const Phase& ph = phases[i];
        if (ph.total <= 0) continue;
        int64_t n = std::min<int64_t>(std::max(ph.pieces, 1), ph.total);
        for (int64_t j = 0; j < n; ++j)
            job.pieces.push_back({static_cast<int>(i), static_cast<int>(j % job.participants),
                                  ph.total * j / n, ph.total * (j + 1) / n, before});
        before += n;
    }
    if (job.pieces.empty()) return;
    job.per_rep = static_cast<int64_t>(job.pieces.size());
    job.total = job.per_rep * times;
    job.claimed = std::make_unique<std::atomic<int64_t>[]>(job.pieces.size());
    for (size_t i = 0; i < job.pieces.size(); ++i)
        job.claimed[i].store(0, std::memory_order_relaxed);
    pool->run(&participate, &job, 0, job.participants, nullptr, 1);
}

}  // namespace tack::runtime::cpu
