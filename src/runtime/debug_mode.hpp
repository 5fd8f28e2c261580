#pragma once
// Debug mode's host side (DECISIONS "Debug mode"): which launches run debug variants, and the
// launcher of a debug variant, which binds the record the variant writes, waits for the launch,
// reads the record and raises its violation. passes/debug_checks.cpp makes the variants; the
// dispatch path (kernel_impl.cpp) reaches this file only through a debug signature's dispatcher,
// so a launch outside debug mode runs none of it.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "passes/passes.hpp"
#include "runtime/backend.hpp"
#include "tack/tack.hpp"

namespace tack::runtime {

/// The calling thread's override: -1 follows each device's Backend::debug(), 0 off, 1 on.
/// Returns the previous value (tack::DebugScope and Python's `with tack.debug():` restore it).
int exchange_thread_debug(int state);

/// Whether a launch on `backend` from this thread runs a debug variant.
bool debug_enabled(const Backend& backend);

/// What the host keeps of passes::debug_checks to launch a debug variant and explain its record.
struct DebugInfo : passes::DebugRecord {
    std::string kernel;
    /// The checked kernel before shape specialization: the host checks its parallel loop's
    /// bounds before the launch and evaluates its `return expr` after it.
    std::shared_ptr<const ir::Kernel> checked;
};

/// One debug launch: `args` and `launch` cover the kernel's own parameters; the record and the
/// extents the checks read are appended. Waits for the launch (DECISIONS G9) and throws
/// tack::KernelIndexError or tack::KernelZeroDivisionError for the first violation it made.
void dispatch_checked(const DebugInfo& info, Backend& backend, const Variant& variant,
                      const LaunchArgs& launch, std::span<const detail::Arg> args, void* result);

/// The exception message of a record's violation (without the position), for tests.
std::string violation_message(const DebugInfo& info, const std::int32_t* record,
                              std::span<const detail::Arg> args);

}  // namespace tack::runtime
