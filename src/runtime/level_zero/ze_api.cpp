#include "runtime/level_zero/ze_api.hpp"

#include <dlfcn.h>

#include <cstdio>

namespace tack::runtime::level_zero {

namespace {

struct Loaded {
    ZeApi api;
    std::string error;  // empty when every required symbol resolved
};

// The versioned soname is what libze1 installs; the bare name exists only with libze-dev.
constexpr const char* kLibraries[] = {"libze_loader.so.1", "libze_loader.so"};

Loaded load() {
    Loaded out;
    void* lib = nullptr;
    std::string tried;
    for (const char* name : kLibraries) {
        lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            out.api.library = name;
            break;
        }
        const char* e = dlerror();
        tried += std::string(tried.empty() ? "" : "; ") + (e ? e : name);
    }
    if (!lib) {
        out.error = "the Level Zero loader libze_loader.so.1 was not found (" + tried +
                    "); install the oneAPI Level Zero loader (libze1)";
        return out;
    }
#define TACK_X(name, ret, params)                                      \
    out.api.name = reinterpret_cast<ret(*) params>(dlsym(lib, #name)); \
    if (!out.api.name && out.error.empty())                            \
        out.error = out.api.library + " lacks " #name " (the loader is older than API 1.0)";
    TACK_ZE_FUNCTIONS(TACK_X)
#undef TACK_X
#define TACK_X(name, ret, params) out.api.name = reinterpret_cast<ret(*) params>(dlsym(lib, #name));
    TACK_ZE_OPTIONAL_FUNCTIONS(TACK_X)
#undef TACK_X
    return out;
}

#define TACK_X(name, ret, params) #name,
constexpr std::string_view kRequired[] = {TACK_ZE_FUNCTIONS(TACK_X)};
constexpr std::string_view kOptional[] = {TACK_ZE_OPTIONAL_FUNCTIONS(TACK_X)};
#undef TACK_X

}  // namespace

const ZeApi* ze_api(std::string* why) {
    static const Loaded loaded = load();
    if (!loaded.error.empty()) {
        if (why) *why = loaded.error;
        return nullptr;
    }
    return &loaded.api;
}

std::span<const std::string_view> ze_required_functions() {
    return kRequired;
}

std::span<const std::string_view> ze_optional_functions() {
    return kOptional;
}

std::string ze_result_name(ze_result_t result) {
    struct Name {
        ze_result_t code;
        const char* name;
    };
    static constexpr Name kNames[] = {
        {ZE_RESULT_NOT_READY, "ZE_RESULT_NOT_READY"},
        {ZE_RESULT_ERROR_DEVICE_LOST, "ZE_RESULT_ERROR_DEVICE_LOST"},
        {ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY"},
        {ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"},
        {ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE"},
        {ZE_RESULT_ERROR_MODULE_LINK_FAILURE, "ZE_RESULT_ERROR_MODULE_LINK_FAILURE"},
        {ZE_RESULT_ERROR_UNINITIALIZED, "ZE_RESULT_ERROR_UNINITIALIZED"},
        {ZE_RESULT_ERROR_UNSUPPORTED_VERSION, "ZE_RESULT_ERROR_UNSUPPORTED_VERSION"},
        {ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE"},
        {ZE_RESULT_ERROR_INVALID_ARGUMENT, "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
        {ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "ZE_RESULT_ERROR_INVALID_NULL_HANDLE"},
        {ZE_RESULT_ERROR_INVALID_NULL_POINTER, "ZE_RESULT_ERROR_INVALID_NULL_POINTER"},
        {ZE_RESULT_ERROR_INVALID_SIZE, "ZE_RESULT_ERROR_INVALID_SIZE"},
        {ZE_RESULT_ERROR_INVALID_KERNEL_NAME, "ZE_RESULT_ERROR_INVALID_KERNEL_NAME"},
        {ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY"},
        {ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION,
         "ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION"},
        {ZE_RESULT_ERROR_UNKNOWN, "ZE_RESULT_ERROR_UNKNOWN"},
    };
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%x", static_cast<unsigned>(result));
    for (const auto& n : kNames)
        if (n.code == result) return std::string(n.name) + " (" + hex + ")";
    return std::string("Level Zero error ") + hex;
}

}  // namespace tack::runtime::level_zero
