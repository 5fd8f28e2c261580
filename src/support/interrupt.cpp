#include "support/interrupt.hpp"

namespace tack::support {

namespace {
thread_local InterruptPoll* t_poll = nullptr;
}  // namespace

InterruptScope::InterruptScope(InterruptPoll* poll) : saved_(t_poll) {
    t_poll = poll;
}

InterruptScope::~InterruptScope() {
    t_poll = saved_;
}

InterruptPoll* current_interrupt_poll() {
    return t_poll;
}

void check_interrupt(InterruptPoll* poll, std::int64_t now_ns, std::int64_t& last_ns) {
    if (!poll || now_ns - last_ns < kInterruptPollNs) return;
    last_ns = now_ns;
    if (poll->requested()) throw Interrupted();
}

}  // namespace tack::support
