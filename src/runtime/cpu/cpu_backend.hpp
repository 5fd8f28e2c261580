#pragma once
// The CPU backend: LLVM object code loaded into the process, launches over [0, total) either
// serially or fanned out across the thread pool (the cost model decides), host memory arrays.

#include <memory>
#include <string>

#include "codegen/llvm/llvm_codegen.hpp"
#include "ir/ir.hpp"
#include "runtime/backend.hpp"

namespace tack::runtime::cpu {

const BackendEntry& backend_entry();

/// TACK_CPU_LANES as the code generator's setting (a bad value raises ValueError).
codegen::llvm_cpu::Lanes lanes_from_environment();

/// The CPU variant's LLVM IR, before or after O3 (tack.inspect / tackc inspect --target cpu).
/// In a TACK_LLVM=OFF build (runtime/cpu_off) both raise NotImplementedError saying so.
std::string render_llvm_ir(const ir::Kernel& kernel, bool noalias, bool optimized);

}  // namespace tack::runtime::cpu
