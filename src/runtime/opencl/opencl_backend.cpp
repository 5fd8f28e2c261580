#include "runtime/opencl/opencl_backend.hpp"

#include <mutex>

namespace tack::runtime::opencl {

namespace {

std::shared_ptr<Backend> create(const DeviceOptions& options);

constexpr std::string_view kOptions[] = {"platform", "device"};
const BackendEntry kEntry{"opencl", "OpenCL", kOptions, &create};

/// A cl_mem with a token address. Ordinary arrays are device-only, so reads and writes queue;
/// wrapped memory is read and written in place.
class ClBuffer final : public Buffer {
  public:
    ClBuffer(std::shared_ptr<OpenClBackend> backend, cl_mem mem, std::size_t nbytes, void* host)
        : Buffer(backend, backend->register_buffer(mem, nbytes, host), host, nbytes, !host),
          mem_(mem) {}
    ~ClBuffer() override {
        cl().forget_buffer(address());
        cl().queue().release(mem_);  // deferred past the launches that use it
    }

    void write(std::size_t offset, const void* src, std::size_t n) override {
        if (host_ptr())
            Buffer::write(offset, src, n);  // launches binding it have completed
        else
            cl().queue().upload(mem_, offset, src, n);
    }
    void read(std::size_t offset, void* dst, std::size_t n) const override {
        if (host_ptr())
            Buffer::read(offset, dst, n);
        else
            cl().queue().download(dst, mem_, offset, n);
    }

  private:
    OpenClBackend& cl() const { return static_cast<OpenClBackend&>(backend()); }
    cl_mem mem_;
};

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

OpenClBackend::OpenClBackend(const ClApi& api, DeviceDesc device)
    : api_(api),
      device_(std::move(device)),
      queue_(api_, device_),
      group_(group_size(device_)),
      launch_limit_(launch_limit(device_)),
      workgroups_(device_.max_work_group_size >= 256) {}

std::uint64_t OpenClBackend::register_buffer(cl_mem mem, std::size_t nbytes, void* host) {
    constexpr std::uint64_t kPage = 4096;
    std::unique_lock lock(buffers_mutex_);
    std::uint64_t address = next_address_;
    // One spare page keeps neighbouring ranges apart even for empty arrays.
    next_address_ += (nbytes + kPage - 1) / kPage * kPage + kPage;
    buffers_[address] = Bound{mem, host, nbytes};
    return address;
}

void OpenClBackend::forget_buffer(std::uint64_t address) {
    std::unique_lock lock(buffers_mutex_);
    buffers_.erase(address);
}

OpenClBackend::Bound OpenClBackend::lookup(std::uint64_t address) const {
    std::shared_lock lock(buffers_mutex_);
    auto it = buffers_.find(address);
    if (it == buffers_.end())
        throw RuntimeError("OpenCL: no live buffer at address " + std::to_string(address));
    return it->second;
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
    queue_.fill(lookup(buffer.address()).mem, pattern, elem_size, elem_size * count);
    return true;
}

}  // namespace tack::runtime::opencl
