#pragma once
// Stopping a long launch or wait from the caller's side (hardening round three, defect 10:
// Ctrl-C did nothing during a never-ending CPU launch or an OpenCL tack.sync()). The core never
// touches signals: the caller installs a poll on its thread for one call (InterruptScope), and
// what waits long inside the call asks it now and then, on that thread only. Python's binding
// answers with its signal check, so a pending KeyboardInterrupt ends the wait; the waiter then
// throws Interrupted, which the binding turns back into the exception Python already holds.
// With no poll installed (the C++ API, tackc) nothing changes: no chunking, no polling.
//
// What stops: a CPU launch between bounded chunks of its range (an iteration that never ends
// cannot be stopped), a wait for a GPU queue (the device's work goes on; a later wait waits
// for it again).

#include <cstdint>
#include <exception>

namespace tack::support {

class InterruptPoll {
  public:
    virtual ~InterruptPoll() = default;
    /// True when the caller wants the wait to end. Called on the installing thread only.
    virtual bool requested() = 0;
};

/// Thrown out of a launch or wait that a poll ended.
class Interrupted : public std::exception {
  public:
    const char* what() const noexcept override { return "interrupted"; }
};

/// Installs `poll` on the calling thread for its lifetime (nullptr: none); scopes nest.
class InterruptScope {
  public:
    explicit InterruptScope(InterruptPoll* poll);
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

  private:
    InterruptPoll* saved_;
};

/// The calling thread's poll, or nullptr.
InterruptPoll* current_interrupt_poll();

/// How often waits ask: a Ctrl-C is answered within about this long, and the asking (the GIL
/// taken and given back) costs nothing measurable at this rate.
inline constexpr std::int64_t kInterruptPollNs = 20'000'000;

/// For wait loops: asks `poll` (if any) when kInterruptPollNs have passed since `last_ns`
/// (steady-clock ns, updated), and throws Interrupted when it says so.
void check_interrupt(InterruptPoll* poll, std::int64_t now_ns, std::int64_t& last_ns);

}  // namespace tack::support
