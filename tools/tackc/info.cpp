// tackc info (and `python -m tack`): what a bug report needs in one place. The version, how
// this build was configured (CMake passes the facts in: tools/tackc/CMakeLists.txt), the disk
// cache, and each backend with its capabilities or why it cannot run here.
#include <cstdio>
#include <stdexcept>

#include "commands.hpp"

namespace tack::tackc {

int cmd_info(const Args& args) {
    if (!args.empty()) throw std::runtime_error("takes no arguments");
    std::printf("tack %s\n", TACK_VERSION);
    std::printf("build:\n");
    std::printf("  type: %s\n", TACK_BUILD_TYPE);
    std::printf("  compiler: %s\n", TACK_BUILD_COMPILER);
    std::printf("  cpu code generator: %s\n", TACK_BUILD_LLVM);
    std::printf("  platform: %s\n", TACK_BUILD_PLATFORM);
    std::printf("disk cache:\n");
    print_cache_info("  ");
    std::printf("backends:\n");
    print_devices("  ");
    return 0;
}

}  // namespace tack::tackc
