#include "codegen/llvm/llvm_codegen.hpp"
#include "runtime/cpu/cpu_backend.hpp"

namespace tack::runtime::cpu {

std::string render_llvm_ir(const ir::Kernel& kernel, bool noalias, bool optimized) {
    return codegen::llvm_cpu::emit_llvm_ir(
        kernel, {.noalias = noalias, .lanes = lanes_from_environment()}, optimized);
}

}  // namespace tack::runtime::cpu
