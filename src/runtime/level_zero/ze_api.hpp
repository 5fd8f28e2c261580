#pragma once
// The Level Zero API, loaded at run time with dlopen from one list of signatures (STYLE habit
// 5). The real ze_api.h (libze-dev) supplies the types only; nothing links the loader, so a
// machine without it gets an explanation instead of a link error.

#include <level_zero/ze_api.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/gpu/loader.hpp"

namespace tack::runtime::level_zero {

// name, return type, parameter list. Every entry point Tack calls that exists since API 1.0
// (zeMemFreeExt is 1.3 but exported by every loader that ships ze_api.h with its types).
#define TACK_ZE_FUNCTIONS(X)                                                                       \
    X(zeInit, ze_result_t, (ze_init_flags_t))                                                      \
    X(zeDriverGet, ze_result_t, (uint32_t*, ze_driver_handle_t*))                                  \
    X(zeDriverGetProperties, ze_result_t, (ze_driver_handle_t, ze_driver_properties_t*))           \
    X(zeDriverGetApiVersion, ze_result_t, (ze_driver_handle_t, ze_api_version_t*))                 \
    X(zeDriverGetExtensionProperties, ze_result_t,                                                 \
      (ze_driver_handle_t, uint32_t*, ze_driver_extension_properties_t*))                          \
    X(zeDeviceGet, ze_result_t, (ze_driver_handle_t, uint32_t*, ze_device_handle_t*))              \
    X(zeDeviceGetProperties, ze_result_t, (ze_device_handle_t, ze_device_properties_t*))           \
    X(zeDeviceGetComputeProperties, ze_result_t,                                                   \
      (ze_device_handle_t, ze_device_compute_properties_t*))                                       \
    X(zeDeviceGetModuleProperties, ze_result_t,                                                    \
      (ze_device_handle_t, ze_device_module_properties_t*))                                        \
    X(zeDeviceGetImageProperties, ze_result_t,                                                     \
      (ze_device_handle_t, ze_device_image_properties_t*))                                         \
    X(zeDeviceGetCommandQueueGroupProperties, ze_result_t,                                         \
      (ze_device_handle_t, uint32_t*, ze_command_queue_group_properties_t*))                       \
    X(zeContextCreate, ze_result_t,                                                                \
      (ze_driver_handle_t, const ze_context_desc_t*, ze_context_handle_t*))                        \
    X(zeCommandListCreateImmediate, ze_result_t,                                                   \
      (ze_context_handle_t, ze_device_handle_t, const ze_command_queue_desc_t*,                    \
       ze_command_list_handle_t*))                                                                 \
    X(zeCommandListAppendBarrier, ze_result_t,                                                     \
      (ze_command_list_handle_t, ze_event_handle_t, uint32_t, ze_event_handle_t*))                 \
    X(zeCommandListAppendMemoryCopy, ze_result_t,                                                  \
      (ze_command_list_handle_t, void*, const void*, size_t, ze_event_handle_t, uint32_t,          \
       ze_event_handle_t*))                                                                        \
    X(zeCommandListAppendMemoryFill, ze_result_t,                                                  \
      (ze_command_list_handle_t, void*, const void*, size_t, size_t, ze_event_handle_t, uint32_t,  \
       ze_event_handle_t*))                                                                        \
    X(zeCommandListAppendLaunchKernel, ze_result_t,                                                \
      (ze_command_list_handle_t, ze_kernel_handle_t, const ze_group_count_t*, ze_event_handle_t,   \
       uint32_t, ze_event_handle_t*))                                                              \
    X(zeEventPoolCreate, ze_result_t,                                                              \
      (ze_context_handle_t, const ze_event_pool_desc_t*, uint32_t, ze_device_handle_t*,            \
       ze_event_pool_handle_t*))                                                                   \
    X(zeEventCreate, ze_result_t,                                                                  \
      (ze_event_pool_handle_t, const ze_event_desc_t*, ze_event_handle_t*))                        \
    X(zeEventHostSynchronize, ze_result_t, (ze_event_handle_t, uint64_t))                          \
    X(zeEventHostReset, ze_result_t, (ze_event_handle_t))                                          \
    X(zeMemAllocDevice, ze_result_t,                                                               \
      (ze_context_handle_t, const ze_device_mem_alloc_desc_t*, size_t, size_t, ze_device_handle_t, \
       void**))                                                                                    \
    X(zeMemAllocHost, ze_result_t,                                                                 \
      (ze_context_handle_t, const ze_host_mem_alloc_desc_t*, size_t, size_t, void**))              \
    X(zeMemFree, ze_result_t, (ze_context_handle_t, void*))                                        \
    X(zeMemFreeExt, ze_result_t, (ze_context_handle_t, const ze_memory_free_ext_desc_t*, void*))   \
    X(zeModuleCreate, ze_result_t,                                                                 \
      (ze_context_handle_t, ze_device_handle_t, const ze_module_desc_t*, ze_module_handle_t*,      \
       ze_module_build_log_handle_t*))                                                             \
    X(zeModuleDestroy, ze_result_t, (ze_module_handle_t))                                          \
    X(zeModuleBuildLogGetString, ze_result_t, (ze_module_build_log_handle_t, size_t*, char*))      \
    X(zeModuleBuildLogDestroy, ze_result_t, (ze_module_build_log_handle_t))                        \
    X(zeModuleGetNativeBinary, ze_result_t, (ze_module_handle_t, size_t*, uint8_t*))               \
    X(zeKernelCreate, ze_result_t,                                                                 \
      (ze_module_handle_t, const ze_kernel_desc_t*, ze_kernel_handle_t*))                          \
    X(zeKernelSetGroupSize, ze_result_t, (ze_kernel_handle_t, uint32_t, uint32_t, uint32_t))       \
    X(zeKernelSetArgumentValue, ze_result_t, (ze_kernel_handle_t, uint32_t, size_t, const void*))  \
    X(zeImageCreate, ze_result_t,                                                                  \
      (ze_context_handle_t, ze_device_handle_t, const ze_image_desc_t*, ze_image_handle_t*))       \
    X(zeImageDestroy, ze_result_t, (ze_image_handle_t))                                            \
    X(zeCommandListAppendImageCopyFromMemory, ze_result_t,                                         \
      (ze_command_list_handle_t, ze_image_handle_t, const void*, const ze_image_region_t*,         \
       ze_event_handle_t, uint32_t, ze_event_handle_t*))

// Entry points a loader may lack. zeCommandListHostSynchronize is API 1.6 (loader 1.9+; the
// libze1 1.8 loader and ze_api.h 1.4 have neither symbol nor declaration): without it the
// backend uses a synchronous immediate list, as the seed does. zeMemGetAllocProperties (API
// 1.0) answers memory_space; without it every address is "cpu".
#define TACK_ZE_OPTIONAL_FUNCTIONS(X)                                                  \
    X(zeCommandListHostSynchronize, ze_result_t, (ze_command_list_handle_t, uint64_t)) \
    X(zeMemGetAllocProperties, ze_result_t,                                            \
      (ze_context_handle_t, const void*, ze_memory_allocation_properties_t*, ze_device_handle_t*))

/// The loaded entry points; optional ones may be null. Loaded once per process, never unloaded
/// (the seed: Level Zero cleanup at shutdown can crash once the driver is gone).
struct ZeApi {
    TACK_GPU_API(TACK_ZE_FUNCTIONS, TACK_ZE_OPTIONAL_FUNCTIONS)
    static constexpr std::string_view kLibrary = "level_zero";
};

/// The API, or nullptr with `*why` set (which library is missing or which symbol it lacks).
const ZeApi* ze_api(std::string* why);

/// Names of the required and optional entry points, in table order.
std::span<const std::string_view> ze_required_functions();
std::span<const std::string_view> ze_optional_functions();

/// "ZE_RESULT_ERROR_DEVICE_LOST (0x70000001)".
std::string ze_result_name(ze_result_t result);

}  // namespace tack::runtime::level_zero
