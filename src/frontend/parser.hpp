#pragma once
// Recursive-descent parser for Python module text, keeping what the kernel language needs.
//
// At module level it understands imports, `NAME = tack.constant(...)` assignments and
// definitions decorated with @tack.kernel / @tack.func (any spelling that resolves to them:
// `@tack.kernel`, `@tk.kernel` after `import tack as tk`, `@kernel` after
// `from tack import kernel`). Every other module-level statement is host code: it is lexed (so
// strings and brackets are tracked) and skipped, never parsed.

#include <vector>

#include "diag/diagnostic.hpp"
#include "frontend/ast.hpp"

namespace tack::frontend {

struct ParseResult {
    Module module;
    /// Syntax errors (ErrorKind::SyntaxError). A definition with a syntax error is left out of
    /// `module.functions`; parsing resumes at the next top-level statement.
    std::vector<diag::Diagnostic> errors;
};

ParseResult parse_module(diag::SourceFilePtr file);

/// Human-readable, byte-stable dump of a function's AST (for tests and `tackc inspect --mode ast`).
std::string dump(const FunctionDef& fn);
/// The same without source ranges (structure only), for tests that assert the tree shape.
std::string dump(const FunctionDef& fn, bool with_ranges);
/// One expression subtree; ranges as line:col when `file` is given, else omitted.
std::string dump(const Expr& expr, const diag::SourceFile* file);

}  // namespace tack::frontend
