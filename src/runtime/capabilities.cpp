#include "runtime/capabilities.hpp"

#include "runtime/backend.hpp"

namespace tack::runtime {

driver::Capabilities capabilities_of(const Backend& backend) {
    return {backend.name(),
            backend.display_name(),
            backend.supported_dtypes(),
            backend.supported_atomic_dtypes(),
            backend.supports_workgroups(),
            backend.private_bytes(),
            textures_of(backend)};
}

passes::TextureInHardware textures_of(const Backend& backend) {
    return [&backend](const std::array<std::int64_t, 3>& whd) {
        return backend.texture_in_hardware(whd);
    };
}

// Backend's capability defaults: its target's row.

const driver::Target& Backend::target() const {
    return driver::row_of(name());
}

std::string_view Backend::display_name() const {
    std::string_view row = target().display_name;
    return row.empty() ? name() : row;
}

DTypeSet Backend::supported_dtypes() const {
    return target().dtypes;
}

DTypeSet Backend::target_atomic_dtypes() const {
    return target().atomics;
}

bool Backend::supports_device_reductions() const {
    return target().device_reductions;
}

bool Backend::supports_workgroups() const {
    return target().workgroups;
}

std::uint64_t Backend::private_bytes() const {
    return target().private_bytes;
}

std::vector<std::string> Backend::device_memory_spaces() const {
    const auto& spaces = target().memory_spaces;
    return {spaces.begin(), spaces.end()};
}

std::vector<int> Backend::dlpack_imports() const {
    const auto& codes = target().dlpack_imports;
    return {codes.begin(), codes.end()};
}

std::string_view Backend::dlpack_refusal_note() const {
    return target().dlpack_refusal_note;
}

std::string_view Backend::wraps_object() const {
    return target().wraps_object;
}

std::pair<int, int> Backend::dlpack_device() const {
    return {target().dlpack_export, device_ordinal()};
}

bool Backend::texture_in_hardware(const std::array<std::int64_t, 3>&) const {
    return target().textures == driver::TextureForm::Hardware;
}

}  // namespace tack::runtime
