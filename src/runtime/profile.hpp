#pragma once
// The profiler (tack.profile(), TACK_PROFILE, tack::Profile): what each kernel call costs, per
// kernel and backend, collected in the core where the calls are dispatched.
//
// A session collects every event of the process while it is open (sessions may overlap, each
// gets every event of its span). With no session open a call pays one relaxed atomic load.
// While one is open, a launch on a queued backend (every GPU) waits for its device before its
// span ends, so a launch span is the kernel's run, not its enqueue: profiling serializes GPU
// launches, as Taichi's kernel profiler and Warp's timers do. With TACK_PROFILE set, the whole
// process is one session (opened as the core loads), whose table goes to stderr at exit.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tack/tack.hpp"

namespace tack::runtime::profile {

using tack::Profile;

enum class Kind {
    Lower,   // an argument signature's template (validation, lowering, checks)
    Build,   // one compiled variant (specialization, passes, code generation or the disk cache)
    Launch,  // one launch, until its device finished it
};

struct Event {
    std::string kernel;
    std::string backend;
    Kind kind = Kind::Launch;
    int64_t start_ns = 0;  // steady clock
    int64_t duration_ns = 0;
    int64_t bytes = 0;  // Launch: the bytes of the array arguments (each array once)
    int thread = 0;     // a small number per host thread, in the order threads first recorded
};

/// What one kernel on one backend cost over a session (the public API's struct).
using KernelStats = Profile::KernelCost;

/// Whether any session is open: the callers' test before they read a clock.
bool on();
int64_t now_ns();
/// Adds `e` to every open session (its thread is filled in here).
void record(Event e);

class Session {
  public:
    Session();  // opens
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    /// Closes the session (later events are not collected); idempotent.
    void stop();
    bool open() const;
    std::vector<Event> events() const;
    /// Per kernel and backend, in the order each was first seen.
    std::vector<KernelStats> kernels() const;
    /// A fixed-width table of kernels() (times in ms and µs), for a terminal.
    std::string table() const;
    /// The events as a Chrome / Perfetto trace (JSON "traceEvents", complete events, µs): one
    /// track per backend and host thread, compile spans ("lower", "build") and launches.
    std::string chrome_trace() const;

    struct Impl;  // what record() appends to (profile.cpp)

  private:
    std::shared_ptr<Impl> impl_;
};

}  // namespace tack::runtime::profile
