#pragma once
// A captured graph's replay on the CPU (runtime/graph): one fan-out of the pool for the whole
// replay instead of one per launch. Every launch and fill of every repetition is a phase cut
// into pieces, and a piece starts only once every piece of the phases before it has finished.
// Piece j of a phase belongs to participant j % threads, so each thread keeps touching the same
// part of the data from phase to phase; a piece is claimed before it runs (a counter per piece
// of a repetition), and a participant whose own next piece is not ready runs free pieces of the
// phase in progress, so a worker that wakes late (or never) only leaves more pieces to the
// others, and the caller alone runs everything when the pool is busy elsewhere. Each index of
// each phase runs exactly once (E9), with the per-launch fork-join replaced by a claim and a
// completion count per piece.

#include <cstdint>
#include <span>

#include "runtime/cpu/thread_pool.hpp"

namespace tack::runtime::cpu {

/// One launch or fill of a graph: fn(ctx, lo, hi) over [0, total) in `pieces` contiguous parts.
struct Phase {
    RangeFn fn = nullptr;
    void* ctx = nullptr;
    int64_t total = 0;
    int pieces = 1;
};

/// Runs `phases` in order, `times` times, on `pool`'s threads (serially on the caller when
/// `pool` is null or no phase has more than one piece). Returns when all have run.
void replay_phases(ThreadPool* pool, std::span<const Phase> phases, int times);

}  // namespace tack::runtime::cpu
