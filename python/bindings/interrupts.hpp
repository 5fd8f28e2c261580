#pragma once
// Ctrl-C inside long calls (support/interrupt.hpp): Python's signal check answers the core's
// interrupt poll. A KeyboardInterrupt raised by the check stays set in the thread state; the
// call's binding catches support::Interrupted and throws nb::python_error, which carries it.

#include <Python.h>

#include "support/interrupt.hpp"

namespace tack::python {

/// Runs Python's signal handlers; true when one raised. `state` is PyEval_SaveThread's where
/// the GIL is released (taken back for the check and released again), nullptr where it is held.
/// While the check runs `state` is null: a handler's Python code that calls into Tack and waits
/// (a field freed by the collector) checks with the GIL it already holds.
inline bool python_signal_raised(PyThreadState*& state) {
    if (!state) return PyErr_CheckSignals() != 0;
    PyThreadState* saved = state;
    state = nullptr;
    PyEval_RestoreThread(saved);
    bool raised = PyErr_CheckSignals() != 0;
    state = PyEval_SaveThread();
    return raised;
}

/// The GIL released for a wait (tack.sync()) that a Ctrl-C may end.
class InterruptibleWait final : public support::InterruptPoll {
  public:
    InterruptibleWait() : state_(PyEval_SaveThread()), scope_(this) {}
    ~InterruptibleWait() override { PyEval_RestoreThread(state_); }
    InterruptibleWait(const InterruptibleWait&) = delete;
    InterruptibleWait& operator=(const InterruptibleWait&) = delete;
    bool requested() override { return python_signal_raised(state_); }

  private:
    PyThreadState* state_;
    support::InterruptScope scope_;
};

}  // namespace tack::python
