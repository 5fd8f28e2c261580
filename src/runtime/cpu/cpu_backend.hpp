#pragma once
// The CPU backend: LLVM object code loaded into the process, launches over [0, total) either
// serially or fanned out across the thread pool (the cost model decides), host memory arrays.

#include <memory>

#include "runtime/backend.hpp"

namespace tack::runtime::cpu {

const BackendEntry& backend_entry();

}  // namespace tack::runtime::cpu
