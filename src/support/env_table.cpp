// Every environment variable Tack reads, in a user's words: the table of docs/environment.md
// (scripts/docs_hooks.py reads it through tack._tack._environment). It is a file of its own so
// that the scan for the files reading each variable can leave it out.
#include <iterator>

#include "support/env.hpp"

namespace tack::support {

// In a user's words, alphabetical; the "Libraries" rows share one sentence.
#define TACK_LIBRARY_ROW(name, what)                                                         \
    {                                                                                        \
        name, "The file to load " what                                                       \
              " from, when it is installed where the system's loader "                       \
              "does not look; only that file is tried. Unset: the usual names are searched." \
    }
const EnvVariable kEnvironment[] = {
    {"TACK_CACHE_DIR",
     "Where compiled kernels are kept between runs. Default `$XDG_CACHE_HOME/tack`, else "
     "`~/.cache/tack`; empty or `off` turns the disk cache off. `tackc cache info` shows it."},
    {"TACK_CPU_LANES",
     "Whether CPU kernels are vectorized across iterations (SIMD lanes): `auto` (default) lets "
     "the compiler decide per kernel, `1` asks for it wherever a kernel allows, `0` never."},
    {"TACK_CPU_LOADER",
     "How compiled CPU code is loaded: `auto` (default) uses Tack's own fast loader where it "
     "can, `orc` always LLVM's JIT linker (to rule the loader out when something looks wrong)."},
    {"TACK_CPU_MARGIN",
     "A positive number: a CPU launch is spread over the threads only when the time it saves "
     "exceeds the cost of waking them times this margin, so larger keeps more launches on the "
     "calling thread. Unset: the cost model's own margin."},
    {"TACK_CPU_POLICY",
     "Which rule decides how a CPU launch is split across threads: `v2` (default, the cost "
     "model) or `v1` (the earlier fixed rule), for comparing the two."},
    {"TACK_CPU_THREADS",
     "How many threads CPU launches use; default the number of physical cores. Read when a CPU "
     "device is created; `tack.init(arch=tack.cpu, num_threads=N)` overrides it."},
    TACK_LIBRARY_ROW("TACK_CUDA_LIBRARY", "the CUDA driver (`libcuda.so.1`)"),
    {"TACK_DEBUG",
     "Set to `1` to run every kernel in debug mode: each array index and integer divisor is "
     "checked, and the first violation raises IndexError or ZeroDivisionError (docs/debug.md)."},
    {"TACK_DUMP_MSL", "Set to `1` to write each Metal kernel's source to `/tmp/tack_<name>.msl`."},
    TACK_LIBRARY_ROW("TACK_HIPRTC_LIBRARY", "hipRTC, HIP's run-time compiler"),
    {"TACK_HIP_ALLOCATOR",
     "How the HIP backend allocates device memory: `cache` (default) reuses freed buffers, "
     "`pool` uses HIP's stream-ordered pool (`hipMallocAsync`)."},
    TACK_LIBRARY_ROW("TACK_HIP_LIBRARY", "ROCm's HIP runtime (`libamdhip64`)"),
    TACK_LIBRARY_ROW("TACK_LEVEL_ZERO_LIBRARY", "the Level Zero loader (`libze_loader`)"),
    {"TACK_MADVISE_HUGEPAGE",
     "Set to `0` to stop asking for transparent huge pages for host arrays of 4 MiB and more "
     "(on by default, as NumPy does)."},
    TACK_LIBRARY_ROW("TACK_METAL_LIBRARY", "the Metal framework"),
    {"TACK_NO_REINIT",
     "Set to `1` to make `tack.init` keep the device already in use instead of building a new "
     "one (for libraries that call init themselves)."},
    TACK_LIBRARY_ROW("TACK_NVRTC_LIBRARY", "NVRTC, CUDA's run-time compiler"),
    TACK_LIBRARY_ROW("TACK_OBJC_LIBRARY", "the Objective-C runtime (`libobjc`)"),
    TACK_LIBRARY_ROW("TACK_OCLOC_LIBRARY", "ocloc, Intel's offline compiler"),
    {"TACK_OPENCL_DEVICE",
     "Which OpenCL device to use, counting from 0 in `tackc devices`' order; default 0. "
     "`tack.init(arch=tack.opencl, device=N)` overrides it."},
    TACK_LIBRARY_ROW("TACK_OPENCL_LIBRARY", "the OpenCL ICD loader (`libOpenCL.so.1`)"),
    {"TACK_PRINT_AFTER_ALL",
     "Set to `1` to print each kernel's IR after every compiler step to stderr as it compiles "
     "(as `tackc inspect --print-after-all` does)."},
    {"TACK_PROFILE",
     "Set to `1` to profile the whole run as `with tack.profile()` does and print the table of "
     "calls and times per kernel to stderr at exit (docs/performance.md)."},
    {"TACK_TIME_COMPILE",
     "Set to `1` to print how long each step of each kernel compile takes to stderr, to see "
     "where a slow first call goes."},
};
#undef TACK_LIBRARY_ROW
const size_t kEnvironmentSize = std::size(kEnvironment);

}  // namespace tack::support
