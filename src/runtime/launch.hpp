#pragma once
// The launch length: the parallel loop's start/end/step evaluated on the host from the call's
// scalar values and array extents, with the IR's own semantics (ir/eval.hpp).

#include <cstdint>
#include <span>

#include "ir/ir.hpp"
#include "tack/tack.hpp"

namespace tack::runtime {

/// What the host knows about the call: scalar bits and array shapes per parameter.
struct CallValues {
    const ir::Kernel* kernel;
    std::span<const detail::Arg> args;
};

/// Number of flattened iterations of the parallel loop (product of the dims' trip counts; a
/// dimension with step <= 0 or end <= start runs nothing). Throws ValueError when the product
/// exceeds 2^63 - 1.
int64_t launch_count(const CallValues& call);

}  // namespace tack::runtime
