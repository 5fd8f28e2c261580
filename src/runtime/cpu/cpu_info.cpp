#include "runtime/cpu/cpu_info.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "support/env.hpp"

#if defined(__linux__)
#include <sched.h>
#include <unistd.h>
#endif

namespace tack::runtime::cpu {
namespace {

constexpr int kThreadsPerLogicalCpu = 4;
constexpr int kMinThreadCap = 256;

// Counts the CPUs in a Linux cpulist such as "0,4" or "0-1,8-9".
int count_cpulist(const std::string& list) {
    int count = 0;
    std::stringstream items(list);
    std::string item;
    while (std::getline(items, item, ',')) {
        int lo = 0, hi = 0;
        char dash = 0;
        std::stringstream range(item);
        if (!(range >> lo)) continue;
        hi = (range >> dash >> hi && dash == '-') ? hi : lo;
        count += std::max(0, hi - lo + 1);
    }
    return count;
}

#if defined(__linux__)
// Logical CPUs this process may run on: the affinity mask when set (containers and taskset
// restrict it, and threads beyond it only time-slice), else the online count.
int logical_cpu_count() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
    return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
}

int siblings_of_cpu0() {
    std::ifstream file("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list");
    std::string list;
    if (!file || !std::getline(file, list)) return 0;
    return count_cpulist(list);
}
#endif

}  // namespace

int physical_core_count() {
#if defined(__linux__)
    int logical = logical_cpu_count();
    int siblings = siblings_of_cpu0();
    // Hyperthreads share one core's execution units: a second compute thread on a core buys
    // little but costs a full fan-out slot, so count cores, not logical CPUs.
    if (logical > 0 && siblings > 0) return std::max(1, logical / siblings);
#endif
    return std::max(1u, std::thread::hardware_concurrency());
}

int64_t last_level_cache_bytes() {
    static const int64_t kBytes = [] {
        int64_t best = 0;
        int best_level = 0;
#if defined(__linux__)
        for (int i = 0; i < 16; ++i) {
            std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i);
            std::ifstream level_file(dir + "/level"), size_file(dir + "/size");
            int level = 0;
            std::string size;
            if (!(level_file >> level) || !(size_file >> size) || size.empty()) break;
            int64_t bytes = std::atoll(size.c_str());
            char unit = size.back();
            bytes *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
            if (level > best_level || (level == best_level && bytes > best)) {
                best_level = level;
                best = bytes;
            }
        }
#endif
        return best > 0 ? best : int64_t(32) << 20;
    }();
    return kBytes;
}

int max_thread_count() {
#if defined(__linux__)
    int logical = logical_cpu_count();
#else
    int logical = int(std::thread::hardware_concurrency());
#endif
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
