#pragma once
// Semantic analysis: source validation, name resolution, @tack.func inlining, type inference and
// lowering of one kernel for one argument signature into the typed IR.

#include <vector>

#include "diag/diagnostic.hpp"
#include "frontend/ast.hpp"
#include "ir/ir.hpp"
#include "sema/environment.hpp"
#include "sema/type.hpp"

namespace tack::sema {

/// Vectors have 1 to 64 components (generous: vectors are scalarized, so code size grows with
/// n), matrices 1x1 to 4x4 (CONTRACT A28): kernel values, vector fields (tack.Vector.field reads
/// it from the extension) and tackc's --args alike.
inline constexpr int kMaxVectorComponents = 64;
inline constexpr int kMaxMatrixExtent = 4;

/// Source validation (CONTRACT A2, A5, A11, A12, A17, A20): runs on the original AST, including
/// unreachable statements, and resolves names through `env` (NameError for unbound reads,
/// recursion through @tack.func calls). Returns every diagnostic found; empty when clean.
/// Needs no argument types: this is what `tackc check` runs.
/// The checks of a kernel's final `return` (DECISIONS G7: placement, annotation, reads of
/// loop-only locals) that need no name resolution, so they run when a kernel is decorated.
std::vector<diag::Diagnostic> validate_result(const frontend::FunctionDef& fn,
                                              const diag::SourceFilePtr& file);

std::vector<diag::Diagnostic> validate(const frontend::FunctionDef& fn,
                                       const diag::SourceFilePtr& file, const Environment& env);

/// validate() of `fn` plus validate() of every @tack.func it reaches through calls, each once:
/// what compiling one kernel must check (CONTRACT A2). Diagnostics in discovery order.
std::vector<diag::Diagnostic> validate_with_callees(const frontend::FunctionDef& fn,
                                                    const diag::SourceFilePtr& file,
                                                    const Environment& env);

/// Lowers a validated @tack.kernel for one argument signature: inlines @tack.func calls,
/// infers types (CONTRACT B2-B8, weak float literals, one storage type per local by widening
/// fixpoint) and produces a verified ir::Kernel. Throws diag::CompileError (TypeError for type
/// errors, with position) on failure. Array extents appear as ir::ArrayDim; specialization to
/// concrete shapes is a pass.
ir::Kernel lower_kernel(const frontend::FunctionDef& fn, const diag::SourceFilePtr& file,
                        const Environment& env, const std::vector<Type>& args);

/// "f32[:],f32[:,:],f32" -> argument Types (tackc --args). Throws CompileError(ValueError) on bad
/// text.
std::vector<Type> parse_arg_types(std::string_view text);

}  // namespace tack::sema
