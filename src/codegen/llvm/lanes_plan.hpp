#pragma once
// The lane plan (lanes_plan.cpp): whether a kernel runs its parallel loop as SIMD lanes and the
// shape of every variable and expression across the lanes; see lanes.hpp for the model. No LLVM
// types here, so tests and reports can ask for a plan.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "codegen/llvm/llvm_codegen.hpp"
#include "ir/ir.hpp"

namespace tack::codegen::llvm_cpu::detail {

struct Shape {
    enum Kind : uint8_t { Bottom, Uniform, Linear, Varying } kind = Bottom;
    uint64_t stride = 0;  // Linear only (wrapping i64 arithmetic), never 0
    static Shape uniform() { return {Uniform, 0}; }
    static Shape varying() { return {Varying, 0}; }
    static Shape linear(uint64_t stride) { return stride ? Shape{Linear, stride} : uniform(); }
    bool operator==(const Shape&) const = default;
};

struct LanePlan {
    int width = 0;       // W; 0 = the kernel keeps the scalar loop
    std::string reason;  // why not (width 0), or what decided W
    /// Variables the body assigns and their shapes; others (parameters, prologue locals, outer
    /// parallel dimensions) are uniform and read from the scalar emitter.
    std::unordered_map<const ir::Var*, Shape> vars;
    std::unordered_map<const ir::Expr*, Shape> exprs;  // every expression of the body
    /// Loops whose lanes can diverge: a lane-varying condition or bounds, or a break/continue
    /// under a lane-varying `if`. Their bodies blend assignments.
    std::unordered_set<const ir::Stmt*> divergent_loops;
    const ir::Var* lane_var = nullptr;  // the innermost parallel dimension's variable
};

/// Qualification and shape analysis. `vector_bytes` is the host's preferred vector width.
LanePlan plan_lanes(const ir::Kernel& k, Lanes mode, int vector_bytes);

/// The preferred vector width of the host target in bytes (64 with AVX-512, 32 with AVX2).
int host_vector_bytes();

}  // namespace tack::codegen::llvm_cpu::detail
