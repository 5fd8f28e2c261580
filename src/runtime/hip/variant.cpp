// The HIP half of gpu::DeviceBackend: code objects from hipRTC, modules loaded with the device
// current, launches on its stream. Everything else a variant does is the shared half
// (gpu/device_backend.cpp), run here on the emulated HIP device (tests/emulated).
#include "codegen/cfamily/dialect.hpp"
#include "runtime/hip/hip_backend.hpp"

namespace tack::runtime::hip {

const codegen::cfamily::Dialect& HipBackend::dialect() const {
    return codegen::cfamily::hip_dialect();
}

std::vector<std::uint8_t> HipBackend::compile(const std::string& source,
                                              const std::string& kernel) {
    return compile_code_object(source, kernel);
}

std::string HipBackend::load_module(const std::vector<std::uint8_t>& code, void** module) {
    DeviceScope scope(api_, device_);
    hipError_t r = api_.hipModuleLoadData(reinterpret_cast<hipModule_t*>(module), code.data());
    return r ? "hipModuleLoadData: " + hip_error_name(api_, r) : "";
}

std::string HipBackend::find_function(void* module, const std::string& entry, void** function) {
    DeviceScope scope(api_, device_);
    hipError_t r = api_.hipModuleGetFunction(reinterpret_cast<hipFunction_t*>(function),
                                             static_cast<hipModule_t>(module), entry.c_str());
    return r ? "hipModuleGetFunction: " + hip_error_name(api_, r) : "";
}

void HipBackend::unload(Code code) noexcept {
    DeviceScope scope(api_, device_);
    api_.hipModuleUnload(static_cast<hipModule_t>(code.module));
}

void HipBackend::launch_code(Code code, const LaunchShape& shape, const char* what) {
    DeviceScope scope(api_, device_);
    hipError_t r =
        api_.hipModuleLaunchKernel(static_cast<hipFunction_t>(code.function), shape.groups, 1, 1,
                                   shape.group, 1, 1, 0, stream_, shape.params, nullptr);
    if (r != hipSuccess)
        throw RuntimeError("HIP: hipModuleLaunchKernel (" + std::string(what) +
                           ") failed: " + hip_error_name(api_, r));
}

}  // namespace tack::runtime::hip
