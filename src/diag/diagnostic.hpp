#pragma once
// User-facing diagnostics. The kind decides the exception type a host (C++ API or Python)
// raises; the message follows the public contract's wording; render() adds the location header,
// the source line and a caret.

#include <stdexcept>
#include <string>
#include <vector>

#include "diag/source.hpp"
#include "tack/error_kind.hpp"

namespace tack::diag {

/// Which exception a diagnostic becomes (CONTRACT C28). Kept in one place so the C++ API and the
/// Python bindings agree.
// The public list (tack/error_kind.hpp): a diagnostic's kind is the exception it becomes.
using ErrorKind = ::tack::ErrorKind;
using ::tack::error_kind_name;

struct Diagnostic {
    ErrorKind kind = ErrorKind::UnsupportedSyntax;
    std::string
        message;  // complete message, e.g. "Kernel 'k': unsupported Assert at line 4, column 9"
    SourceFilePtr file;  // may be null for errors with no source position
    SourceRange range;

    int line() const;    // absolute 1-based line, 0 when unknown
    int column() const;  // absolute 1-based column, 0 when unknown
    /// "path:line:col: error: message\n  <source line>\n  ^~~~\n"
    std::string render() const;
};

/// "at line L, column C" for a position, in the user's file coordinates.
std::string at_position(const SourceFile& file, SourceRange range);

/// The exception every compiler layer throws for a user error. Carries all diagnostics found
/// (tackc check prints them all); what() is the rendered text of the first.
class CompileError : public std::runtime_error {
  public:
    explicit CompileError(std::vector<Diagnostic> diags);
    explicit CompileError(Diagnostic diag)
        : CompileError(std::vector<Diagnostic>{std::move(diag)}) {}
    const std::vector<Diagnostic>& diagnostics() const { return diags_; }
    const Diagnostic& first() const { return diags_.front(); }

  private:
    std::vector<Diagnostic> diags_;
};

/// Builds a Diagnostic and throws it as a CompileError.
[[noreturn]] void raise(ErrorKind kind, std::string message, SourceFilePtr file = nullptr,
                        SourceRange range = {});

/// Internal invariant violated (a compiler bug, never user input). Separate from CompileError so
/// that fuzzing can tell the two apart.
class InternalError : public std::logic_error {
  public:
    using std::logic_error::logic_error;
};

#define TACK_ASSERT(cond, msg)                                                                   \
    do {                                                                                         \
        if (!(cond)) throw ::tack::diag::InternalError(std::string("internal error: ") + (msg)); \
    } while (0)

}  // namespace tack::diag
