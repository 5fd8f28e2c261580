#include "runtime/hip/hip_api.hpp"

#include "codegen/cfamily/dialect.hpp"
#include "runtime/errors.hpp"

namespace tack::runtime::hip {

std::string hip_error_name(const HipApi& api, hipError_t r) {
    const char* name = api.hipGetErrorName(r);
    return std::string(name ? name : "HIP error") + " (" + std::to_string(r) + ")";
}

void check(const HipApi& api, hipError_t r, const char* what) {
    if (r != hipSuccess)
        throw RuntimeError("HIP: " + std::string(what) + " failed: " + hip_error_name(api, r));
}

std::vector<std::string> hiprtc_options() {
    // One option, the dialect's: see docs/decisions.md ("HIP contracts with -ffp-contract=on").
    return {std::string(codegen::cfamily::hip_dialect().compile_options)};
}

std::vector<std::uint8_t> compile_code_object(const std::string& source, const std::string& kernel,
                                              const std::vector<std::string>& extra) {
    std::string why;
    const HiprtcApi* api = gpu::load_api<HiprtcApi>(&why);
    if (!api) throw RuntimeError("HIP: cannot compile kernels: " + why);
    std::vector<std::string> options = hiprtc_options();
    options.insert(options.end(), extra.begin(), extra.end());
    std::vector<const char*> argv;
    for (const auto& o : options)
        argv.push_back(o.c_str());
    return gpu::rtc_compile(*api, "hipRTC", source, kernel + ".hip", argv, kernel);
}

}  // namespace tack::runtime::hip
