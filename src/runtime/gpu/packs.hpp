#pragma once
// Scalar packs per launch (seed "Scalar arguments on the GPU", CONTRACT D16). The generated
// kernel reads its scalars from one small array per dtype. A pack array shared by every launch
// of a variant would let a queued launch, or another thread's launch, read the next call's
// values (reproduced on CUDA with four threads: 248 of 400 dispatches). Each launch therefore
// binds an immutable pack device buffer: a call whose values equal the previous call's reuses
// its buffer; otherwise a new one is made and the old one released, the release deferred by
// the backend past the launches queued on it (OpenCL: clReleaseMemObject; CUDA/HIP: a
// stream-ordered free).
//
// One PackSlots per variant, used under the lock that orders the backend's launches.

#include <cstdint>
#include <vector>

namespace tack::runtime::gpu {

template <class Handle>
class PackSlots {
  public:
    explicit PackSlots(std::size_t packs = 0) : slots_(packs) {}

    std::size_t size() const { return slots_.size(); }

    /// The buffer pack `j` binds for `bytes`: the last one when unchanged, else
    /// make(bytes) -> Handle, with release(old) for the buffer it replaces.
    template <class Make, class Release>
    Handle bind(std::size_t j, std::vector<std::uint8_t>&& bytes, Make&& make, Release&& release) {
        Slot& s = slots_[j];
        if (s.live && s.bytes == bytes) return s.handle;
        Handle fresh = make(bytes);
        if (s.live) release(s.handle);
        s.handle = fresh;
        s.bytes = std::move(bytes);
        s.live = true;
        ++made_;
        return fresh;
    }

    /// Releases every live buffer (the variant's destructor).
    template <class Release>
    void clear(Release&& release) {
        for (Slot& s : slots_) {
            if (s.live) release(s.handle);
            s.live = false;
        }
    }

    /// Pack buffers made so far (tests: an unchanged call reuses, a changed one makes).
    std::size_t made() const { return made_; }

  private:
    struct Slot {
        std::vector<std::uint8_t> bytes;
        Handle handle{};
        bool live = false;
    };
    std::vector<Slot> slots_;
    std::size_t made_ = 0;
};

}  // namespace tack::runtime::gpu
