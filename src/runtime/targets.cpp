#include "runtime/targets.hpp"

#include <string>

#include "runtime/backend.hpp"
#include "runtime/errors.hpp"

namespace tack::runtime {

namespace {

// Level Zero compiles OpenCL C to SPIR-V, so it generates the OpenCL dialect; PoCL's OpenCL
// (the CPU device Tack's OpenCL backend targets) samples in software, as the issue asks, where
// Level Zero's GPUs have samplers.
constexpr Target kTargets[] = {
    {"cpu", "", TextureForm::Software},
    {"opencl", "opencl", TextureForm::Software},
    {"cuda", "cuda", TextureForm::Hardware},
    {"hip", "hip", TextureForm::Hardware},
    {"level_zero", "opencl", TextureForm::Hardware},
    {"metal", "metal", TextureForm::Hardware},
};

}  // namespace

const Target* target_named(std::string_view name) {
    for (const Target& t : kTargets) {
        if (t.name == name) return &t;
    }
    return nullptr;
}

const Target& find_target(std::string_view name) {
    if (const Target* t = target_named(name)) return *t;
    throw ValueError("unknown inspect target '" + std::string(name) +
                     "'. Use cpu, opencl, cuda, hip, level_zero or metal.");
}

passes::TextureInHardware textures_of(const Backend& backend) {
    return [&backend](const std::array<std::int64_t, 3>& whd) {
        return backend.texture_in_hardware(whd);
    };
}

passes::TextureInHardware textures_of(const Target& target) {
    if (target.textures == TextureForm::Software) return {};
    return [](const std::array<std::int64_t, 3>&) { return true; };
}

bool Backend::texture_in_hardware(const std::array<std::int64_t, 3>&) const {
    const Target* t = target_named(name());
    return t && t->textures == TextureForm::Hardware;
}

}  // namespace tack::runtime
