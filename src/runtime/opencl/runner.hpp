#pragma once
// A minimal OpenCL program runner: one device, one context, one in-order queue; build a source,
// copy buffers in, launch one NDRange, read back. The OpenCL backend wraps it; the C-family
// tests run generated OpenCL C on PoCL through it with no GPU.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/opencl/cl_api.hpp"

namespace tack::runtime::opencl {

/// No fast math: f32 division and sqrt correctly rounded (CONTRACT B20; OpenCL 1.2 allows
/// 2.5 ULP division without it).
inline constexpr const char* kBuildOptions = "-cl-fp32-correctly-rounded-divide-sqrt";

struct ClDeviceInfo {
    std::string platform, name, version, c_version, extensions;
    bool fp64 = false;           // cl_khr_fp64
    bool int64_atomics = false;  // cl_khr_int64_base_atomics
    size_t max_work_group_size = 0;
    uint64_t local_mem_bytes = 0;
    bool has_extension(const std::string& ext) const;
};

/// One launch argument: a buffer copied to the device (and back when `read_back`), a value
/// passed by clSetKernelArg, or a read-only 3-D image of one float channel (the C dialect's
/// hardware texture form, run on PoCL by the C-family tests).
struct ClArg {
    bool is_buffer = false;
    void* data = nullptr;
    size_t bytes = 0;
    bool read_back = false;
    size_t image_whd[3] = {0, 0, 0};  // nonzero: an image of these extents from `data`
    static ClArg buffer(void* data, size_t bytes, bool read_back = true) {
        return {true, data, bytes, read_back};
    }
    static ClArg value(const void* data, size_t bytes) {
        return {false, const_cast<void*>(data), bytes, false};
    }
    static ClArg image3d(const float* texels, size_t w, size_t h, size_t d) {
        return {false, const_cast<float*>(texels), w * h * d * sizeof(float), false, {w, h, d}};
    }
};

class ClRunner {
  public:
    /// Device `index` counts every device of every platform in order; -1 reads
    /// TACK_OPENCL_DEVICE (default 0). nullptr with `*why` when OpenCL or the device is missing.
    static std::unique_ptr<ClRunner> create(std::string* why, int index = -1);
    ~ClRunner();
    ClRunner(const ClRunner&) = delete;
    ClRunner& operator=(const ClRunner&) = delete;

    const ClDeviceInfo& device() const { return info_; }

    /// Builds `source`, launches `entry` over ceil(items / local_size) groups of `local_size`
    /// lanes (the global size rounded up; the kernel guards its tail), waits, reads back.
    /// Returns "" on success, else the error (with the build log for a build failure).
    std::string run(const std::string& source, const std::string& entry, std::vector<ClArg>& args,
                    uint64_t items, size_t local_size = 256,
                    const std::string& options = kBuildOptions);

  private:
    ClRunner() = default;
    std::string build(const std::string& source, const std::string& options, cl_program* out);
    std::string launch(cl_program program, const std::string& entry, std::vector<ClArg>& args,
                       uint64_t items, size_t local_size);
    cl_mem create_image3d(const ClArg& a, cl_int* err);

    const ClApi* api_ = nullptr;
    cl_device_id device_ = nullptr;
    cl_context context_ = nullptr;
    cl_command_queue queue_ = nullptr;
    ClDeviceInfo info_;
};

}  // namespace tack::runtime::opencl
