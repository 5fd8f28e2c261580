#pragma once
// Every target code can be generated for, in one table (driver/targets.cpp): the C dialect it
// generates (none for the CPU's LLVM IR), how it samples textures (CONTRACT A39, E5) and what
// the target can run: dtypes, atomic dtypes (the seed's ATOMIC_DTYPES), device reductions,
// workgroups, memory spaces, DLPack devices, and the install hint for a build or system that
// lacks it. tackc, which has no device, checks a kernel against a target's row; a device's
// backend answers its row (Backend's capability defaults, runtime/capabilities.cpp) and may
// only narrow it: OpenCL
// without fp64 or 64-bit atomics or 256-lane groups, HIP without image support, Level Zero
// without samplers or past the device's 3D image limit, Level Zero devices without fp64.

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "passes/passes.hpp"
#include "tack/dtype.hpp"

namespace tack::driver {

enum class TextureForm {
    Software,  // inline trilinear over the texture's private array (passes::lower_textures)
    Hardware,  // the dialect's texture and sampler over an image made from that array
};

struct Target {
    std::string_view name;          // cpu, opencl, cuda, hip, level_zero, metal
    std::string_view display_name;  // CPU, OpenCL, CUDA, ...
    std::string_view dialect;       // codegen::cfamily dialect; empty for the CPU (LLVM IR)
    TextureForm textures;
    DTypeSet dtypes;   // array dtypes (CONTRACT E1)
    DTypeSet atomics;  // atomic target dtypes, within the dialect's (E1; seed ATOMIC_DTYPES)
    bool device_reductions;
    bool workgroups;              // workgroup execution: shared arrays, barriers (E1)
    std::uint64_t private_bytes;  // local arrays' bytes one iteration (work-item) may hold
    std::span<const std::string_view> memory_spaces;  // memory_space() answers besides "cpu"
    std::span<const int> dlpack_imports;              // DLDeviceType codes wrap_ptr takes zero-copy
    int dlpack_export;                                // the DLDeviceType of exported arrays
    std::string_view install_hint;  // starts with "Requires" where something can be added
    /// Added to a DLPack import's refusal (the seed's dlpack_refusal_note; Metal's); or empty.
    std::string_view dlpack_refusal_note = {};
    /// The object field_from_ptr wraps (CONTRACT C19: Metal's "MTLBuffer"); empty: an address.
    std::string_view wraps_object = {};

    /// Its arrays are host memory (exported as DLPack's kDLCPU, 1): every pointer is "cpu" to it.
    constexpr bool host_memory() const { return dlpack_export == 1; }
};

/// Every row, in the order tools list them.
std::span<const Target> targets();
/// The row of `name`, or nullptr.
const Target* target_named(std::string_view name);
/// The row of `name`; tack::ValueError naming the targets for any other name.
const Target& find_target(std::string_view name);
/// The row of `name`, or for a name outside the table (a test's fake backend, which declares
/// every capability it has itself) a row that declares none.
const Target& row_of(std::string_view name);

/// What the driver's checks and its variant step read of where the code will run: a device's
/// (runtime::capabilities_of, its backend's answers) or, with no device, a target's row. A
/// device's `textures` asks its backend, so such a value must not outlive the backend: take it
/// for one compile, never store it.
struct Capabilities {
    std::string_view name, display_name;
    DTypeSet dtypes, atomics;
    bool workgroups = false;
    std::uint64_t private_bytes = 0;
    /// Which textures the variant samples in hardware (CONTRACT E5); null: none.
    passes::TextureInHardware textures;
};

Capabilities capabilities_of(const Target& target);

}  // namespace tack::driver
