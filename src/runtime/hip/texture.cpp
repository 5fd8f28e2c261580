// HIP texture objects. Needs ROCm and a GPU with image support: none of this runs here.
#include "runtime/hip/texture.hpp"

#include <algorithm>
#include <exception>

#include "codegen/cfamily/dialect.hpp"
#include "runtime/gpu/texture_slot.hpp"
#include "runtime/hip/hip_backend.hpp"

namespace tack::runtime::hip {

HipTexture::HipTexture(HipBackend& backend, void* src, const std::array<std::int64_t, 3>& whd)
    : backend_(backend) {
    const HipApi& api = backend.api();
    DeviceScope scope(api, backend.device());
    auto [w, h, d] = whd;
    HipChannelFormatDesc format;
    HipExtent extent{std::size_t(w), std::size_t(h), std::size_t(d)};  // in texels: an array
    check(api, api.hipMalloc3DArray(&array_, &format, extent, 0), "hipMalloc3DArray");
    try {
        // Storage is (D, H, W) with x fastest: rows of W texels, H rows per slice.
        HipMemcpy3DParms copy;
        copy.src_ptr = {src, std::size_t(w) * sizeof(float), std::size_t(w), std::size_t(h)};
        copy.dst_array = array_;
        copy.extent = extent;
        check(api, api.hipMemcpy3DAsync(&copy, backend.stream()), "hipMemcpy3DAsync");
        HipResourceDesc res;
        res.res.array = array_;
        HipTextureDesc tex;
        std::fill(std::begin(tex.address_mode), std::end(tex.address_mode), hipAddressModeClamp);
        tex.filter_mode = hipFilterModeLinear;
        tex.normalized_coords = codegen::cfamily::hip_dialect().texture_normalized ? 1 : 0;
        check(api, api.hipCreateTextureObject(&object_, &res, &tex, nullptr),
              "hipCreateTextureObject");
    } catch (...) {
        release();
        throw;
    }
}

HipTexture::~HipTexture() {
    release();
}

void HipTexture::release() {
    const HipApi& api = backend_.api();
    DeviceScope scope(api, backend_.device());
    try {
        backend_.synchronize();        // a queued launch or the fill copy may still read the array
    } catch (const std::exception&) {  // a queued launch's error: the next wait reports it
    }
    if (object_) api.hipDestroyTextureObject(object_);
    if (array_) api.hipFreeArray(array_);
    object_ = nullptr;
    array_ = nullptr;
}

bool HipBackend::texture_in_hardware(const std::array<std::int64_t, 3>& whd) const {
    // CDNA parts (gfx940-942) report no image support, and hipRTC refuses tex3D there.
    return Backend::texture_in_hardware(whd) && image_support_ && api_.has_textures() &&
           gpu::texture_fits(whd, max_texture_3d_);
}

}  // namespace tack::runtime::hip
