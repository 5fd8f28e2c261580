// HIP's half of hardware textures (gpu::DeviceBackend::make_image, CONTRACT A39):
// hipMalloc3DArray of one 32-bit float channel filled with hipMemcpy3DAsync on the stream, and a
// texture object over it with linear filtering and clamp addressing in the coordinates the HIP
// dialect emits (codegen/cfamily/hip.cpp). Runs on the emulated device in make test.
#include <algorithm>

#include "codegen/cfamily/dialect.hpp"
#include "runtime/hip/hip_backend.hpp"

namespace tack::runtime::hip {

gpu::DeviceBackend::Image HipBackend::make_image(std::uint64_t src,
                                                 const std::array<std::int64_t, 3>& whd) {
    DeviceScope scope(api_, device_);
    auto [w, h, d] = whd;
    HipChannelFormatDesc format;
    HipExtent extent{std::size_t(w), std::size_t(h), std::size_t(d)};  // in texels: an array
    hipArray_t array = nullptr;
    check(api_, api_.hipMalloc3DArray(&array, &format, extent, 0), "hipMalloc3DArray");
    hipTextureObject_t object = nullptr;
    try {
        // Storage is (D, H, W) with x fastest: rows of W texels, H rows per slice.
        HipMemcpy3DParms copy;
        copy.src_ptr = {reinterpret_cast<void*>(src), std::size_t(w) * sizeof(float),
                        std::size_t(w), std::size_t(h)};
        copy.dst_array = array;
        copy.extent = extent;
        check(api_, api_.hipMemcpy3DAsync(&copy, stream_), "hipMemcpy3DAsync");
        HipResourceDesc res;
        res.res.array = array;
        HipTextureDesc tex;
        std::fill(std::begin(tex.address_mode), std::end(tex.address_mode), hipAddressModeClamp);
        tex.filter_mode = hipFilterModeLinear;
        tex.normalized_coords = codegen::cfamily::hip_dialect().texture_normalized ? 1 : 0;
        check(api_, api_.hipCreateTextureObject(&object, &res, &tex, nullptr),
              "hipCreateTextureObject");
    } catch (...) {
        try {
            wait_for_queue();  // the copy may be queued
        } catch (const std::exception&) {
        }
        api_.hipFreeArray(array);
        throw;
    }
    return {array, reinterpret_cast<std::uint64_t>(object)};
}

void HipBackend::destroy_image(Image image) noexcept {
    DeviceScope scope(api_, device_);
    api_.hipDestroyTextureObject(reinterpret_cast<hipTextureObject_t>(image.object));
    api_.hipFreeArray(static_cast<hipArray_t>(image.array));
}

bool HipBackend::texture_in_hardware(const std::array<std::int64_t, 3>& whd) const {
    // CDNA parts (gfx940-942) report no image support, and hipRTC refuses tex3D there.
    return Backend::texture_in_hardware(whd) && image_support_ && api_.has_textures() &&
           gpu::texture_fits(whd, max_texture_3d_);
}

}  // namespace tack::runtime::hip
