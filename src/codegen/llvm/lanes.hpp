#pragma once
// Whole-function vectorization of the parallel loop ("SIMD lanes", as ISPC or a work-group
// vectorizer does it): W consecutive iterations of the innermost parallel dimension run as the
// W lanes of one body whose control flow has become masks.
//
// plan_lanes() (lanes_plan.cpp) decides whether a kernel qualifies and computes the shape of
// every variable and expression across the lanes; LaneEmitter (lanes.cpp) emits the lane loop
// that replaces the scalar per-iteration loop of the chunk function. A kernel that does not
// qualify keeps the scalar loop; the plan's `reason` says why (tackc inspect prints it).
//
// Shapes. Uniform: one scalar holds every lane's value. Linear (i64 only): lane l holds
// base + l * stride, with base the scalar value of lane 0. Varying: a <W x T> vector. Uniform
// and Linear values are computed by the scalar FunctionEmitter (a Linear variable's scalar slot
// holds lane 0's value, so any uniform or linear expression evaluated by it gives lane 0's
// value, which is the value of a uniform one and the base of a linear one).
//
// Control. Every statement runs under a mask of active lanes, which is never empty when code
// runs (a side whose mask is empty is skipped, loops run while any lane is active, the rest of
// a block is skipped once break/continue left it without lanes), so a uniform load or store
// may run as one scalar access. `if` runs both sides under complementary masks; loops keep a
// shared trip counter and drop lanes as their conditions fail or they break; `continue` of the
// parallel loop retires the lane for the rest of the iteration. An assignment to a varying
// variable blends under the mask wherever some inactive lane may still read the variable later
// (inside a varying `if` or a loop whose lanes can diverge).
//
// Equivalence. Each lane performs the scalar path's operations on the same values: the same
// arith.hpp helpers on vectors (integer semantics lane by lane, no reassociation, no FMA
// contraction, the same libm calls lane by lane). Memory effects of one statement happen for
// lanes in lane order (LLVM's masked scatter is ordered), which is the serial order of the
// iterations; between statements lanes interleave, which only a cross-iteration race (the
// caller's bug, CONTRACT E13) can observe.

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "codegen/llvm/emitter.hpp"
#include "codegen/llvm/llvm_codegen.hpp"

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

class LaneEmitter {
  public:
    /// Call after the prologue: copies the body's variables into lane form.
    LaneEmitter(FunctionEmitter& em, const ir::Kernel& k, const LanePlan& plan);
    ~LaneEmitter();
    /// Runs iterations j in [lo, hi) of the innermost dimension (variable = start + j * step)
    /// in groups of W lanes; the last group runs with the lanes past `hi` masked off.
    void emit_iterations(llvm::Value* lo, llvm::Value* hi, llvm::Value* start, llvm::Value* step);

  private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tack::codegen::llvm_cpu::detail
