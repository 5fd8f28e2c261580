#pragma once
// The one injective ASCII encoding of user names in generated code (CONTRACT A10), shared by the
// LLVM and C-family generators so a kernel's symbol is spelled the same on every backend.

#include <string>
#include <string_view>

namespace tack::support {

/// [A-Za-z0-9] stay, '_' becomes "__", every other byte "_XX" (uppercase hex). After a '_'
/// comes either '_' or a hex digit, so it decodes uniquely; a suffix that starts with '_' and a
/// non-hex letter ("_v12") can never be produced by it. Unicode names keep their identity.
std::string encode_identifier(std::string_view name);

}  // namespace tack::support
