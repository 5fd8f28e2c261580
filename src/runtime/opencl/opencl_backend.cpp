#include "runtime/opencl/opencl_backend.hpp"

#include <mutex>

namespace tack::runtime::opencl {

namespace {

std::shared_ptr<Backend> create(const DeviceOptions& options);

constexpr std::string_view kOptions[] = {"platform", "device"};
const BackendEntry kEntry{"opencl", kOptions, &create};

std::shared_ptr<Backend> create(const DeviceOptions& options) {
    // Options are checked before any library is touched (CONTRACT C2).
    DeviceChoice choice = choose_device(options);
    std::string why;
    const ClApi* api = cl_api(&why);
    if (!api) throw RuntimeError("Cannot initialize 'opencl' backend: " + why);
    return std::make_shared<OpenClBackend>(*api, open_device(*api, choice));
}

}  // namespace

const BackendEntry& backend_entry() {
    return kEntry;
}

ClBuffer::ClBuffer(std::shared_ptr<OpenClBackend> backend, cl_mem mem, std::size_t nbytes,
                   void* host)
    : Buffer(backend, backend->next_token(nbytes), host, nbytes, !host), mem_(mem) {}

ClBuffer::~ClBuffer() {
    cl().queue().release(mem_);  // deferred past the launches that use it
}

OpenClBackend& ClBuffer::cl() const {
    return static_cast<OpenClBackend&>(backend());
}

void ClBuffer::write(std::size_t offset, const void* src, std::size_t n) {
    if (host_ptr())
        Buffer::write(offset, src, n);  // launches binding it have completed
    else
        cl().queue().upload(mem_, offset, src, n);
}

void ClBuffer::read(std::size_t offset, void* dst, std::size_t n) const {
    if (host_ptr())
        Buffer::read(offset, dst, n);
    else
        cl().queue().download(dst, mem_, offset, n);
}

OpenClBackend::OpenClBackend(const ClApi& api, DeviceDesc device)
    : api_(api),
      device_(std::move(device)),
      queue_(api_, device_),
      geometry_{"OpenCL", group_size(device_), launch_limit(device_)},
      workgroups_(device_.max_work_group_size >= gpu::kCollectiveLanes) {}

std::uint64_t OpenClBackend::next_token(std::size_t nbytes) {
    constexpr std::uint64_t kPage = 4096;
    // One spare page keeps neighbouring ranges apart even for empty arrays.
    return next_address_.fetch_add((nbytes + kPage - 1) / kPage * kPage + kPage);
}

std::shared_ptr<Buffer> OpenClBackend::allocate_array(std::size_t nbytes) {
    auto self = std::static_pointer_cast<OpenClBackend>(shared_from_this());
    return std::make_shared<ClBuffer>(self, queue_.allocate(nbytes), nbytes, nullptr);
}

std::shared_ptr<Buffer> OpenClBackend::wrap_ptr(void* ptr, std::size_t nbytes) {
    auto self = std::static_pointer_cast<OpenClBackend>(shared_from_this());
    return std::make_shared<ClBuffer>(self, queue_.allocate(nbytes), nbytes, ptr);
}

bool OpenClBackend::fill_array(Buffer& buffer, const void* pattern, std::size_t elem_size,
                               std::size_t count) {
    // clEnqueueFillBuffer takes patterns of 1, 2, 4, ..., 128 bytes.
    bool power_of_two = elem_size != 0 && (elem_size & (elem_size - 1)) == 0;
    if (!power_of_two || elem_size > 128 || count == 0 || buffer.host_ptr()) return false;
    queue_.fill(static_cast<ClBuffer&>(buffer).mem(), pattern, elem_size, elem_size * count);
    return true;
}

bool OpenClBackend::copy_array(Buffer& dst, const Buffer& src, std::size_t nbytes) {
    // Wrapped memory is the storage itself: copied through the host.
    if (nbytes == 0 || dst.host_ptr() || src.host_ptr() || &src.backend() != this) return false;
    std::lock_guard guard(queue_.lock());
    check(api_.clEnqueueCopyBuffer(queue_.queue(), static_cast<const ClBuffer&>(src).mem(),
                                   static_cast<ClBuffer&>(dst).mem(), 0, 0, nbytes, 0, nullptr,
                                   nullptr),
          "clEnqueueCopyBuffer");
    return true;
}

}  // namespace tack::runtime::opencl
