#pragma once
// Loading compiled code: zeModuleCreate from SPIR-V (IGC compiles it for the device) or from
// the native binary a previous process kept in the disk cache, and the disk-cache artifact that
// holds both (the seed: a native binary loads in about 0.2 ms, SPIR-V goes through IGC again,
// about 50 ms a kernel; a binary the driver refuses loads from the SPIR-V instead).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/level_zero/ze_api.hpp"

namespace tack::runtime::level_zero {

struct Artifact {
    std::vector<std::uint8_t> native;  // zeModuleGetNativeBinary; may be empty
    std::vector<std::uint8_t> spirv;
};

/// "TACKL0A1", then each part as a little-endian u64 length and its bytes.
std::vector<std::uint8_t> encode_artifact(const Artifact& a);
/// nullopt for anything that is not a whole encoding.
std::optional<Artifact> decode_artifact(std::span<const std::uint8_t> bytes);

struct LoadedModule {
    ze_module_handle_t module = nullptr;
    ze_kernel_handle_t kernel = nullptr;
};

/// zeModuleCreate from SPIR-V with `build_flags`, then zeKernelCreate(entry). RuntimeError with
/// the module build log and `source` when the driver refuses.
LoadedModule create_from_spirv(const ZeApi& api, ze_context_handle_t context,
                               ze_device_handle_t device, const std::vector<uint8_t>& spirv,
                               const std::string& build_flags, const std::string& entry,
                               const std::string& source);
/// nullopt when the driver refuses the binary (another driver or device built it).
std::optional<LoadedModule> create_from_native(const ZeApi& api, ze_context_handle_t context,
                                               ze_device_handle_t device,
                                               const std::vector<uint8_t>& native,
                                               const std::string& entry);
/// Empty when the driver cannot give one.
std::vector<std::uint8_t> native_binary(const ZeApi& api, ze_module_handle_t module);

}  // namespace tack::runtime::level_zero
