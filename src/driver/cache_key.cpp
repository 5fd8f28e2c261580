#include "driver/cache_key.hpp"

#include "support/hash.hpp"
#include "support/platform.hpp"

namespace tack::driver {

std::string make_key(const KeyParts& parts) {
    // The compiler's build: a rebuild of one version may generate other code.
    static const std::string build =
        support::platform::build_id_of(reinterpret_cast<const void*>(&make_key));
    support::Hasher hasher;
    hasher.field("tack-variant-key-v1")
        .field(parts.ir_text)
        .field(parts.variant_key)
        .field(parts.target_fingerprint)
        .field(parts.llvm_version)
        .field(parts.options)
        .field(TACK_VERSION)
        .field(build);
    return std::string("tack-") + TACK_VERSION + ":" + hasher.hex_digest();
}

}  // namespace tack::driver
