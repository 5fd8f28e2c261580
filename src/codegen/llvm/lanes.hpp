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

#include "codegen/llvm/emitter.hpp"
#include "codegen/llvm/lanes_plan.hpp"

namespace tack::codegen::llvm_cpu::detail {

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
