#pragma once
// Every environment variable Tack reads is parsed here, so the accepted spellings and the error
// messages live in one place (CONTRACT C3, C29). Callers read at the moment the contract says
// (e.g. TACK_CPU_THREADS at each CPU backend construction); nothing here caches a value.

#include <cstddef>
#include <optional>
#include <string>

namespace tack::support {

/// A variable Tack reads and what it does, in a user's words: docs/environment.md's table is
/// generated from kEnvironment (tack._tack._environment), and tests/python/test_docs_tables.py
/// checks that the sources read every row's variable and that every variable they read has a
/// row. The declarations below say how the code parses each one.
struct EnvVariable {
    const char* name;
    const char* meaning;
};
extern const EnvVariable kEnvironment[];
extern const size_t kEnvironmentSize;

/// Raw value of `name`; nullopt when unset (an empty value is returned as "").
std::optional<std::string> env_string(const char* name);

/// Boolean flag (C3): unset, empty, `0`, `false`, `no`, `off` (case-insensitive, surrounding
/// spaces ignored) = off; anything else = on. Used for TACK_NO_REINIT and TACK_DUMP_MSL.
bool env_flag(const char* name);

/// Integer variable parsed like Python's int() (surrounding spaces, optional sign): nullopt when
/// unset or empty; anything else non-integer throws a ValueError CompileError. For device
/// selectors such as TACK_OPENCL_DEVICE.
std::optional<long long> env_integer(const char* name);

/// TACK_CPU_THREADS (C29): nullopt when unset or empty; values < 1 become 1; a non-integer
/// throws diag::CompileError of kind ValueError (raised by `init`).
std::optional<int> env_cpu_threads();

enum class CpuPolicy { V1, V2 };

/// TACK_CPU_POLICY (C29): `v1` | `v2`, unset/empty = v2; anything else throws a ValueError
/// CompileError listing the accepted values.
CpuPolicy env_cpu_policy();

/// TACK_CPU_MARGIN (E10): a positive float overriding the cost model's margin; nullopt when
/// unset or empty. A value that is not a positive finite number throws a ValueError.
std::optional<double> env_cpu_margin();

/// TACK_CPU_LANES: whole-function SIMD vectorization of CPU kernels. Unset, empty or `auto`:
/// nullopt (the code generator decides); a boolean flag's off spellings (`0`, `false`, `no`,
/// `off`): false; `1`, `true`, `yes`, `on`: true (every kernel that qualifies); anything else
/// throws a ValueError CompileError listing the accepted values.
std::optional<bool> env_cpu_lanes();

/// TACK_CPU_LOADER: how CPU objects are loaded. Unset, empty or `auto`: Tack's own ELF loader
/// where it handles the object (codegen/llvm/elf_loader.hpp), JITLink otherwise; `orc`: always
/// JITLink (ORC). Anything else throws a ValueError CompileError listing the accepted values.
/// Returns true for `orc`.
bool env_cpu_loader_orc();

/// TACK_PRINT_AFTER_ALL (boolean flag): the compile driver writes the IR after lowering, shape
/// specialization and every pass to stderr, as `tackc inspect --print-after-all` does.
bool env_print_after_all();

/// TACK_DEBUG (boolean flag): devices built while it is set run debug variants, which check
/// every array index and integer divisor and raise IndexError / ZeroDivisionError at the first
/// violation of a launch (docs/debug.md); the `debug` device option overrides it.
bool env_debug();

/// TACK_TIME_COMPILE (boolean flag): every variant a kernel call builds writes the wall time of
/// each step to stderr (lowering, shape specialization and passes, cache key, disk cache, code
/// generation, loading), so a slow first call can be taken apart without a profiler.
bool env_time_compile();

/// TACK_PROFILE (boolean flag): the whole process is profiled as `with tack.profile()` would
/// (calls, launch and compile times per kernel and backend; GPU launches wait for their device),
/// and the table is written to stderr when the process exits.
bool env_profile();

/// TACK_HIP_ALLOCATOR: `pool` selects HIP's stream-ordered pool (hipMallocAsync); unset, empty
/// or `cache` the hipMalloc buffer cache; anything else throws a ValueError CompileError.
bool env_hip_pool_allocator();

/// TACK_MADVISE_HUGEPAGE: host arrays of 4 MiB and more ask for transparent huge pages unless
/// it is one of a boolean flag's off spellings (`0`, `false`, `no`, `off`), as NumPy's
/// NUMPY_MADVISE_HUGEPAGE does for its arrays. Unset or empty: on.
bool env_madvise_hugepage();

/// TACK_CUDA_LIBRARY, TACK_NVRTC_LIBRARY, TACK_HIP_LIBRARY, TACK_HIPRTC_LIBRARY,
/// TACK_LEVEL_ZERO_LIBRARY, TACK_OCLOC_LIBRARY, TACK_OPENCL_LIBRARY, TACK_OBJC_LIBRARY,
/// TACK_METAL_LIBRARY: the file one vendor library is loaded from, for a driver or compiler
/// installed where the dynamic loader does not look (only that file is tried); unset or empty,
/// the usual library names are searched. The test suites point the CUDA, HIP, Objective-C and
/// Metal ones at the emulated devices of tests/emulated. Returns the path, or nullopt when
/// unset or empty.
std::optional<std::string> env_library(const char* name);

/// The disk cache directory from TACK_CACHE_DIR; default $XDG_CACHE_HOME/tack, else
/// $HOME/.cache/tack. nullopt = cache disabled (TACK_CACHE_DIR empty or `off`, or no HOME).
std::optional<std::string> env_cache_dir();

}  // namespace tack::support
