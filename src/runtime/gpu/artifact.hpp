#pragma once
// What CUDA and HIP store in the disk cache for one variant (seed "Disk cache"): the code the
// vendor compiler made (PTX, a code object) with the entry name and the parameter and scalar
// pack layout, so a second process loads it with no code generation and no vendor compiler.
// Pack arrays are device memory of a process: load_variant makes them anew.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codegen/cfamily/emitter.hpp"

namespace tack::runtime::gpu {

struct CodeArtifact {
    std::vector<std::uint8_t> code;
    codegen::cfamily::KernelAbi abi;  // entry, params, packs, argument indices, flags
};

std::vector<std::uint8_t> encode_artifact(const CodeArtifact& a);
/// nullopt for bytes that are not an artifact of this version (the caller compiles).
std::optional<CodeArtifact> decode_artifact(std::span<const std::uint8_t> bytes);

}  // namespace tack::runtime::gpu
