#pragma once
// A CUDA texture (CONTRACT A39): a 3-D array of one 32-bit float channel filled from a texture's
// private storage, and a texture object over it with linear filtering and clamp addressing, in
// the coordinates the CUDA dialect emits (codegen/cfamily/cuda.cpp). Made at the storage's first
// texture launch (gpu::TextureSlot), destroyed with the storage.

#include <array>
#include <cstdint>
#include <memory>

#include "runtime/cuda/cu_api.hpp"

namespace tack::runtime::cuda {

class CudaBackend;

class CuTexture {
  public:
    /// Copies W * H * D texels from `src` on the backend's stream, after the work queued so far
    /// (the copy that filled the storage), and makes the texture object. RuntimeError on a
    /// driver failure, with nothing left allocated.
    CuTexture(CudaBackend& backend, CUdeviceptr src, const std::array<std::int64_t, 3>& whd);
    ~CuTexture();
    CuTexture(const CuTexture&) = delete;
    CuTexture& operator=(const CuTexture&) = delete;

    CUtexObject object() const { return object_; }

  private:
    void release();

    CudaBackend& backend_;  // outlives this: the storage buffer holding it keeps it alive
    CUarray array_ = nullptr;
    CUtexObject object_ = 0;
};

}  // namespace tack::runtime::cuda
