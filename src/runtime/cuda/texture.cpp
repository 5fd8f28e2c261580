// CUDA's half of hardware textures (gpu::DeviceBackend::make_image, CONTRACT A39): a 3-D CUDA
// array of one 32-bit float channel filled with cuMemcpy3D on the stream, and a texture object
// over it with linear filtering and clamp addressing in the coordinates the CUDA dialect emits
// (codegen/cfamily/cuda.cpp). Runs on the emulated device in make test; scripts/gpu_check.sh
// runs the device suite's hardware texture test on a GPU.
#include <algorithm>

#include "codegen/cfamily/dialect.hpp"
#include "runtime/cuda/cuda_backend.hpp"

namespace tack::runtime::cuda {

gpu::DeviceBackend::Image CudaBackend::make_image(std::uint64_t src,
                                                  const std::array<std::int64_t, 3>& whd) {
    ContextScope scope(api_, context());
    auto [w, h, d] = whd;
    CuArray3DDescriptor desc;
    desc.width = std::size_t(w), desc.height = std::size_t(h), desc.depth = std::size_t(d);
    CUarray array = nullptr;
    check(api_, api_.cuArray3DCreate_v2(&array, &desc), "cuArray3DCreate");
    CUtexObject object = 0;
    try {
        // Storage is (D, H, W) with x fastest: rows of W texels, H rows per slice.
        CuMemcpy3D copy;
        copy.src_memory_type = CU_MEMORYTYPE_DEVICE;
        copy.src_device = src;
        copy.src_pitch = std::size_t(w) * sizeof(float);
        copy.src_height = std::size_t(h);
        copy.dst_memory_type = CU_MEMORYTYPE_ARRAY;
        copy.dst_array = array;
        copy.width_bytes = std::size_t(w) * sizeof(float);
        copy.height = std::size_t(h);
        copy.depth = std::size_t(d);
        check(api_, api_.cuMemcpy3DAsync_v2(&copy, stream_), "cuMemcpy3DAsync");
        CuResourceDesc res;
        res.res.array = array;
        CuTextureDesc tex;
        std::fill(std::begin(tex.address_mode), std::end(tex.address_mode),
                  CU_TR_ADDRESS_MODE_CLAMP);
        tex.filter_mode = CU_TR_FILTER_MODE_LINEAR;
        // Read as float (no READ_AS_INTEGER); coordinates as the dialect emits them.
        tex.flags = codegen::cfamily::cuda_dialect().texture_normalized
                        ? CU_TRSF_NORMALIZED_COORDINATES
                        : 0;
        check(api_, api_.cuTexObjectCreate(&object, &res, &tex, nullptr), "cuTexObjectCreate");
    } catch (...) {
        api_.cuStreamSynchronize(stream_);  // the copy may be queued
        api_.cuArrayDestroy(array);
        throw;
    }
    return {array, object};
}

void CudaBackend::destroy_image(Image image) noexcept {
    ContextScope scope(api_, context(), /*quiet=*/true);
    api_.cuTexObjectDestroy(image.object);
    api_.cuArrayDestroy(static_cast<CUarray>(image.array));
}

bool CudaBackend::texture_in_hardware(const std::array<std::int64_t, 3>& whd) const {
    return Backend::texture_in_hardware(whd) && api_.has_textures() &&
           gpu::texture_fits(whd, max_texture_3d_);
}

}  // namespace tack::runtime::cuda
