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
    const NvrtcApi* api = nvrtc_api(&why);
    if (!api) throw RuntimeError("CUDA: cannot compile kernels: " + why);
    return *api;
}

void warn_once(const NvrtcApi& api) {
    static std::once_flag once;
    std::call_once(once, [&] {
        int major = 0, minor = 0;
        if (api.nvrtcVersion(&major, &minor) != 0) return;
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

std::string program_log(const NvrtcApi& api, nvrtcProgram prog) {
    std::size_t n = 0;
    if (api.nvrtcGetProgramLogSize(prog, &n) != 0 || n == 0) return "";
    std::string log(n, '\0');
    api.nvrtcGetProgramLog(prog, log.data());
    while (!log.empty() && log.back() == '\0')
        log.pop_back();
    return log;
}

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
    const NvrtcApi* api = nvrtc_api(&why);
    int major = 0, minor = 0;
    if (!api || api->nvrtcVersion(&major, &minor) != 0) return "";
    return std::to_string(major) + "." + std::to_string(minor);
}

std::string compile_ptx(const std::string& source, const std::string& kernel) {
    const NvrtcApi& api = nvrtc();
    warn_once(api);
    KeepThreadLocale keep;
    nvrtcProgram prog = nullptr;
    std::string name = kernel + ".cu";
    if (int r = api.nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr))
        throw RuntimeError("Kernel '" + kernel +
                           "': nvrtcCreateProgram failed: " + api.nvrtcGetErrorString(r));
    int rc = api.nvrtcCompileProgram(prog, static_cast<int>(std::size(kOptions)), kOptions);
    std::string ptx;
    std::size_t size = 0;
    if (rc == 0 && api.nvrtcGetPTXSize(prog, &size) == 0 && size > 0) {
        ptx.assign(size, '\0');
        api.nvrtcGetPTX(prog, ptx.data());
        while (!ptx.empty() && ptx.back() == '\0')
            ptx.pop_back();  // NVRTC counts the terminator
    }
    std::string log = rc == 0 ? "" : program_log(api, prog);
    api.nvrtcDestroyProgram(&prog);
    if (rc != 0)
        throw RuntimeError("Kernel '" + kernel + "': NVRTC failed: " + api.nvrtcGetErrorString(rc) +
                           "\n" + log + "\nsource:\n" + source);
    return ptx;
}

}  // namespace tack::runtime::cuda
