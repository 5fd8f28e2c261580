#pragma once
// Host CPU facts the CPU backend sizes itself by (CONTRACT E11).

#include <cstdint>
#include <optional>

namespace tack::runtime::cpu {

/// Physical cores: on Linux logical CPUs / number of siblings of cpu0
/// (/sys/devices/system/cpu/cpu0/topology/thread_siblings_list); elsewhere, or when that file is
/// unreadable, std::thread::hardware_concurrency(). Always >= 1.
int physical_core_count();

/// Size of the largest (last-level) cache cpu0 reports, from sysfs (sysconf's figure is the
/// host's on some VMs); 32 MiB when unknown. Read once.
int64_t last_level_cache_bytes();

/// The most threads a CPU backend starts: 4 per logical CPU, at least 256.
int max_thread_count();

/// Thread count for a CPU backend (E11): explicit `num_threads` option > TACK_CPU_THREADS >
/// physical_core_count(). Values < 1 become 1; values above max_thread_count() become it, with
/// a warning on stderr. A non-integer TACK_CPU_THREADS throws a
/// diag::CompileError of kind ValueError (the host maps it to ValueError from `init`).
int resolve_thread_count(std::optional<int> num_threads_option);

}  // namespace tack::runtime::cpu
