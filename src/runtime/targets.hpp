#pragma once
// Every target code can be generated for, in one table: the C dialect it generates (none for
// the CPU's LLVM IR) and how it samples textures (CONTRACT A39, E5). tackc inspect, which has no
// device, reads a target's row directly; a device's backend starts from its row and may only
// narrow it (Backend::texture_in_hardware: HIP without image support, Level Zero without
// samplers or past the device's 3D image limit).

#include <array>
#include <cstdint>
#include <string_view>

#include "passes/passes.hpp"

namespace tack::runtime {

enum class TextureForm {
    Software,  // inline trilinear over the texture's private array (passes::lower_textures)
    Hardware,  // the dialect's texture and sampler over an image made from that array
};

struct Target {
    std::string_view name;     // cpu, opencl, cuda, hip, level_zero, metal
    std::string_view dialect;  // codegen::cfamily dialect; empty for the CPU (LLVM IR)
    TextureForm textures;
};

/// The row of `name`, or nullptr.
const Target* target_named(std::string_view name);
/// The row of `name`; tack::ValueError naming the targets for any other name.
const Target& find_target(std::string_view name);

class Backend;

/// The driver's texture choice for variants built on `backend` (Backend::texture_in_hardware);
/// `backend` must outlive the result.
passes::TextureInHardware textures_of(const Backend& backend);
/// The choice for `target`'s row, for code generated with no device (tackc inspect).
passes::TextureInHardware textures_of(const Target& target);

}  // namespace tack::runtime
