#pragma once
// The OpenCL API, loaded at run time with dlopen("libOpenCL.so.1") from one list of signatures
// (STYLE habit 5): the build needs no OpenCL SDK, and a machine without an ICD loader gets an
// "unavailable" explanation instead of a link error or a crash.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/gpu/loader.hpp"

namespace tack::runtime::opencl {

// The few OpenCL types and constants Tack uses (values from the Khronos cl.h).
using cl_int = int32_t;
using cl_uint = uint32_t;
using cl_ulong = uint64_t;
using cl_bitfield = cl_ulong;
using cl_platform_id = struct _cl_platform_id*;
using cl_device_id = struct _cl_device_id*;
using cl_context = struct _cl_context*;
using cl_command_queue = struct _cl_command_queue*;
using cl_program = struct _cl_program*;
using cl_kernel = struct _cl_kernel*;
using cl_mem = struct _cl_mem*;
using cl_event = struct _cl_event*;

inline constexpr cl_int CL_SUCCESS = 0;
inline constexpr cl_bitfield CL_DEVICE_TYPE_ALL = 0xFFFFFFFF;
inline constexpr cl_uint CL_PLATFORM_VERSION = 0x0901;
inline constexpr cl_uint CL_PLATFORM_NAME = 0x0902;
inline constexpr cl_uint CL_DEVICE_ADDRESS_BITS = 0x100D;
inline constexpr cl_uint CL_DRIVER_VERSION = 0x102D;
inline constexpr cl_uint CL_PROGRAM_BINARY_SIZES = 0x1165;
inline constexpr cl_uint CL_PROGRAM_BINARIES = 0x1166;
inline constexpr cl_uint CL_KERNEL_WORK_GROUP_SIZE = 0x11B0;
inline constexpr cl_bitfield CL_MEM_USE_HOST_PTR = 1 << 3;
inline constexpr cl_uint CL_FALSE = 0;
inline constexpr cl_uint CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004;
inline constexpr cl_uint CL_DEVICE_LOCAL_MEM_SIZE = 0x1023;
inline constexpr cl_uint CL_DEVICE_NAME = 0x102B;
inline constexpr cl_uint CL_DEVICE_VERSION = 0x102F;
inline constexpr cl_uint CL_DEVICE_EXTENSIONS = 0x1030;
inline constexpr cl_uint CL_DEVICE_OPENCL_C_VERSION = 0x103D;
inline constexpr cl_uint CL_PROGRAM_BUILD_LOG = 0x1183;
inline constexpr cl_bitfield CL_MEM_READ_WRITE = 1 << 0;
inline constexpr cl_bitfield CL_MEM_COPY_HOST_PTR = 1 << 5;
inline constexpr cl_uint CL_TRUE = 1;
inline constexpr cl_uint CL_EVENT_COMMAND_EXECUTION_STATUS = 0x11D3;
inline constexpr cl_int CL_COMPLETE = 0;
// Images (ClRunner's image arguments, for the C-family tests of the hardware texture form).
inline constexpr cl_bitfield CL_MEM_READ_ONLY = 1 << 2;
inline constexpr cl_uint CL_R = 0x10B0;
inline constexpr cl_uint CL_FLOAT = 0x10DE;
inline constexpr cl_uint CL_MEM_OBJECT_IMAGE3D = 0x10F2;
inline constexpr cl_uint CL_DEVICE_IMAGE_SUPPORT = 0x1016;
struct ClImageFormat {
    cl_uint channel_order, channel_data_type;
};
struct ClImageDesc {  // cl_image_desc (OpenCL 1.2)
    cl_uint image_type = 0;
    size_t width = 0, height = 0, depth = 0, array_size = 0, row_pitch = 0, slice_pitch = 0;
    cl_uint num_mip_levels = 0, num_samples = 0;
    cl_mem buffer = nullptr;
};

// name, return type, parameter list
#define TACK_CL_FUNCTIONS(X)                                                                       \
    X(clGetPlatformIDs, cl_int, (cl_uint, cl_platform_id*, cl_uint*))                              \
    X(clGetPlatformInfo, cl_int, (cl_platform_id, cl_uint, size_t, void*, size_t*))                \
    X(clGetDeviceIDs, cl_int, (cl_platform_id, cl_bitfield, cl_uint, cl_device_id*, cl_uint*))     \
    X(clGetDeviceInfo, cl_int, (cl_device_id, cl_uint, size_t, void*, size_t*))                    \
    X(clCreateContext, cl_context,                                                                 \
      (const intptr_t*, cl_uint, const cl_device_id*, void*, void*, cl_int*))                      \
    X(clReleaseContext, cl_int, (cl_context))                                                      \
    X(clCreateCommandQueue, cl_command_queue, (cl_context, cl_device_id, cl_bitfield, cl_int*))    \
    X(clReleaseCommandQueue, cl_int, (cl_command_queue))                                           \
    X(clCreateProgramWithSource, cl_program,                                                       \
      (cl_context, cl_uint, const char**, const size_t*, cl_int*))                                 \
    X(clBuildProgram, cl_int,                                                                      \
      (cl_program, cl_uint, const cl_device_id*, const char*, void*, void*))                       \
    X(clGetProgramBuildInfo, cl_int, (cl_program, cl_device_id, cl_uint, size_t, void*, size_t*))  \
    X(clReleaseProgram, cl_int, (cl_program))                                                      \
    X(clCreateKernel, cl_kernel, (cl_program, const char*, cl_int*))                               \
    X(clReleaseKernel, cl_int, (cl_kernel))                                                        \
    X(clSetKernelArg, cl_int, (cl_kernel, cl_uint, size_t, const void*))                           \
    X(clCreateBuffer, cl_mem, (cl_context, cl_bitfield, size_t, void*, cl_int*))                   \
    X(clEnqueueMarkerWithWaitList, cl_int,                                                         \
      (cl_command_queue, cl_uint, const cl_event*, cl_event*))                                     \
    X(clWaitForEvents, cl_int, (cl_uint, const cl_event*))                                         \
    X(clEnqueueCopyBuffer, cl_int,                                                                 \
      (cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint, const cl_event*,         \
       cl_event*))                                                                                 \
    X(clGetEventInfo, cl_int, (cl_event, cl_uint, size_t, void*, size_t*))                         \
    X(clReleaseEvent, cl_int, (cl_event))                                                          \
    X(clSetEventCallback, cl_int, (cl_event, cl_int, void (*)(cl_event, cl_int, void*), void*))    \
    X(clReleaseMemObject, cl_int, (cl_mem))                                                        \
    X(clEnqueueWriteBuffer, cl_int,                                                                \
      (cl_command_queue, cl_mem, cl_uint, size_t, size_t, const void*, cl_uint, const cl_event*,   \
       cl_event*))                                                                                 \
    X(clEnqueueReadBuffer, cl_int,                                                                 \
      (cl_command_queue, cl_mem, cl_uint, size_t, size_t, void*, cl_uint, const cl_event*,         \
       cl_event*))                                                                                 \
    X(clEnqueueNDRangeKernel, cl_int,                                                              \
      (cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*, cl_uint, \
       const cl_event*, cl_event*))                                                                \
    X(clFinish, cl_int, (cl_command_queue))                                                        \
    X(clFlush, cl_int, (cl_command_queue))                                                         \
    X(clCreateProgramWithBinary, cl_program,                                                       \
      (cl_context, cl_uint, const cl_device_id*, const size_t*, const unsigned char**, cl_int*,    \
       cl_int*))                                                                                   \
    X(clGetProgramInfo, cl_int, (cl_program, cl_uint, size_t, void*, size_t*))                     \
    X(clGetKernelWorkGroupInfo, cl_int,                                                            \
      (cl_kernel, cl_device_id, cl_uint, size_t, void*, size_t*))                                  \
    X(clEnqueueFillBuffer, cl_int,                                                                 \
      (cl_command_queue, cl_mem, const void*, size_t, size_t, size_t, cl_uint, const cl_event*,    \
       cl_event*))

// OpenCL 1.2 images (textures): optional.
#define TACK_CL_OPTIONAL_FUNCTIONS(X) \
    X(clCreateImage, cl_mem,          \
      (cl_context, cl_bitfield, const ClImageFormat*, const ClImageDesc*, void*, cl_int*))

/// The loaded entry points. Loaded once per process; never unloaded.
struct ClApi {
    TACK_GPU_API(TACK_CL_FUNCTIONS, TACK_CL_OPTIONAL_FUNCTIONS)
    static constexpr std::string_view kLibrary = "opencl";
};

/// The API, or nullptr with `*why` set ("OpenCL unavailable: libOpenCL.so.1 not found (...)").
const ClApi* cl_api(std::string* why);

/// "CL_BUILD_PROGRAM_FAILURE (-11)" style name of an error code.
std::string cl_error_name(cl_int code);

}  // namespace tack::runtime::opencl
