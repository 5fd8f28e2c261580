#include "unit/level_zero/fake_ze.hpp"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>

#include "runtime/opencl/runner.hpp"

namespace tack::level_zero_test {

namespace {

FakeZe g_fake;
std::mutex g_mutex;     // every entry point's: the fake's state is shared by the backend's threads
bool g_failed = false;  // a launch failed since the last host wait
#define LOCK std::lock_guard<std::mutex> fake_lock(g_mutex)

// The backend never destroys modules and kernels (the seed: Level Zero cleanup can crash at
// exit), so the fake keeps every one it hands out reachable instead of reporting a leak.
// Never destroyed, so the list outlives static destruction and LeakSanitizer's exit-time scan.
auto* const g_handed_out = new std::vector<const void*>;

struct FakeModule {
    std::string source;
};
struct FakeImage {
    size_t w = 0, h = 0, d = 0;
    std::vector<float> texels;
};
std::map<const void*, std::unique_ptr<FakeImage>> g_images;  // live zeImageCreate handles

struct FakeKernel {
    std::string source, entry;
    std::map<uint32_t, std::vector<uint8_t>> args;
    uint32_t group = 0;
};

// Distinct non-null handles.
int g_driver, g_device, g_context, g_list, g_pool, g_events[256];

template <class H>
H handle(int& object) {
    return reinterpret_cast<H>(&object);
}

ze_result_t ok() {
    return ZE_RESULT_SUCCESS;
}

runtime::opencl::ClRunner* runner(std::string* why) {
    static std::string error;
    static std::unique_ptr<runtime::opencl::ClRunner> r = runtime::opencl::ClRunner::create(&error);
    if (!r) *why = error;
    return r.get();
}

void run_kernel(FakeKernel& k, uint32_t groups) {
    std::string why;
    auto* cl = runner(&why);
    if (!cl) {
        g_fake.launch_error = "OpenCL unavailable: " + why;
        return;
    }
    std::vector<runtime::opencl::ClArg> args;
    for (auto& [index, bytes] : k.args) {
        void* ptr = nullptr;
        if (bytes.size() == sizeof(void*)) std::memcpy(&ptr, bytes.data(), sizeof ptr);
        auto image = g_images.find(ptr);
        auto it = g_fake.device.find(ptr);
        if (image != g_images.end()) {
            const FakeImage& im = *image->second;
            args.push_back(runtime::opencl::ClArg::image3d(im.texels.data(), im.w, im.h, im.d));
        } else if (it != g_fake.device.end())
            args.push_back(runtime::opencl::ClArg::buffer(ptr, it->second));
        else
            args.push_back(runtime::opencl::ClArg::value(bytes.data(), bytes.size()));
    }
    g_fake.launched_sources.push_back(k.source);
    g_fake.launch_error = cl->run(k.source, k.entry, args, uint64_t(groups) * k.group, k.group);
}

#define FAKE(name) ze_result_t name
FAKE(init)(ze_init_flags_t) {
    LOCK;
    return ok();
}
FAKE(driver_get)(uint32_t* n, ze_driver_handle_t* d) {
    LOCK;
    if (d) d[0] = handle<ze_driver_handle_t>(g_driver);
    *n = 1;
    return ok();
}
FAKE(driver_props)(ze_driver_handle_t, ze_driver_properties_t* p) {
    LOCK;
    p->driverVersion = 0x01030000;
    return ok();
}
FAKE(api_version)(ze_driver_handle_t, ze_api_version_t* v) {
    LOCK;
    *v = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 6));
    return ok();
}
FAKE(extensions)(ze_driver_handle_t, uint32_t* n, ze_driver_extension_properties_t* p) {
    LOCK;
    if (p) std::strcpy(p[0].name, "ZE_extension_memory_free_policies");
    *n = 1;
    return ok();
}
FAKE(device_get)(ze_driver_handle_t, uint32_t* n, ze_device_handle_t* d) {
    LOCK;
    if (d) d[0] = handle<ze_device_handle_t>(g_device);
    *n = 1;
    return ok();
}
FAKE(device_props)(ze_device_handle_t, ze_device_properties_t* p) {
    LOCK;
    p->type = ZE_DEVICE_TYPE_GPU;
    p->deviceId = 0x0bd5;
    std::strcpy(p->name, "Fake Xe");
    return ok();
}
FAKE(compute_props)(ze_device_handle_t, ze_device_compute_properties_t* p) {
    LOCK;
    p->maxGroupSizeX = g_fake.max_group_size_x;
    p->maxTotalGroupSize = g_fake.max_total_group_size;
    p->maxGroupCountX = g_fake.max_group_count_x;
    return ok();
}
FAKE(module_props)(ze_device_handle_t, ze_device_module_properties_t* p) {
    LOCK;
    p->fp64flags = g_fake.fp64 ? ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST : 0;
    return ok();
}
FAKE(image_props)(ze_device_handle_t, ze_device_image_properties_t* p) {
    LOCK;
    p->maxImageDims3D = g_fake.max_image_dims_3d;
    p->maxSamplers = g_fake.max_samplers;
    return ok();
}
// Group 0 copies only; group 1 computes (the backend must pick ordinal 1).
FAKE(queue_groups)(ze_device_handle_t, uint32_t* n, ze_command_queue_group_properties_t* p) {
    LOCK;
    if (p) {
        p[0].flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
        p[0].maxMemoryFillPatternSize = 4;
        p[1].flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE;
        p[1].maxMemoryFillPatternSize = 128;
    }
    *n = 2;
    return ok();
}
FAKE(context_create)(ze_driver_handle_t, const ze_context_desc_t*, ze_context_handle_t* c) {
    LOCK;
    *c = handle<ze_context_handle_t>(g_context);
    return ok();
}
FAKE(list_create)
(ze_context_handle_t, ze_device_handle_t, const ze_command_queue_desc_t* d,
 ze_command_list_handle_t* l) {
    LOCK;
    g_fake.log.push_back("list ordinal=" + std::to_string(d->ordinal) +
                         (d->mode == ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS ? " async" : " sync"));
    *l = handle<ze_command_list_handle_t>(g_list);
    return ok();
}
FAKE(barrier)(ze_command_list_handle_t, ze_event_handle_t e, uint32_t, ze_event_handle_t*) {
    LOCK;
    g_fake.log.push_back(e ? "barrier+signal" : "barrier");
    return ok();
}
FAKE(copy)
(ze_command_list_handle_t, void* dst, const void* src, size_t n, ze_event_handle_t, uint32_t,
 ze_event_handle_t*) {
    LOCK;
    std::memcpy(dst, src, n);
    g_fake.log.push_back("copy");
    return ok();
}
FAKE(fill)
(ze_command_list_handle_t, void* dst, const void* pattern, size_t size, size_t n, ze_event_handle_t,
 uint32_t, ze_event_handle_t*) {
    LOCK;
    for (size_t i = 0; i < n; i += size)
        std::memcpy(static_cast<char*>(dst) + i, pattern, size);
    g_fake.log.push_back("fill");
    return ok();
}
FAKE(launch)
(ze_command_list_handle_t, ze_kernel_handle_t k, const ze_group_count_t* g, ze_event_handle_t,
 uint32_t, ze_event_handle_t*) {
    LOCK;
    g_fake.log.push_back("launch " + std::to_string(g->groupCountX));
    auto& kernel = *reinterpret_cast<FakeKernel*>(k);
    if (!g_fake.fail_kernels.empty() && kernel.entry.find(g_fake.fail_kernels) != std::string::npos)
        g_failed = true;  // as a faulting kernel: the append succeeds, the next wait fails
    else
        run_kernel(kernel, g->groupCountX);
    return ok();
}
FAKE(pool_create)
(ze_context_handle_t, const ze_event_pool_desc_t*, uint32_t, ze_device_handle_t*,
 ze_event_pool_handle_t* p) {
    LOCK;
    *p = handle<ze_event_pool_handle_t>(g_pool);
    return ok();
}
FAKE(event_create)(ze_event_pool_handle_t, const ze_event_desc_t* d, ze_event_handle_t* e) {
    LOCK;
    *e = handle<ze_event_handle_t>(g_events[d->index]);
    return ok();
}
FAKE(event_sync)(ze_event_handle_t, uint64_t) {
    std::function<void()> during;
    {
        LOCK;
        g_fake.log.push_back("wait-event");
        during = g_fake.on_event_wait;
    }
    if (during) during();  // the waiting thread holds no lock of the fake's
    LOCK;
    return std::exchange(g_failed, false) ? ZE_RESULT_ERROR_DEVICE_LOST : ok();
}
FAKE(event_reset)(ze_event_handle_t) {
    LOCK;
    return ok();
}
FAKE(alloc_device)
(ze_context_handle_t, const ze_device_mem_alloc_desc_t*, size_t n, size_t, ze_device_handle_t,
 void** p) {
    LOCK;
    *p = std::malloc(n);
    std::memset(*p, 0xAB, n);  // garbage, so a missing zero fill shows
    g_fake.device[*p] = n;
    return ok();
}
FAKE(alloc_host)(ze_context_handle_t, const ze_host_mem_alloc_desc_t*, size_t n, size_t, void** p) {
    LOCK;
    *p = std::malloc(n);
    g_fake.host[*p] = n;
    return ok();
}
FAKE(alloc_props)
(ze_context_handle_t, const void* p, ze_memory_allocation_properties_t* props,
 ze_device_handle_t*) {
    LOCK;
    // Device allocations are known by their start and every byte inside them.
    props->type = ZE_MEMORY_TYPE_UNKNOWN;
    for (auto& [start, bytes] : g_fake.device) {
        auto* s = static_cast<const char*>(start);
        if (p >= start && static_cast<const char*>(p) < s + bytes)
            props->type = ZE_MEMORY_TYPE_DEVICE;
    }
    return ok();
}
FAKE(mem_free)(ze_context_handle_t, void* p) {
    LOCK;
    bool device = g_fake.device.erase(p) > 0;
    if (!device && !g_fake.host.erase(p)) return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // not live
    if (device) g_fake.log.push_back("free");
    std::free(p);
    return ok();
}
FAKE(mem_free_ext)(ze_context_handle_t, const ze_memory_free_ext_desc_t* d, void* p) {
    LOCK;
    bool deferred = d->freePolicy == ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE;
    if (!g_fake.device.erase(p)) return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // not live
    g_fake.log.push_back(deferred ? "free-deferred" : "free-ext");
    std::free(p);
    return ok();
}
FAKE(module_create)
(ze_context_handle_t, ze_device_handle_t, const ze_module_desc_t* d, ze_module_handle_t* m,
 ze_module_build_log_handle_t* log) {
    LOCK;
    if (log) *log = nullptr;
    bool native = d->format == ZE_MODULE_FORMAT_NATIVE;
    g_fake.module_formats.push_back(native ? "native" : "spirv");
    if (native && g_fake.refuse_native) return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    auto* module =
        new FakeModule{std::string(reinterpret_cast<const char*>(d->pInputModule), d->inputSize)};
    g_handed_out->push_back(module);
    *m = reinterpret_cast<ze_module_handle_t>(module);
    return ok();
}
FAKE(module_destroy)(ze_module_handle_t m) {
    LOCK;
    delete reinterpret_cast<FakeModule*>(m);
    return ok();
}
FAKE(log_string)(ze_module_build_log_handle_t, size_t* n, char*) {
    LOCK;
    *n = 0;
    return ok();
}
FAKE(log_destroy)(ze_module_build_log_handle_t) {
    LOCK;
    return ok();
}
FAKE(native_binary)(ze_module_handle_t m, size_t* n, uint8_t* out) {
    LOCK;
    const std::string& s = reinterpret_cast<FakeModule*>(m)->source;
    if (out) std::memcpy(out, s.data(), s.size());
    *n = s.size();
    return ok();
}
FAKE(kernel_create)(ze_module_handle_t m, const ze_kernel_desc_t* d, ze_kernel_handle_t* k) {
    LOCK;
    auto* kernel = new FakeKernel{reinterpret_cast<FakeModule*>(m)->source, d->pKernelName};
    g_handed_out->push_back(kernel);
    *k = reinterpret_cast<ze_kernel_handle_t>(kernel);
    return ok();
}
FAKE(group_size)(ze_kernel_handle_t k, uint32_t x, uint32_t, uint32_t) {
    LOCK;
    reinterpret_cast<FakeKernel*>(k)->group = x;
    return ok();
}
FAKE(set_arg)(ze_kernel_handle_t k, uint32_t index, size_t size, const void* value) {
    LOCK;
    const auto* p = static_cast<const uint8_t*>(value);
    reinterpret_cast<FakeKernel*>(k)->args[index].assign(p, p + size);
    return ok();
}
FAKE(host_sync)(ze_command_list_handle_t, uint64_t) {
    LOCK;
    g_fake.log.push_back("sync");
    return std::exchange(g_failed, false) ? ZE_RESULT_ERROR_DEVICE_LOST : ok();
}
// Images: 3-D single-channel float only (all Tack makes), filled from USM memory.
FAKE(image_create)
(ze_context_handle_t, ze_device_handle_t, const ze_image_desc_t* d, ze_image_handle_t* out) {
    LOCK;
    const ze_image_format_t& f = d->format;
    if (d->type != ZE_IMAGE_TYPE_3D || f.layout != ZE_IMAGE_FORMAT_LAYOUT_32 ||
        f.type != ZE_IMAGE_FORMAT_TYPE_FLOAT || f.x != ZE_IMAGE_FORMAT_SWIZZLE_R)
        return ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT;
    uint64_t limit = g_fake.max_image_dims_3d;
    if (d->width > limit || d->height > limit || d->depth > limit || d->miplevels != 0)
        return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    auto image = std::make_unique<FakeImage>();
    image->w = d->width, image->h = d->height, image->d = d->depth;
    image->texels.assign(image->w * image->h * image->d, -1.0f);  // unset texels show
    *out = reinterpret_cast<ze_image_handle_t>(image.get());
    g_images[image.get()] = std::move(image);
    ++g_fake.live_images;
    return ok();
}
FAKE(image_destroy)(ze_image_handle_t image) {
    LOCK;
    if (!g_images.erase(image)) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    --g_fake.live_images;
    g_fake.log.push_back("image-destroy");
    return ok();
}
FAKE(image_copy)
(ze_command_list_handle_t, ze_image_handle_t image, const void* src,
 const ze_image_region_t* region, ze_event_handle_t, uint32_t, ze_event_handle_t*) {
    LOCK;
    auto it = g_images.find(image);
    if (it == g_images.end()) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (region) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;  // Tack copies whole images
    std::vector<float>& texels = it->second->texels;
    std::size_t bytes = texels.size() * sizeof(float);
    // The source must be USM memory the device reads, all of it inside one allocation.
    bool inside = false;
    for (auto* live : {&g_fake.device, &g_fake.host}) {
        for (auto& [start, n] : *live) {
            auto* s = static_cast<const char*>(start);
            auto* p = static_cast<const char*>(src);
            inside = inside || (p >= s && p + bytes <= s + n);
        }
    }
    if (!inside) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    std::memcpy(texels.data(), src, bytes);
    g_fake.log.push_back("image-copy");
    return ok();
}
#undef FAKE

}  // namespace

