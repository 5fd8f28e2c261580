#include "runtime/level_zero/ze_api.hpp"

#include <cstdio>

namespace tack::runtime::level_zero {

namespace {

#define TACK_X(name, ret, params) #name,
constexpr std::string_view kRequired[] = {TACK_ZE_FUNCTIONS(TACK_X)};
constexpr std::string_view kOptional[] = {TACK_ZE_OPTIONAL_FUNCTIONS(TACK_X)};
#undef TACK_X

}  // namespace

const ZeApi* ze_api(std::string* why) {
    return gpu::load_api<ZeApi>(why);
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
