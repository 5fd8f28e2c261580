#pragma once
// f32 device reductions on the OpenCL backend (seed "Device reductions", CONTRACT C14-C18, E4):
// the kernels of codegen/cfamily/reduction.hpp, one program per operation built on first use
// and kept for the backend's life, launched on the backend's in-order queue.
//
// One launch: out[0] starts at the operation's identity, ceil(n / 256) groups of 256 lanes
// (capped, the kernel then strides over the array), and the host waits for the one float.

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>

#include "codegen/cfamily/reduction.hpp"
#include "runtime/gpu/launch_rules.hpp"
#include "runtime/opencl/device.hpp"
#include "runtime/opencl/queue.hpp"

namespace tack::runtime::opencl {

using ir::ReduceOp;

class Reducer {
  public:
    Reducer(const ClApi& api, const DeviceDesc& device, Queue& queue)
        : api_(api), device_(device), queue_(queue) {}
    ~Reducer();
    Reducer(const Reducer&) = delete;
    Reducer& operator=(const Reducer&) = delete;

    /// Runs `plan` (gpu::plan_reduction) over `mem`. nullopt when this device cannot run the
    /// kernel with 256-lane groups (the caller reduces on the host).
    std::optional<float> run(cl_mem mem, const gpu::ReducePlan& plan, ReduceOp op);

  private:
    /// The built kernel, or nullptr when it admits fewer than 256 lanes.
    cl_kernel kernel(ReduceOp op);

    const ClApi& api_;
    const DeviceDesc& device_;
    Queue& queue_;
    std::mutex mutex_;  // guards the lazily built programs
    std::array<cl_program, 3> programs_{};
    std::array<cl_kernel, 3> kernels_{};
    std::array<bool, 3> tried_{};
};

}  // namespace tack::runtime::opencl
