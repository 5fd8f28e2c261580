#pragma once
// Hardware textures on the GPU backends (CONTRACT A39, E5), the parts CUDA and HIP share. A
// texture's storage is a private f32 buffer of shape (D, H, W) that no kernel writes (sema
// refuses it) and that update() replaces rather than rewrites, so the image a backend builds
// from it at its first texture launch never goes stale: the buffer holds it in a TextureSlot
// and destroys it with itself. No image is ever looked up by address.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "diag/diagnostic.hpp"

namespace tack::runtime::gpu {

/// Whether a texture of extents `whd` fits a device whose smallest 3-D texture limit is `max`
/// (a non-positive limit is unbounded, as HIP reports some; CONTRACT E5).
inline bool texture_fits(const std::array<std::int64_t, 3>& whd, std::int64_t max) {
    for (std::int64_t e : whd)
        if (e < 1 || (max > 0 && e > max)) return false;
    return true;
}

/// The one image of a texture's storage buffer, made by the first get() (thread-safe).
template <class Image>
class TextureSlot {
  public:
    /// `make(whd)` builds the image of `nbytes` of storage; a later call must ask for the same
    /// extents (variants are keyed on them, and a texture's storage has one shape).
    template <class Make>
    const Image& get(const std::array<std::int64_t, 3>& whd, std::size_t nbytes, Make&& make) {
        std::lock_guard guard(mutex_);
        if (!image_) {
            TACK_ASSERT(static_cast<std::size_t>(whd[0] * whd[1] * whd[2]) * 4 <= nbytes,
                        "a texture's storage is smaller than its extents");
            image_ = make(whd);
            whd_ = whd;
        }
        TACK_ASSERT(whd_ == whd, "a texture's storage was sampled with two shapes");
        return *image_;
    }

  private:
    std::mutex mutex_;
    std::unique_ptr<Image> image_;
    std::array<std::int64_t, 3> whd_{};
};

}  // namespace tack::runtime::gpu
