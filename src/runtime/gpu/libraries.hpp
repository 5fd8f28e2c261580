#pragma once
// Every vendor library Tack opens with dlopen, in one table (gpu/libraries.cpp): the
// environment variable naming a file to open instead (a driver installed where dlopen does not
// look, or the emulated devices of tests/emulated), the names to try, and what to say when the
// library is missing or too old. The API structs (cu_api.hpp, hip_api.hpp, ze_api.hpp, ...)
// list their entry points and name their row; gpu::load_api reads both.

#include <span>
#include <string_view>

namespace tack::runtime::gpu {

struct VendorLibrary {
    std::string_view api;  // "cuda", "nvrtc", "hip", "hiprtc", "level_zero", "ocloc", "opencl"
    const char* env;       // "TACK_CUDA_LIBRARY"
    std::span<const char* const> sonames;
    std::string_view missing;  // "{tried}": the dlerror() of each name tried
    std::string_view lacks;    // "{library}", "{symbol}": a required entry point it lacks
};

/// Every row, in the order the backends list them.
std::span<const VendorLibrary> vendor_libraries();
/// The row of `api` (an internal error for any other name).
const VendorLibrary& vendor_library(std::string_view api);

}  // namespace tack::runtime::gpu
