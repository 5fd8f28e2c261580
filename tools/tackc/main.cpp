// tackc: the Tack command line (check, inspect, cache, devices).
#include <cstdio>
#include <cstring>
#include <string>

namespace {

const char* kUsage =
    "usage: tackc <command> [options]\n"
    "\n"
    "commands:\n"
    "  check FILE.py                 report every diagnostic; exit 1 on error\n"
    "  inspect FILE.py KERNEL --args SIG [--mode ir|source|optimized]\n"
    "                                print the typed IR or generated code for a signature\n"
    "  --version                     print the version\n"
    "  --help                        print this help\n";

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (std::strcmp(argv[1], "--version") == 0) {
        std::printf("tackc %s\n", TACK_VERSION);
        return 0;
    }
    std::fprintf(stderr, "tackc: unknown command '%s'\n%s", argv[1], kUsage);
    return 2;
}
