#pragma once
// Device drivers and fork(). A child made by fork() has a copy of its parent's memory but only
// the thread that forked: the driver threads the OpenCL, CUDA, HIP and Level Zero runtimes keep
// (PoCL's workers, CUDA's and HIP's callback threads) are gone, so the child's first launch on
// a device its parent set up waits for them forever (hardening round three, defect 9), and
// setting a device up again in the child meets the parent's half-copied driver state. The CPU
// backend survives a fork (its pool runs serially in the child, tests/python/test_fork.py).
// So once a process has opened a device backend, a fork child refuses every device call at
// once, saying why and what works instead.

#include <string_view>

namespace tack::runtime {

class Backend;

/// Called when a device backend other than the CPU's is opened in this process.
void note_device_driver_opened();
/// Whether this process is a fork child of one that had opened a device driver and `backend`
/// is not the CPU's.
bool lost_to_fork(const Backend& backend);
/// Throws RuntimeError, saying why, where lost_to_fork(backend).
void require_unforked(const Backend& backend);
/// The same for opening the backend `name` ("cpu" is always allowed).
void require_unforked(std::string_view name);

}  // namespace tack::runtime
