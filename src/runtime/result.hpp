#pragma once
// DECISIONS G7: a kernel's `return expr` evaluated on the host after its launch, with the IR's
// own scalar semantics (ir/eval.hpp); loads read single elements back from the device (a wait,
// as every host read is), and the math builtins eval.hpp declines call the host's libm in the
// result's precision. Every GPU backend evaluates results here, and debug mode does on every
// backend (the CPU's compiled result function has no checks), with the parallel loop's bounds.
//
// A load is never made outside its array: outside debug mode one past the array's storage is a
// KernelIndexError naming the array and the flat index; in debug mode the checks are the
// kernel's (passes/debug_checks.cpp): subscripts per axis, and integer `//` and `%` by zero.

#include <cstdint>
#include <functional>
#include <span>

#include "ir/eval.hpp"
#include "ir/ir.hpp"
#include "passes/passes.hpp"
#include "runtime/backend.hpp"

namespace tack::runtime {

/// Debug mode's checks of a result. The kernel is the one before shape specialization, so its
/// flattened subscripts can be split per axis and its ArrayDim nodes read `extent`.
struct ResultChecks {
    std::function<std::int64_t(const ir::Buffer& b, int dim)> extent;
    /// Raises the violation of `site` with its record values (subscripts, or the dividend).
    std::function<void(const passes::CheckSite& site, std::span<const std::int64_t> values)>
        violation;
};

struct ResultInputs {
    const ir::Kernel* kernel = nullptr;
    const std::uint64_t* slots = nullptr;    // one per parameter, as execute() receives them
    const Buffer* const* buffers = nullptr;  // one per parameter: the bound buffer or null
    /// Reads `bytes` at byte `offset` of array parameter `param` into `dst`.
    std::function<void(int param, std::size_t offset, void* dst, std::size_t bytes)> read;
    const ResultChecks* checks = nullptr;  // debug mode; null outside it
};

/// Evaluates kernel->result into `out` (8 bytes: integer bits, f32 bits in the low 4 bytes).
void evaluate_result(const ResultInputs& in, void* out);

/// Evaluates one expression of the kernel the same way (debug mode's loop bounds).
ir::Value evaluate(const ResultInputs& in, const ir::ExprPtr& e);

}  // namespace tack::runtime
