#include "runtime/gpu/interruptible_wait.hpp"

#include <algorithm>
#include <cstdint>
#include <thread>

#include "support/interrupt.hpp"

namespace tack::runtime::gpu {

namespace {

using std::chrono::nanoseconds;
using Clock = std::chrono::steady_clock;

constexpr nanoseconds kYieldFor{100'000}, kFirstSleep{20'000}, kLongestSleep{100'000};

}  // namespace

void wait_interruptibly(const std::function<bool(nanoseconds)>& wait_for) {
    support::InterruptPoll* poll = support::current_interrupt_poll();
    if (!poll) return;
    while (!wait_for(nanoseconds(support::kInterruptPollNs))) {
        if (poll->requested()) throw support::Interrupted();
    }
}

void wait_interruptibly(const std::function<bool()>& done) {
    if (!support::current_interrupt_poll()) return;
    Clock::time_point start = Clock::now();
    nanoseconds sleep = kFirstSleep;
    wait_interruptibly([&](nanoseconds timeout) {
        Clock::time_point until = Clock::now() + timeout;
        while (!done()) {
            Clock::time_point now = Clock::now();
            if (now >= until) return false;
            if (now - start < kYieldFor) {
                std::this_thread::yield();
                continue;
            }
            std::this_thread::sleep_for(std::min(sleep, until - now));
            sleep = std::min(sleep * 2, kLongestSleep);
        }
        return true;
    });
}

}  // namespace tack::runtime::gpu
