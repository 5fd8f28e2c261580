#pragma once
// Waiting for a device with the caller's interrupt poll answered (support/interrupt.hpp): every
// GPU backend's tack.sync() waits through this before its blocking wait, so a Ctrl-C ends the
// wait (the device's work goes on). Without a poll both return at once and the caller's
// blocking wait does the work, as before.

#include <chrono>
#include <functional>

namespace tack::runtime::gpu {

/// Returns once `wait_for(t)`, which waits at most t and says whether the work is done, says
/// so; asks the poll between calls (t is the poll's period) and throws support::Interrupted
/// when it says to stop.
void wait_interruptibly(const std::function<bool(std::chrono::nanoseconds)>& wait_for);

/// The same for an API that can only ask whether the work is done: asked back to back, the
/// thread yielding in between, for the first 100 µs (a short wait keeps its latency and a CPU
/// device's threads keep the cores), then with sleeps of 20 µs doubling to 100 µs (a wait ends
/// at most that late: measured on the emulated CUDA device, 1M-element launch and wait, 0.91x
/// to 1.12x of the blocking wait; 1 ms sleeps made it 1.2x).
void wait_interruptibly(const std::function<bool()>& done);

}  // namespace tack::runtime::gpu