FakeZe& fake() {
    return g_fake;
}

void reset_fake() {
    LOCK;
    // A backend that outlives the test (a kernel's cache may hold it) frees its blocks later:
    // the fake refuses those pointers then, so nothing is freed twice or leaked.
    for (auto* live : {&g_fake.device, &g_fake.host})
        for (auto& [p, n] : *live)
            std::free(p);
    g_images.clear();
    g_failed = false;
    g_fake = FakeZe{};
}

const runtime::level_zero::ZeApi& fake_api() {
    static runtime::level_zero::ZeApi api;
    api = runtime::level_zero::ZeApi{init,
                                     driver_get,
                                     driver_props,
                                     api_version,
                                     extensions,
                                     device_get,
                                     device_props,
                                     compute_props,
                                     module_props,
                                     image_props,
                                     queue_groups,
                                     context_create,
                                     list_create,
                                     barrier,
                                     copy,
                                     fill,
                                     launch,
                                     pool_create,
                                     event_create,
                                     event_sync,
                                     event_reset,
                                     alloc_device,
                                     alloc_host,
                                     mem_free,
                                     mem_free_ext,
                                     module_create,
                                     module_destroy,
                                     log_string,
                                     log_destroy,
                                     native_binary,
                                     kernel_create,
                                     group_size,
                                     set_arg,
                                     image_create,
                                     image_destroy,
                                     image_copy,
                                     g_fake.host_sync ? host_sync : nullptr,
                                     alloc_props,
                                     "fake"};
    return api;
}

std::string log_since(std::size_t from) {
    LOCK;
    std::string out;
    for (std::size_t i = from; i < g_fake.log.size(); ++i)
        out += (out.empty() ? "" : " ") + g_fake.log[i];
    return out;
}

}  // namespace tack::level_zero_test
