#include "runtime/cpu/cpu_info.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "support/env.hpp"
#include "support/platform.hpp"

namespace tack::runtime::cpu {
namespace {

constexpr int kThreadsPerLogicalCpu = 4;
constexpr int kMinThreadCap = 256;

// Logical CPUs this process may run on: the affinity mask when there is one (containers and
// taskset restrict it, and threads beyond it only time-slice), else the online count.
int logical_cpu_count() {
    if (int n = static_cast<int>(support::platform::allowed_cpus().size())) return n;
    if (int n = support::platform::online_cpus()) return n;
    return static_cast<int>(std::thread::hardware_concurrency());
}

}  // namespace

int physical_core_count() {
    int logical = logical_cpu_count();
    int siblings = support::platform::siblings_per_core();
    // Hyperthreads share one core's execution units: a second compute thread on a core buys
    // little but costs a full fan-out slot, so count cores, not logical CPUs.
    if (logical > 0 && siblings > 0) return std::max(1, logical / siblings);
    return std::max(1u, std::thread::hardware_concurrency());
}

int64_t last_level_cache_bytes() {
    static const int64_t kBytes = [] {
        int64_t bytes = support::platform::last_level_cache_bytes();
        return bytes > 0 ? bytes : int64_t(32) << 20;
    }();
    return kBytes;
}

int max_thread_count() {
    int logical = logical_cpu_count();
    return std::max(kMinThreadCap, kThreadsPerLogicalCpu * std::max(1, logical));
}

// Counts past what the machine runs at once only time-slice; far past it, creating the threads
// fails (RLIMIT_NPROC, memory for stacks), which used to terminate the process.
int resolve_thread_count(std::optional<int> num_threads_option) {
    int wanted = physical_core_count();
    if (num_threads_option) {
        wanted = std::max(1, *num_threads_option);
    } else if (auto from_env = support::env_cpu_threads()) {
        wanted = std::max(1, *from_env);
    }
    int cap = max_thread_count();
    if (wanted > cap) {
        std::fprintf(stderr,
                     "tack: warning: %d CPU threads requested; using %d (at most %d per logical "
                     "CPU, or %d)\n",
                     wanted, cap, kThreadsPerLogicalCpu, kMinThreadCap);
        wanted = cap;
    }
    return wanted;
}

}  // namespace tack::runtime::cpu
