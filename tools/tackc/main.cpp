// tackc: the Tack command line.
#include <cstdio>
#include <exception>
#include <string_view>

#include "commands.hpp"

namespace {

using tack::tackc::Args;

const char* kUsage =
    "usage: tackc <command> [options]\n"
    "\n"
    "commands:\n"
    "  check FILE.py...              report every diagnostic; exit 1 on error, 0 when clean\n"
    "  inspect FILE.py KERNEL --args SIG [--mode ir|source|optimized] [--shapes SHAPES]\n"
    "                                print the typed IR or generated code of the variant the\n"
    "                                signature selects. SIG: 'f32[:],f32[:,:],f32' (arrays as\n"
    "                                dtype[:], dtype[:,:], ...; scalars as dtypes). SHAPES:\n"
    "                                '64;32,32' extents per array argument (default 1024)\n"
    "  --version                     print the version\n"
    "  --help                        print this help\n";

struct Command {
    std::string_view name;
    int (*run)(const Args&);
};

constexpr Command kCommands[] = {
    {"check", tack::tackc::cmd_check},
    {"inspect", tack::tackc::cmd_inspect},
};

}  // namespace

int main(int argc, char** argv) {
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
