// CONTRACT C24 / E7 on CUDA: export_memory() hands out memory made with the virtual memory
// management API (cuMemCreate, mapped with cuMemMap) as a POSIX file descriptor that another API
// or process imports (Vulkan, another CUDA context): an exportable array's own allocation
// (field(..., exportable=True), C6), else a copy of the array taken after the launches queued
// before the call. The allocation size is rounded to the granularity.
#include <unistd.h>

#include <cstdio>
#include <new>

#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/errors.hpp"
#include "runtime/gpu/image_buffer.hpp"

namespace tack::runtime::cuda {

namespace {

constexpr int kPosixFd = 1;  // CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR

std::string uuid_text(const CuApi& api, CUdevice d) {
    unsigned char id[16] = {};
    if (api.cuDeviceGetUuid_v2) api.cuDeviceGetUuid_v2(id, d);
    char hex[33] = {};
    for (int i = 0; i < 16; ++i)
        std::snprintf(hex + 2 * i, 3, "%02x", id[i]);
    return hex;
}

}  // namespace

/// One mapped VMM allocation; unmapped, released and its exported fd closed with the last
/// reference (the exporting side closes the fd it exported).
struct VmmAllocation {
    std::shared_ptr<CudaBackend> backend;
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr ptr = 0;
    std::size_t size = 0;
    int fd = -1;
    ~VmmAllocation() {
        const CuApi& api = backend->api();
        ContextScope scope(api, backend->context(), /*quiet=*/true);
        if (fd >= 0) ::close(fd);
        if (ptr) {
            api.cuStreamSynchronize(backend->stream());  // no queued launch still uses it
            api.cuMemUnmap(ptr, size);
            api.cuMemAddressFree(ptr, size);
        }
        if (handle) api.cuMemRelease(handle);
    }
};

std::shared_ptr<VmmAllocation> CudaBackend::map_exportable(std::size_t nbytes, CUdeviceptr* ptr) {
    if (!api_.cuMemCreate || !api_.cuMemMap || !api_.cuMemExportToShareableHandle)
        throw RuntimeError("CUDA: this driver lacks the virtual memory management API");
    ContextScope scope(api_, context(), false, "export");
    CuMemAllocationProp prop;
    prop.location_id = device_;
    std::size_t granularity = 0;
    check(api_, api_.cuMemGetAllocationGranularity(&granularity, &prop, 0),
          "cuMemGetAllocationGranularity");
    std::size_t n = nbytes ? nbytes : 1;
    auto vmm = std::make_shared<VmmAllocation>();
    vmm->backend = std::static_pointer_cast<CudaBackend>(shared_from_this());
    vmm->size = (n + granularity - 1) / granularity * granularity;
    if (CUresult r = api_.cuMemCreate(&vmm->handle, vmm->size, &prop, 0)) {
        if (r == CUDA_ERROR_OUT_OF_MEMORY) throw std::bad_alloc();
        check(api_, r, "cuMemCreate");
    }
    check(api_, api_.cuMemAddressReserve(&vmm->ptr, vmm->size, 0, 0, 0), "cuMemAddressReserve");
    if (CUresult r = api_.cuMemMap(vmm->ptr, vmm->size, 0, vmm->handle, 0)) {
        api_.cuMemAddressFree(vmm->ptr, vmm->size);
        vmm->ptr = 0;
        check(api_, r, "cuMemMap");
    }
    CuMemAccessDesc access;
    access.location_id = device_;
    check(api_, api_.cuMemSetAccess(vmm->ptr, vmm->size, &access, 1), "cuMemSetAccess");
    check(api_, api_.cuMemsetD8Async(vmm->ptr, 0, vmm->size, stream_), "cuMemsetD8Async");
    *ptr = vmm->ptr;
    return vmm;
}

namespace {

/// An exported fd of a live allocation: closed with the export, the memory kept until then.
struct LiveExport {
    std::shared_ptr<VmmAllocation> memory;
    int fd = -1;
    ~LiveExport() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

std::optional<ExportedMemory> CudaBackend::export_memory(const Buffer& buffer) {
    ExportedMemory out;
    out.backend = "cuda";
    out.size = buffer.nbytes();
    out.handle_type = "posix_fd";
    out.device_uuid = uuid_text(api_, device_);
    synchronize();  // the handle shows what the launches queued so far wrote
    if (std::shared_ptr<VmmAllocation> own = allocation_of(buffer)) {
        // Exportable for its whole life (C6): the allocation itself, so later kernel writes are
        // seen through the handle.
        auto live = std::make_shared<LiveExport>();
        live->memory = own;
        ContextScope scope(api_, context());
        check(api_, api_.cuMemExportToShareableHandle(&live->fd, own->handle, kPosixFd, 0),
              "cuMemExportToShareableHandle");
        out.allocation_size = own->size;
        out.handle = live->fd;
        out.live = true;
        out.keep = std::move(live);
        return out;
    }
    // An ordinary array: copied once into exportable memory.
    gpu::require_linear(buffer);
    CUdeviceptr ptr = 0;
    std::shared_ptr<VmmAllocation> vmm = map_exportable(buffer.nbytes(), &ptr);
    ContextScope scope(api_, context());
    if (buffer.nbytes())
        check(api_, api_.cuMemcpyDtoDAsync_v2(ptr, buffer.address(), buffer.nbytes(), stream_),
              "cuMemcpyDtoDAsync");
    synchronize();
    check(api_, api_.cuMemExportToShareableHandle(&vmm->fd, vmm->handle, kPosixFd, 0),
          "cuMemExportToShareableHandle");
    out.allocation_size = vmm->size;
    out.handle = vmm->fd;
    out.keep = std::move(vmm);
    return out;
}

}  // namespace tack::runtime::cuda
