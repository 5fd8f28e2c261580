#pragma once
#include <string>

#include "ir/ir.hpp"

namespace tack::ir {

/// Byte-stable text of a kernel (golden tests and `tackc inspect --mode ir`). The format is
/// described at the top of printer.cpp: every operation shows its result type
/// (`(f32 add a.2 1f32)`), constants carry a type suffix, variables print as `name.id`.
std::string print(const Kernel& k);
std::string print(const ExprPtr& e);
std::string print(const Block& b, int indent = 0);

}  // namespace tack::ir
