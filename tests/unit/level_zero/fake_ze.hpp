#pragma once
// A simulated Level Zero driver for tests on machines without an Intel GPU: every entry point of
// the backend's function table, backed by host memory. Appends execute at once (like a
// synchronous list) and are logged, so tests check the order the backend queues work in. A
// launch runs the module's OpenCL C on the OpenCL runner (PoCL): the fake "native binary" of a
// module is its source text.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/level_zero/ze_api.hpp"

namespace tack::level_zero_test {

struct FakeZe {
    // What the fake device reports.
    uint32_t max_group_size_x = 1024;
    uint32_t max_total_group_size = 1024;
    uint32_t max_group_count_x = 65535;
    bool fp64 = true;
    bool refuse_native = false;  // zeModuleCreate rejects ZE_MODULE_FORMAT_NATIVE
    bool host_sync = true;       // export zeCommandListHostSynchronize
    uint32_t max_samplers = 16;  // 0: no samplers (Xe-HPC), so textures sample in software
    uint32_t max_image_dims_3d = 2048;
    /// Launches of kernels whose entry contains this name fail (the kernel does not run); the
    /// failure is reported by the next host wait (list or event synchronize), once.
    std::string fail_kernels;
    /// Runs inside zeEventHostSynchronize, without the fake's lock (tests: what other threads
    /// can do while a host thread waits for a mark).
    std::function<void()> on_event_wait;

    std::vector<std::string> log;               // "copy", "fill", "barrier", "launch 4", ...
    std::map<void*, std::size_t> device;        // live zeMemAllocDevice allocations
    std::map<void*, std::size_t> host;          // live zeMemAllocHost allocations
    std::string launch_error;                   // the runner's error of the last launch, if any
    std::vector<std::string> module_formats;    // "native" / "spirv" per zeModuleCreate
    std::vector<std::string> launched_sources;  // the module source of every launch, in order
    std::size_t live_images = 0;                // zeImageCreate minus zeImageDestroy
};

/// The one fake; reset() clears it. Entry points take one lock, so threads may share it as they
/// share a driver; a test reads or sets the fields while no other thread calls in.
FakeZe& fake();
void reset_fake();
/// A table of the fake's entry points.
const runtime::level_zero::ZeApi& fake_api();

/// The log entries from index `from` on, joined with spaces.
std::string log_since(std::size_t from);

}  // namespace tack::level_zero_test
