#pragma once
// OpenCL C -> SPIR-V in process through libocloc (Intel's offline compiler as a library), loaded
// with dlopen from one list of signatures. The argument list is a pure function so it is tested
// without a device or the library.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/gpu/loader.hpp"

namespace tack::runtime::level_zero {

// Signatures from compute-runtime's ocloc_api.h (no header package ships it on Debian).
#define TACK_OCLOC_FUNCTIONS(X)                                                              \
    X(oclocInvoke, int,                                                                      \
      (unsigned int, const char**, uint32_t, const uint8_t**, const uint64_t*, const char**, \
       uint32_t, const uint8_t**, const uint64_t*, const char**, uint32_t*, uint8_t***,      \
       uint64_t**, char***))                                                                 \
    X(oclocFreeOutput, int, (uint32_t*, uint8_t***, uint64_t**, char***))

// oclocVersion appeared in compute-runtime 22.x; older libraries lack it.
#define TACK_OCLOC_OPTIONAL_FUNCTIONS(X) X(oclocVersion, int, ())

struct OclocApi {
    TACK_GPU_API(TACK_OCLOC_FUNCTIONS, TACK_OCLOC_OPTIONAL_FUNCTIONS)
    static constexpr std::string_view kLibrary = "ocloc";
};

/// The library, or nullptr with `*why` set. Loaded once per process.
const OclocApi* ocloc_api(std::string* why);

std::span<const std::string_view> ocloc_required_functions();

/// The options given to ocloc and, identically, to zeModuleCreate's build flags: OpenCL C 2.0
/// and f32 division/sqrt correctly rounded; no fast or relaxed math (CONTRACT B20).
std::string opencl_build_options();

/// The name ocloc receives the in-memory source under.
inline constexpr std::string_view kOclocSourceName = "kernel.cl";

/// `ocloc compile -file kernel.cl -device 0x<id> -spv_only -options "<options>"`, one element
/// per argv entry (argv[0] is "ocloc").
std::vector<std::string> ocloc_arguments(std::uint32_t device_id, const std::string& options);

struct SpirvResult {
    std::vector<std::uint8_t> spirv;  // empty on failure
    std::string log;                  // ocloc's stdout.log, and the error on failure
};

/// Runs ocloc on `source` (passed from memory, NUL-terminated: ocloc reads in-memory sources as
/// C strings).
SpirvResult compile_to_spirv(const OclocApi& api, const std::string& source,
                             std::uint32_t device_id, const std::string& options);

}  // namespace tack::runtime::level_zero
