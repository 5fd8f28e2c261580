#pragma once
// Turning the compiler's diag::CompileError into the public exception classes (tack/tack.hpp).

#include <utility>

#include "diag/diagnostic.hpp"
#include "tack/tack.hpp"

namespace tack::driver {

/// A diagnostic with a source position becomes tack::CompileError; one without (environment
/// variables, host-side checks) becomes the plain class of its kind (ValueError, ...).
[[noreturn]] void throw_public(const diag::CompileError& error);
[[noreturn]] void throw_public(const diag::Diagnostic& diagnostic);

/// Runs f(), translating diag::CompileError.
template <class F>
decltype(auto) translate_compile_errors(F&& f) {
    try {
        return std::forward<F>(f)();
    } catch (const diag::CompileError& e) {
        throw_public(e);
    }
}

}  // namespace tack::driver
