#pragma once
// A HIP texture (CONTRACT A39): hipMalloc3DArray of one 32-bit float channel filled from a
// texture's private storage, and a texture object over it with linear filtering and clamp
// addressing, in the coordinates the HIP dialect emits (codegen/cfamily/hip.cpp). Made at the
// storage's first texture launch (gpu::TextureSlot), destroyed with the storage.

#include <array>
#include <cstdint>

#include "runtime/hip/hip_api.hpp"

namespace tack::runtime::hip {

class HipBackend;

class HipTexture {
  public:
    /// Copies W * H * D texels from `src` on the device's stream, after the work queued so far,
    /// and makes the texture object. RuntimeError on a runtime failure, nothing left allocated.
    HipTexture(HipBackend& backend, void* src, const std::array<std::int64_t, 3>& whd);
    ~HipTexture();
    HipTexture(const HipTexture&) = delete;
    HipTexture& operator=(const HipTexture&) = delete;

    hipTextureObject_t object() const { return object_; }

  private:
    void release();

    HipBackend& backend_;  // outlives this: the storage buffer holding it keeps it alive
    hipArray_t array_ = nullptr;
    hipTextureObject_t object_ = nullptr;
};

}  // namespace tack::runtime::hip
