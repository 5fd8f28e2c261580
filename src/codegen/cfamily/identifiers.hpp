#pragma once
// Private identifier namespace of generated code (CONTRACT A10): every user name keeps its
// identity whatever it spells in the target (`float`, `threadIdx`, `sin`, Unicode).

#include <string>
#include <string_view>

#include "support/identifiers.hpp"

namespace tack::codegen::cfamily {

using support::encode_identifier;

/// "tack_kernel_" + encode_identifier(name); the CPU's entry name uses the same encoding.
std::string kernel_entry_name(std::string_view kernel_name);

}  // namespace tack::codegen::cfamily
