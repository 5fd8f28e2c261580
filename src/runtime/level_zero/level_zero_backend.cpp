#include "runtime/level_zero/level_zero_backend.hpp"

#include <utility>

#include "runtime/gpu/image_buffer.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "runtime/gpu/pointers.hpp"

namespace tack::runtime::level_zero {

namespace {

std::shared_ptr<Backend> create(const DeviceOptions& options);

constexpr std::string_view kOptions[] = {"external_context"};
const BackendEntry kEntry{"level_zero", kOptions, &create};

/// Device memory (zeMemAllocDevice), or wrapped memory owned by another library.
class L0Buffer final : public Buffer {
  public:
    L0Buffer(std::shared_ptr<Backend> backend, void* ptr, std::size_t nbytes, bool owned)
        : Buffer(std::move(backend), reinterpret_cast<std::uint64_t>(ptr), nullptr, nbytes, owned) {
    }
    ~L0Buffer() override {
        if (owned()) l0().queue().free(ptr());
    }

    bool copies_in_queue_order() const override { return true; }
    void write(std::size_t offset, const void* src, std::size_t n) override {
        l0().queue().upload(ptr() + offset, src, n);
    }
    void read(std::size_t offset, void* dst, std::size_t n) const override {
        l0().queue().download(dst, ptr() + offset, n);
    }

