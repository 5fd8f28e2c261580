#pragma once
#include <string>

#include "ir/ir.hpp"

namespace tack::ir {

/// Byte-stable text of a kernel (golden tests and `tackc inspect --mode ir`).
std::string print(const Kernel& k);
std::string print(const ExprPtr& e);
std::string print(const Block& b, int indent = 0);

}  // namespace tack::ir
