#pragma once
// The key a compiled variant is stored under in the disk cache (cache/disk_cache.hpp): every
// input that can change the generated code, hashed (Warp's model: source, options, toolchain).

#include <string>

namespace tack::driver {

/// What a compiled variant's key is made of.
struct KeyParts {
    std::string ir_text;             // normalized IR text
    std::string variant_key;         // specialization (dtypes, shapes, constants)
    std::string target_fingerprint;  // triple, CPU name, features / device arch
    std::string llvm_version;        // or the GPU toolchain version
    std::string options;             // compile options (math mode, opt level, ...)
    // The Tack version (TACK_VERSION) and the compiler's build id are added by make_key itself.
};

/// The full key string stored in the entry: a readable prefix plus the SHA-256 of every part
/// (framed by length), so two different inputs never share a key by concatenation.
std::string make_key(const KeyParts& parts);

}  // namespace tack::driver
