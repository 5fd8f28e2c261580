#include "runtime/cuda/cu_api.hpp"

#include "runtime/errors.hpp"

namespace tack::runtime::cuda {

std::string cu_error_name(const CuApi& api, CUresult r) {
    const char* name = nullptr;
    if (api.cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) name = "CUDA error";
    return std::string(name) + " (" + std::to_string(r) + ")";
}

void check(const CuApi& api, CUresult r, const char* what) {
    if (r != CUDA_SUCCESS)
        throw RuntimeError("CUDA: " + std::string(what) + " failed: " + cu_error_name(api, r));
}

}  // namespace tack::runtime::cuda
