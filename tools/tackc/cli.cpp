// The Tack command line: tackc's main() and the Python package's `python -m tack` (and the
// wheel's `tackc` script) both call run(), so every command has one implementation.
#include <cstdio>
#include <exception>
#include <string_view>

#include "commands.hpp"
#include "tackc.hpp"

namespace {

using tack::tackc::Args;

const char* kUsage =
    "usage: tackc <command> [options]\n"
    "\n"
    "commands:\n"
    "  check FILE.py|DIR... [--kernel KERNEL] [--args SIG] [--target TARGET]\n"
    "                                report every diagnostic; exit 1 on error, 0 when clean.\n"
    "                                With --args (and --kernel where a file has several\n"
    "                                kernels): also lower that kernel for SIG and generate\n"
    "                                TARGET's code, reporting type and capability errors\n"
    "  inspect FILE.py KERNEL --args SIG [--target TARGET] [--mode ir|source|optimized] "
    "[--print-after-all]\n"
    "          [--shapes SHAPES] [--aliased] [--debug]\n"
    "                                print the typed IR or generated code of the variant the\n"
    "                                signature selects; no device is needed. SIG:\n"
    "                                'f32[:],f32[:,:],f32' (arrays as dtype[:], dtype[:,:], ...;\n"
    "                                scalars as dtypes). TARGET: cpu (default; LLVM IR), opencl,\n"
    "                                cuda, hip, level_zero (OpenCL C) or metal (C-family source).\n"
    "                                --mode ir: the typed IR; source: the generated code after\n"
    "                                shape specialization; optimized: LLVM IR after O3 (cpu\n"
    "                                only). SHAPES: '64;32,32' extents per array argument\n"
    "                                (default 1024). --aliased: the cpu variant for overlapping\n"
    "                                arrays (default: the disjoint, noalias one). --debug:\n"
    "                                the debug variant, which checks every index and integer\n"
    "                                divisor (TACK_DEBUG=1)\n"
    "  cache info                    the disk cache: path, enabled or why not, entries, bytes\n"
    "  cache clear                   remove every entry of the disk cache. The directory is\n"
    "                                TACK_CACHE_DIR (default $XDG_CACHE_HOME/tack or\n"
    "                                ~/.cache/tack; empty or 'off' disables the cache)\n"
    "  devices                       every backend compiled in: its capabilities, or why it\n"
    "                                cannot be opened here\n"
    "  info                          the version, how this build was configured, the disk\n"
    "                                cache and every backend (what `python -m tack` prints)\n"
    "  --version                     print the version\n"
    "  --help                        print this help\n"
    "\n"
    "exit status: 0 success, 1 diagnostics in the kernel source, 2 usage or other errors\n";

struct Command {
    std::string_view name;
    int (*run)(const Args&);
};

constexpr Command kCommands[] = {
    {"check", tack::tackc::cmd_check}, {"inspect", tack::tackc::cmd_inspect},
    {"cache", tack::tackc::cmd_cache}, {"devices", tack::tackc::cmd_devices},
    {"info", tack::tackc::cmd_info},
};

}  // namespace

namespace tack::tackc {

int run(int argc, const char* const* argv) {
    if (argc < 2) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    std::string_view first = argv[1];
    if (first == "--help" || first == "-h") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (first == "--version") {
        std::printf("tackc %s\n", TACK_VERSION);
        return 0;
    }
    Args rest(argv + 2, argv + argc);
    for (const Command& c : kCommands) {
        if (c.name != first) continue;
        try {
            return c.run(rest);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "tackc %s: %s\n", argv[1], e.what());
            return 2;
        }
    }
    std::fprintf(stderr, "tackc: unknown command '%s'\n%s", argv[1], kUsage);
    return 2;
}

}  // namespace tack::tackc
