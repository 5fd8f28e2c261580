#include "runtime/opencl/cl_api.hpp"

namespace tack::runtime::opencl {

const ClApi* cl_api(std::string* why) {
    return gpu::load_api<ClApi>(why);
}

std::string cl_error_name(cl_int code) {
    struct Name {
        cl_int code;
        const char* name;
    };
    static constexpr Name kNames[] = {
        {-1, "CL_DEVICE_NOT_FOUND"},         {-2, "CL_DEVICE_NOT_AVAILABLE"},
        {-3, "CL_COMPILER_NOT_AVAILABLE"},   {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
        {-5, "CL_OUT_OF_RESOURCES"},         {-6, "CL_OUT_OF_HOST_MEMORY"},
        {-11, "CL_BUILD_PROGRAM_FAILURE"},   {-30, "CL_INVALID_VALUE"},
        {-33, "CL_INVALID_DEVICE"},          {-34, "CL_INVALID_CONTEXT"},
        {-36, "CL_INVALID_COMMAND_QUEUE"},   {-38, "CL_INVALID_MEM_OBJECT"},
        {-44, "CL_INVALID_PROGRAM"},         {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
        {-46, "CL_INVALID_KERNEL_NAME"},     {-48, "CL_INVALID_KERNEL"},
        {-49, "CL_INVALID_ARG_INDEX"},       {-50, "CL_INVALID_ARG_VALUE"},
        {-51, "CL_INVALID_ARG_SIZE"},        {-52, "CL_INVALID_KERNEL_ARGS"},
        {-54, "CL_INVALID_WORK_GROUP_SIZE"}, {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    };
    for (const auto& n : kNames)
        if (n.code == code) return std::string(n.name) + " (" + std::to_string(code) + ")";
    return "OpenCL error " + std::to_string(code);
}

}  // namespace tack::runtime::opencl
