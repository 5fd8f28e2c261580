// The entry of _tack_llvm.so (see codegen/llvm/module_api.hpp): the generator's functions as a
// table. The only symbol the module exports (its static libraries are linked --exclude-libs).

#include "codegen/llvm/module_api.hpp"

namespace llvm_cpu = tack::codegen::llvm_cpu;

extern "C" __attribute__((visibility("default"))) const llvm_cpu::ModuleApi* tack_llvm_cpu_api() {
    static const llvm_cpu::ModuleApi kApi{
        .revision = llvm_cpu::kModuleApiRevision,
        .kernel_size = sizeof(tack::ir::Kernel),
        .streaming_store = &llvm_cpu::streaming_store,
        .emit_llvm_ir = &llvm_cpu::emit_llvm_ir,
        .compile_to_object = &llvm_cpu::compile_to_object,
        .host_target_fingerprint = &llvm_cpu::host_target_fingerprint,
        .load_object = &llvm_cpu::LoadedObject::load,
        .prepare = &llvm_cpu::LoadedObject::prepare,
    };
    return &kApi;
}
