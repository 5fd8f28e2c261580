#pragma once
// A texture's storage on a device that samples it in hardware (CONTRACT A39), for every GPU
// backend that has images (CUDA, HIP, Level Zero): the image alone, made when the texture is
// made. It has no linear memory: kernels sample it through its object (a texture object, an
// image handle), and the host neither reads nor writes it (the texture is a snapshot; its
// source keeps the texels).

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "codegen/cfamily/emitter.hpp"
#include "runtime/backend.hpp"

namespace tack::runtime::gpu {

class ImageBuffer final : public Buffer {
  public:
    /// `destroy` releases the vendor's image; it runs after a wait, when no queued launch can
    /// still sample it.
    ImageBuffer(std::shared_ptr<Backend> backend, std::uint64_t object, std::size_t nbytes,
                std::function<void()> destroy)
        : Buffer(std::move(backend), 0, nullptr, nbytes, true),
          object_(object),
          destroy_(std::move(destroy)) {}
    ~ImageBuffer() override;

    /// What the kernel argument holds: the texture object or the image handle.
    std::uint64_t object() const { return object_; }
    void write(std::size_t, const void*, std::size_t) override { refuse(); }
    void read(std::size_t, void*, std::size_t) const override { refuse(); }
    /// RuntimeError: the host has no access to an image.
    [[noreturn]] void refuse() const;

  private:
    std::uint64_t object_;
    std::function<void()> destroy_;
};

/// The image `buffer` is, or nullptr for linear memory.
inline const ImageBuffer* as_image(const Buffer& buffer) {
    return dynamic_cast<const ImageBuffer*>(&buffer);
}

/// RuntimeError where `buffer` is an image: copies, fills and exports need linear memory.
inline void require_linear(const Buffer& buffer) {
    if (const ImageBuffer* image = as_image(buffer)) image->refuse();
}

/// What an array parameter's kernel argument holds: `address`, or for a texture the
/// variant samples in hardware its image's object (InternalError naming `kernel` when the
/// texture has no image: Array::as_texture makes one wherever the variant samples one).
std::uint64_t kernel_argument(const codegen::cfamily::AbiParam& param, const Buffer& bound,
                              std::uint64_t address, std::string_view kernel);

}  // namespace tack::runtime::gpu
