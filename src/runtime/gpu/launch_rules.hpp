#pragma once
// The launch rules every GPU backend applies, in one place (CONTRACT D10, D12, D13, E4, E6):
// group geometry, the launch-size limit, the 256-lane requirement of collectives, uniform
// participation, and the plan of a device reduction. Backends keep only what differs: how they
// compile, load, launch and wait. Pure functions, tested without a device.

#include <array>
#include <cstdint>
#include <string_view>

#include "codegen/cfamily/emitter.hpp"
#include "ir/ir.hpp"
#include "runtime/backend.hpp"

namespace tack::runtime::gpu {

/// Whether a texture of extents `whd` fits a device whose smallest 3-D texture limit is `max`
/// (a non-positive limit is unbounded, as HIP reports some; CONTRACT E5).
inline bool texture_fits(const std::array<std::int64_t, 3>& whd, std::int64_t max) {
    for (std::int64_t e : whd)
        if (e < 1 || (max > 0 && e > max)) return false;
    return true;
}

/// Lanes per group that collectives need (CONTRACT D12) and reductions use (E4).
inline constexpr std::uint64_t kCollectiveLanes = 256;

/// How one device maps iterations to groups.
struct Geometry {
    std::string_view api;     // "CUDA", "OpenCL", ...: named in the launch-size message
    std::uint64_t group = 0;  // lanes per group (256 unless the device admits fewer)
    std::uint64_t limit = 0;  // the most iterations one launch indexes (D10)

    /// ceil(total / group) for total > 0.
    std::uint64_t groups(std::int64_t total) const {
        return (static_cast<std::uint64_t>(total) + group - 1) / group;
    }
};

/// D10: ValueError "Kernel 'k': N iterations exceed the M that one <api> launch can index; ...".
void check_launch_size(std::string_view kernel, std::int64_t total, const Geometry& g);
/// D12, per device: collectives need 256-lane groups.
void check_collective_lanes(std::string_view kernel, std::uint64_t group);
/// D12, per dispatch: a positive count must fill complete 256-lane groups.
void check_complete_groups(std::string_view kernel, std::int64_t total);

/// Every per-dispatch refusal, before anything is queued (D15): launch size, then complete
/// groups for a kernel with collectives. `total` > 0.
void check_dispatch(std::string_view kernel, const codegen::cfamily::KernelAbi& abi,
                    std::int64_t total, const Geometry& g);

/// The dialect's source of a specialized kernel after D13 (participation) and D12 (lanes of
/// this device): what a GPU backend compiles, and what a cached binary's ABI is rebuilt from.
codegen::cfamily::GeneratedSource generate(const ir::Kernel& kernel,
                                           const codegen::cfamily::Dialect& dialect,
                                           const Geometry& g);

/// The seed's completion rule: a launch completes before it returns when it binds memory
/// handed outside Tack (another library may read it with no Tack call in between) or samples a
/// hardware texture (the image could otherwise be destroyed before a queued launch read it).
inline bool completes_before_return(const codegen::cfamily::AbiParam& param, const Buffer& bound) {
    return bound.shared() || param.is_texture;
}

/// One device reduction (E4): `groups` groups of 256 lanes striding over `count` elements.
struct ReducePlan {
    std::uint64_t groups = 0;
    std::int64_t count = 0;
    std::int64_t stride = 0;  // groups * 256: the kernel's grid-stride
    float identity = 0.0f;    // out[0]'s value before the launch
};

/// The reduction of the first `count` f32 elements. `count` <= 0: sum gives 0.0 (returned as
/// `empty`), min/max raise ValueError, nothing is launched (CONTRACT C15). Groups are capped by
/// `max_groups` and by the launch limit.
struct ReduceDecision {
    bool empty = false;
    ReducePlan plan{};
};
ReduceDecision plan_reduction(std::int64_t count, ir::ReduceOp op, const Geometry& g,
                              std::uint64_t max_groups);

}  // namespace tack::runtime::gpu
