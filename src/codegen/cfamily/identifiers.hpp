#pragma once
// Private identifier namespace of generated code (CONTRACT A10): every user name keeps its
// identity whatever it spells in the target (`float`, `threadIdx`, `sin`, Unicode).

#include <string>
#include <string_view>

namespace tack::codegen::cfamily {

/// Injective ASCII encoding: [A-Za-z0-9] stay, '_' becomes "__", every other byte "_XX"
/// (uppercase hex). After a '_' comes either '_' or a hex digit, so it decodes uniquely; a
/// suffix that starts with '_' and a non-hex letter ("_v12") can never be produced by it.
std::string encode_identifier(std::string_view name);

/// "tack_kernel_" + encode_identifier(name); the CPU's entry name uses the same encoding.
std::string kernel_entry_name(std::string_view kernel_name);

}  // namespace tack::codegen::cfamily
