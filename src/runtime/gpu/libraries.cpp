#include "runtime/gpu/libraries.hpp"

#include <string>

#include "diag/diagnostic.hpp"

namespace tack::runtime::gpu {

namespace {

constexpr std::string_view kLacks = "{library} lacks {symbol}";

// The versioned sonames are what the runtime packages install; the bare names exist only with
// development packages. ROCm 6 moved hipRTC out of libamdhip64 into a library of its own. On
// macOS, OpenCL is a system framework (deprecated, still shipped), libobjc and Metal are always
// there, and no CUDA, ROCm or Level Zero exists; their .dylib names are tried so that a message
// says what was looked for rather than an ELF soname.
#if defined(__APPLE__)
constexpr const char* kCuda[] = {"libcuda.dylib"};
constexpr const char* kNvrtc[] = {"libnvrtc.dylib"};
constexpr const char* kHip[] = {"libamdhip64.dylib"};
constexpr const char* kHiprtc[] = {"libhiprtc.dylib"};
constexpr const char* kLevelZero[] = {"libze_loader.dylib"};
constexpr const char* kOcloc[] = {"libocloc.dylib"};
constexpr const char* kOpenCl[] = {"/System/Library/Frameworks/OpenCL.framework/OpenCL",
                                   "libOpenCL.dylib"};
#else
constexpr const char* kCuda[] = {"libcuda.so.1", "libcuda.so"};
constexpr const char* kNvrtc[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
                                  "/usr/local/cuda/lib64/libnvrtc.so"};
constexpr const char* kHip[] = {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6",
                                "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so"};
constexpr const char* kHiprtc[] = {"libhiprtc.so",     "libhiprtc.so.7",
                                   "libhiprtc.so.6",   "libamdhip64.so",
                                   "libamdhip64.so.5", "/opt/rocm/lib/libhiprtc.so"};
constexpr const char* kLevelZero[] = {"libze_loader.so.1", "libze_loader.so"};
constexpr const char* kOcloc[] = {"libocloc.so", "libocloc.so.1"};
constexpr const char* kOpenCl[] = {"libOpenCL.so.1", "libOpenCL.so"};
#endif
// The Objective-C runtime and the Metal framework (which loads Foundation): macOS only, and
// named the same everywhere so that elsewhere the message says what Metal needs.
constexpr const char* kObjc[] = {"/usr/lib/libobjc.A.dylib", "libobjc.A.dylib"};
constexpr const char* kMetal[] = {"/System/Library/Frameworks/Metal.framework/Metal"};

constexpr VendorLibrary kLibraries[] = {
    {"cuda", "TACK_CUDA_LIBRARY", kCuda,
     "the CUDA driver libcuda.so.1 was not found ({tried}); install the NVIDIA driver, or run "
     "where a GPU is visible",
     "{library} lacks {symbol} (the driver is older than CUDA 11.2)"},
    {"nvrtc", "TACK_NVRTC_LIBRARY", kNvrtc,
     "NVRTC (libnvrtc.so) was not found ({tried}); install the CUDA toolkit's NVRTC (cuda-nvrtc)",
     kLacks},
    {"hip", "TACK_HIP_LIBRARY", kHip,
     "the HIP runtime libamdhip64.so was not found ({tried}); install ROCm", kLacks},
    {"hiprtc", "TACK_HIPRTC_LIBRARY", kHiprtc,
     "hipRTC (libhiprtc.so / libamdhip64.so) was not found ({tried}); install ROCm's hiprtc",
     kLacks},
    {"level_zero", "TACK_LEVEL_ZERO_LIBRARY", kLevelZero,
     "the Level Zero loader libze_loader.so.1 was not found ({tried}); install the oneAPI Level "
     "Zero loader (libze1)",
     "{library} lacks {symbol} (the loader is older than API 1.0)"},
    {"ocloc", "TACK_OCLOC_LIBRARY", kOcloc,
     "libocloc.so was not found; install Intel's offline compiler (libocloc / intel-ocloc) to "
     "compile kernels for Level Zero",
     kLacks},
    {"objc", "TACK_OBJC_LIBRARY", kObjc,
     "the Objective-C runtime libobjc.A.dylib was not found ({tried})", kLacks},
    {"metal", "TACK_METAL_LIBRARY", kMetal, "the Metal framework was not found ({tried})", kLacks},
    {"opencl", "TACK_OPENCL_LIBRARY", kOpenCl,
     "OpenCL unavailable: libOpenCL.so.1 not found ({tried})",
     "OpenCL unavailable: {library} lacks {symbol}"},
};

}  // namespace

std::span<const VendorLibrary> vendor_libraries() {
    return kLibraries;
}

const VendorLibrary& vendor_library(std::string_view api) {
    for (const VendorLibrary& l : kLibraries)
        if (l.api == api) return l;
    throw diag::InternalError("internal error: no vendor library '" + std::string(api) + "'");
}

}  // namespace tack::runtime::gpu