  private:
    LevelZeroBackend& l0() const { return static_cast<LevelZeroBackend&>(backend()); }
    std::uint8_t* ptr() const { return reinterpret_cast<std::uint8_t*>(address()); }
};

std::shared_ptr<Backend> create(const DeviceOptions& options) {
    // Options are checked before any library is touched, so a malformed external_context is a
    // ValueError on every machine (CONTRACT C2: it propagates unwrapped).
    std::optional<ExternalContext> external = parse_external_context(options);
    constexpr std::string_view kPrefix = "Cannot initialize 'level_zero' backend: ";
    std::string why;
    const ZeApi* api = ze_api(&why);
    if (!api) throw RuntimeError(std::string(kPrefix) + why);
    try {
        DeviceHandles handles = open_device(*api, external);
        DeviceInfo info = query_device(*api, handles);
        return std::make_shared<LevelZeroBackend>(*api, handles, std::move(info));
    } catch (const RuntimeError& e) {
        // A failed query or queue creation names its call; say which backend it stopped.
        if (std::string_view(e.what()).starts_with(kPrefix)) throw;
        throw RuntimeError(std::string(kPrefix) + e.what());
    }
}

}  // namespace

const BackendEntry& backend_entry() {
    return kEntry;
}

LevelZeroBackend::LevelZeroBackend(const ZeApi& api, DeviceHandles handles, DeviceInfo info)
    : api_(api),
      handles_(handles),
      info_(std::move(info)),
      queue_(api_, handles_, info_),
      group_(group_size(info_)),
      geometry_{"Level Zero", group_, launch_limit(info_)},
      options_(opencl_build_options()) {}

std::shared_ptr<Buffer> LevelZeroBackend::allocate_array(std::size_t nbytes) {
    void* ptr = queue_.allocate(nbytes);
    return std::make_shared<L0Buffer>(shared_from_this(), ptr, nbytes, true);
}

std::string LevelZeroBackend::memory_space(std::uint64_t address) const {
    if (!api_.zeMemGetAllocProperties) return "cpu";
    ze_memory_allocation_properties_t props{};
    props.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
    if (api_.zeMemGetAllocProperties(handles_.context, reinterpret_cast<const void*>(address),
                                     &props, nullptr) != ZE_RESULT_SUCCESS)
        return "cpu";
    bool device = props.type == ZE_MEMORY_TYPE_DEVICE || props.type == ZE_MEMORY_TYPE_SHARED;
    return device ? "level_zero" : "cpu";
}

std::shared_ptr<Buffer> LevelZeroBackend::wrap_ptr(void* ptr, std::size_t nbytes) {
    gpu::require_device_pointer(*this, ptr, nbytes);
    // The other library may have queued writes of its own; Tack's queue is idle before the
    // memory is read through Tack (the seed: wrap_ptr completes its launches first).
    queue_.synchronize();
    return std::make_shared<L0Buffer>(shared_from_this(), ptr, nbytes, false);
}

bool LevelZeroBackend::fill_array(Buffer& buffer, const void* pattern, std::size_t elem_size,
                                  std::size_t count) {
    gpu::require_linear(buffer);
    // zeCommandListAppendMemoryFill takes power-of-two patterns no larger than the queue
    // group's maxMemoryFillPatternSize; anything else is written through the buffer.
    bool power_of_two = elem_size != 0 && (elem_size & (elem_size - 1)) == 0;
    if (!power_of_two || elem_size > info_.max_fill_pattern) return false;
    queue_.fill(reinterpret_cast<void*>(buffer.address()), pattern, elem_size, elem_size * count);
    if (buffer.shared()) synchronize();  // its owner may read it now, as on CUDA and HIP
    return true;
}

bool LevelZeroBackend::texture_in_hardware(const std::array<std::int64_t, 3>& whd) const {
    return info_.max_samplers > 0 &&
           gpu::texture_fits(whd, static_cast<std::int64_t>(info_.max_image_dims_3d));
}

std::shared_ptr<Buffer> LevelZeroBackend::make_texture_image(
    const Buffer& source, std::uint64_t address, const std::array<std::int64_t, 3>& whd) {
    if (!texture_in_hardware(whd) || &source.backend() != this || gpu::as_image(source))
        return nullptr;
    ze_image_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_IMAGE_DESC;
    desc.type = ZE_IMAGE_TYPE_3D;  // flags 0: read-only in kernels
    desc.format = {ZE_IMAGE_FORMAT_LAYOUT_32, ZE_IMAGE_FORMAT_TYPE_FLOAT,
                   ZE_IMAGE_FORMAT_SWIZZLE_R, ZE_IMAGE_FORMAT_SWIZZLE_0,
                   ZE_IMAGE_FORMAT_SWIZZLE_0, ZE_IMAGE_FORMAT_SWIZZLE_1};
    desc.width = static_cast<uint64_t>(whd[0]);
    desc.height = static_cast<uint32_t>(whd[1]);
    desc.depth = static_cast<uint32_t>(whd[2]);
    ze_image_handle_t image = nullptr;
    check(api_.zeImageCreate(handles_.context, handles_.device, &desc, &image), "zeImageCreate");
    auto self = std::static_pointer_cast<LevelZeroBackend>(shared_from_this());
    auto destroy = [self, image] { self->api().zeImageDestroy(image); };
    try {
        queue_.copy_to_image(image, reinterpret_cast<const void*>(address));
    } catch (...) {
        destroy();  // nothing queued reads it
        throw;
    }
    auto bytes = static_cast<std::size_t>(whd[0] * whd[1] * whd[2]) * sizeof(float);
    return std::make_shared<gpu::ImageBuffer>(self, reinterpret_cast<std::uint64_t>(image), bytes,
                                              std::move(destroy));
}

std::optional<std::string> LevelZeroBackend::cache_target() const {
    const OclocApi* ocloc = ocloc_api(nullptr);
    int version = ocloc && ocloc->oclocVersion ? ocloc->oclocVersion() : 0;
    return level_zero::cache_target(info_, version, options_);
}

namespace {

class ZeMark final : public QueueMark {
  public:
    ZeMark(std::shared_ptr<LevelZeroBackend> b, ze_event_handle_t e) : b_(std::move(b)), e_(e) {}
    ~ZeMark() override {
        if (e_) b_->queue().drop_mark(e_);
    }
    void wait() override {
        if (!e_) return;
        ze_event_handle_t e = std::exchange(e_, nullptr);
        b_->queue().wait_mark(e);
    }

  private:
    std::shared_ptr<LevelZeroBackend> b_;
    ze_event_handle_t e_;
};

}  // namespace

std::unique_ptr<QueueMark> LevelZeroBackend::mark_queue() {
    ze_event_handle_t e = queue_.mark();
    if (!e) return synchronizing_mark(shared_from_this());
    return std::make_unique<ZeMark>(std::static_pointer_cast<LevelZeroBackend>(shared_from_this()),
                                    e);
}

}  // namespace tack::runtime::level_zero
