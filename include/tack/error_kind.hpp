#pragma once
// Which exception an error is: one list for the compiler's diagnostics (diag::ErrorKind is this
// type), the C++ API's exception classes (tack.hpp) and the Python exceptions the bindings raise.

namespace tack {

// X(kind, the exception's name, as diagnostics print it and Python raises it)
#define TACK_ERROR_KINDS(X)                                                                   \
    X(SyntaxError, "SyntaxError")                  /* text that is not Python at all */       \
    X(UnsupportedSyntax, "UnsupportedSyntaxError") /* Python the kernel language rejects */   \
    X(NameError, "NameError")                                                                 \
    X(TypeError, "TypeError")                                                                 \
    X(ValueError, "ValueError")                                                               \
    X(NotImplemented, "NotImplementedError") /* e.g. workgroup primitives on the CPU */       \
    X(Runtime, "RuntimeError")                                                                \
    X(Index, "IndexError")               /* debug mode: an out-of-bounds index in a kernel */ \
    X(ZeroDivision, "ZeroDivisionError") /* debug mode: an integer // or % by zero */

enum class ErrorKind {
#define TACK_X(kind, name) kind,
    TACK_ERROR_KINDS(TACK_X)
#undef TACK_X
};

/// "UnsupportedSyntaxError": the name of the exception of `kind`.
constexpr const char* error_kind_name(ErrorKind kind) {
    constexpr const char* kNames[] = {
#define TACK_X(kind, name) name,
        TACK_ERROR_KINDS(TACK_X)
#undef TACK_X
    };
    return kNames[static_cast<int>(kind)];
}

}  // namespace tack
