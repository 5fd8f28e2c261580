#pragma once
// DECISIONS G7 on every GPU backend: a kernel's `return expr` evaluated on the host after its
// launch, with the IR's own scalar semantics (ir/eval.hpp); loads read single elements back from
// the device (a wait, as every host read is), and the math builtins eval.hpp declines call the
// host's libm in the result's precision.

#include <cstdint>
#include <functional>

#include "ir/eval.hpp"
#include "ir/ir.hpp"

namespace tack::runtime::gpu {

struct ResultInputs {
    const ir::Kernel* kernel = nullptr;
    const std::uint64_t* slots = nullptr;  // one per parameter, as execute() receives them
    /// Reads `bytes` at byte `offset` of array parameter `param` into `dst`.
    std::function<void(int param, std::size_t offset, void* dst, std::size_t bytes)> read;
};

/// Evaluates kernel->result into `out` (8 bytes: integer bits, f32 bits in the low 4 bytes).
void evaluate_result(const ResultInputs& in, void* out);

}  // namespace tack::runtime::gpu
