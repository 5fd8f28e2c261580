#include "runtime/cuda/nvrtc.hpp"

#include <locale.h>
#include <clocale>
#include <cstdio>
#include <mutex>

#include "runtime/cuda/cu_api.hpp"
#include "runtime/errors.hpp"

namespace tack::runtime::cuda {

namespace {

constexpr const char* kOptions[] = {"--ftz=false", "--prec-div=true", "--prec-sqrt=true",
                                    "--fmad=true", "--extra-device-vectorization"};

const NvrtcApi& nvrtc() {
    std::string why;
    const NvrtcApi* api = gpu::load_api<NvrtcApi>(&why);
    if (!api) throw RuntimeError("CUDA: cannot compile kernels: " + why);
    return *api;
}

void warn_once(const NvrtcApi& api) {
    static std::once_flag once;
    std::call_once(once, [&] {
        int major = 0, minor = 0;
        if (api.version(&major, &minor) != 0) return;
        std::string w = nvrtc_version_warning(major, minor);
        if (!w.empty()) std::fprintf(stderr, "%s\n", w.c_str());
    });
}

// Restores the calling thread's locale on every path out of a compile.
class KeepThreadLocale {
  public:
    KeepThreadLocale() : saved_(uselocale(static_cast<locale_t>(nullptr))) {}
    ~KeepThreadLocale() {
        if (uselocale(static_cast<locale_t>(nullptr)) != saved_) uselocale(saved_);
    }

  private:
    locale_t saved_;
};

}  // namespace

std::span<const char* const> nvrtc_options() {
    return kOptions;
}

std::string nvrtc_version_warning(int major, int minor) {
    if (major >= 13) return "";
    return "tack: NVRTC " + std::to_string(major) + "." + std::to_string(minor) +
           " is older than 13; NVRTC 12.0 miscompiled a lattice Boltzmann kernel on an H100 "
           "(results off by up to 1.6e-2). Install CUDA 13's NVRTC.";
}

std::string nvrtc_version() {
    std::string why;
    const NvrtcApi* api = gpu::load_api<NvrtcApi>(&why);
    int major = 0, minor = 0;
    if (!api || api->version(&major, &minor) != 0) return "";
    return std::to_string(major) + "." + std::to_string(minor);
}

std::string compile_ptx(const std::string& source, const std::string& kernel) {
    const NvrtcApi& api = nvrtc();
    warn_once(api);
    KeepThreadLocale keep;
    std::vector<std::uint8_t> out =
        gpu::rtc_compile(api, "NVRTC", source, kernel + ".cu", kOptions, kernel);
    std::string ptx(out.begin(), out.end());
    while (!ptx.empty() && ptx.back() == '\0')
        ptx.pop_back();  // NVRTC counts the terminator
    return ptx;
}

}  // namespace tack::runtime::cuda
