#pragma once
// The runtime's public errors: a backend that cannot start, and the driver's translation of
// compile errors (driver/errors.hpp).

#include <string>
#include <string_view>

#include "driver/errors.hpp"

namespace tack::runtime {

// The translation of compile errors is the driver's; dispatch and the bindings name it here.
using driver::throw_public;
using driver::translate_compile_errors;

/// RuntimeError "Cannot initialize '<backend>' backend: <why>" (CONTRACT C2: the prefix
/// tack/_devices.py replaces with the system and the install hint).
[[noreturn]] void backend_unavailable(std::string_view backend, const std::string& why);

}  // namespace tack::runtime
