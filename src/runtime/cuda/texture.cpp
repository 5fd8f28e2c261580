// CUDA texture objects. Needs a driver and a GPU: none of this runs here; scripts/gpu_check.sh
// runs tests/unit/cuda's hardware texture test, which compares samples with the trilinear
// reference.
#include "runtime/cuda/texture.hpp"

#include <algorithm>

#include "codegen/cfamily/dialect.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/gpu/texture_slot.hpp"

namespace tack::runtime::cuda {

CuTexture::CuTexture(CudaBackend& backend, CUdeviceptr src, const std::array<std::int64_t, 3>& whd)
    : backend_(backend) {
    const CuApi& api = backend.api();
    ContextScope scope(api, backend.context());
    auto [w, h, d] = whd;
    CuArray3DDescriptor desc;
    desc.width = std::size_t(w), desc.height = std::size_t(h), desc.depth = std::size_t(d);
    check(api, api.cuArray3DCreate_v2(&array_, &desc), "cuArray3DCreate");
    try {
        // Storage is (D, H, W) with x fastest: rows of W texels, H rows per slice.
        CuMemcpy3D copy;
        copy.src_memory_type = CU_MEMORYTYPE_DEVICE;
        copy.src_device = src;
        copy.src_pitch = std::size_t(w) * sizeof(float);
        copy.src_height = std::size_t(h);
        copy.dst_memory_type = CU_MEMORYTYPE_ARRAY;
        copy.dst_array = array_;
        copy.width_bytes = std::size_t(w) * sizeof(float);
        copy.height = std::size_t(h);
        copy.depth = std::size_t(d);
        check(api, api.cuMemcpy3DAsync_v2(&copy, backend.stream()), "cuMemcpy3DAsync");
        CuResourceDesc res;
        res.res.array = array_;
        CuTextureDesc tex;
        std::fill(std::begin(tex.address_mode), std::end(tex.address_mode),
                  CU_TR_ADDRESS_MODE_CLAMP);
        tex.filter_mode = CU_TR_FILTER_MODE_LINEAR;
        // Read as float (no READ_AS_INTEGER); coordinates as the dialect emits them.
        tex.flags = codegen::cfamily::cuda_dialect().texture_normalized
                        ? CU_TRSF_NORMALIZED_COORDINATES
                        : 0;
        check(api, api.cuTexObjectCreate(&object_, &res, &tex, nullptr), "cuTexObjectCreate");
    } catch (...) {
        release();
        throw;
    }
}

CuTexture::~CuTexture() {
    release();
}

void CuTexture::release() {
    const CuApi& api = backend_.api();
    ContextScope scope(api, backend_.context(), /*quiet=*/true);
    // A queued launch or the fill copy may still read the array: destroy it after them.
    api.cuStreamSynchronize(backend_.stream());
    if (object_) api.cuTexObjectDestroy(object_);
    if (array_) api.cuArrayDestroy(array_);
    object_ = 0;
    array_ = nullptr;
}

bool CudaBackend::texture_in_hardware(const std::array<std::int64_t, 3>& whd) const {
    return Backend::texture_in_hardware(whd) && api_.has_textures() &&
           gpu::texture_fits(whd, max_texture_3d_);
}

}  // namespace tack::runtime::cuda
