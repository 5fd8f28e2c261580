// The CUDA half of gpu::DeviceBackend: PTX from NVRTC, modules in the backend's context,
// launches on its stream. Everything else a variant does is the shared half
// (gpu/device_backend.cpp), run here on the emulated CUDA device (tests/emulated).
#include "codegen/cfamily/dialect.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/cuda/nvrtc.hpp"

namespace tack::runtime::cuda {

const codegen::cfamily::Dialect& CudaBackend::dialect() const {
    return codegen::cfamily::cuda_dialect();
}

std::vector<std::uint8_t> CudaBackend::compile(const std::string& source,
                                               const std::string& kernel) {
    std::string ptx = compile_ptx(source, kernel);
    return {ptx.begin(), ptx.end()};
}

std::string CudaBackend::load_module(const std::vector<std::uint8_t>& code, void** module) {
    std::string ptx(code.begin(), code.end());  // NUL-terminated for the driver
    ContextScope scope(api_, context());
    CUresult r = api_.cuModuleLoadData(reinterpret_cast<CUmodule*>(module), ptx.c_str());
    return r ? "cuModuleLoadData: " + cu_error_name(api_, r) : "";
}

std::string CudaBackend::find_function(void* module, const std::string& entry, void** function) {
    ContextScope scope(api_, context());
    CUresult r = api_.cuModuleGetFunction(reinterpret_cast<CUfunction*>(function),
                                          static_cast<CUmodule>(module), entry.c_str());
    return r ? "cuModuleGetFunction: " + cu_error_name(api_, r) : "";
}

void CudaBackend::unload(Code code) noexcept {
    ContextScope scope(api_, context(), /*quiet=*/true);
    api_.cuModuleUnload(static_cast<CUmodule>(code.module));
}

void CudaBackend::launch_code(Code code, const LaunchShape& shape, const char* what) {
    ContextScope scope(api_, context(), false, "launch with");
    CUresult r = api_.cuLaunchKernel(static_cast<CUfunction>(code.function), shape.groups, 1, 1,
                                     shape.group, 1, 1, 0, stream_, shape.params, nullptr);
    if (r != CUDA_SUCCESS)
        throw RuntimeError("CUDA: cuLaunchKernel (" + std::string(what) +
                           ") failed: " + cu_error_name(api_, r));
}

}  // namespace tack::runtime::cuda
