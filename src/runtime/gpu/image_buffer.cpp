#include "runtime/gpu/image_buffer.hpp"

#include <string>

#include "runtime/errors.hpp"

namespace tack::runtime::gpu {

ImageBuffer::~ImageBuffer() {
    try {
        backend().synchronize();       // a queued launch may still sample it
    } catch (const std::exception&) {  // a queued launch's error: the next wait reports it
    }
    destroy_();
}

void ImageBuffer::refuse() const {
    throw RuntimeError("a " + std::string(backend().display_name()) +
                       " texture is an image its kernels sample; read or write the field it "
                       "was made from (texture3d.update() copies it again)");
}

std::uint64_t kernel_argument(const codegen::cfamily::AbiParam& param, const Buffer& bound,
                              std::uint64_t address, std::string_view kernel) {
    if (!param.is_texture) return address;
    if (const ImageBuffer* image = as_image(bound)) return image->object();
    throw diag::InternalError("internal error: a texture sampled in hardware by '" +
                              std::string(kernel) + "' has no image");
}

}  // namespace tack::runtime::gpu
