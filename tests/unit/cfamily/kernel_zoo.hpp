#pragma once
// Kernels that together touch every IR node and every helper of the C-family emitter; the
// compile-only checks run them through each vendor compiler and the golden tests pin two.

#include <vector>

#include "harness.hpp"

namespace tack::cfamily_test {

Kernel zoo_saxpy(DType t);    // with a SourceFile, so statements carry #line directives
Kernel zoo_integer(DType t);  // every integer operator, cast and helper at type t
Kernel zoo_float(DType f);    // float operators, casts to every integer type, math calls
Kernel zoo_atomics(const std::vector<DType>& types);  // add/min/max with and without result
Kernel zoo_workgroup();  // shared array, barrier, thread_id, block_sum/min/max
Kernel zoo_control();    // loops, while, break/continue, print, select, ndrange

}  // namespace tack::cfamily_test
