#pragma once
// The CPU code generator as a table of functions, for the Python extension's lazily loaded
// copy (issue 13: `import tack` maps no libLLVM). The shared-LLVM Python build links the
// generator into a module of its own, _tack_llvm.so next to the extension, that exports
// tack_llvm_cpu_api(); the extension links src/codegen/llvm_loader instead of the generator,
// which defines llvm_codegen.hpp's functions by forwarding to the table and opens the module on
// the first call (a CPU backend's start, or a request for LLVM IR). Everything else (tackc,
// tests, the static wheel, C++ API users) links the generator directly and never sees this.
//
// Both sides are built from one tree by one compiler: C++ types cross the boundary as they are.
// The module is never unloaded (code and exception objects it made may outlive any caller).
// A function added to llvm_codegen.hpp needs a member here, its entry in module/module.cpp and
// its forwarder in llvm_loader/loader.cpp. Until then the generator's object is pulled into the
// extension after all: a link error (multiple definitions next to the loader's) or, from a file
// defining none of these, libLLVM mapped at import, which tests/python/test_package.py catches.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/llvm/llvm_codegen.hpp"

namespace tack::codegen::llvm_cpu {

/// Bumped whenever a member below changes; the loader refuses a module of another revision.
inline constexpr int kModuleApiRevision = 2;  // 2: LoadedObject::failure_word

struct ModuleApi {
    int revision;
    std::size_t kernel_size;  // sizeof(ir::Kernel): a stale module of another build is refused
    std::optional<StreamingStore> (*streaming_store)(const ir::Kernel& k);
    std::string (*emit_llvm_ir)(const ir::Kernel& k, const CpuCodegenOptions& opts, bool optimized);
    std::vector<uint8_t> (*compile_to_object)(const ir::Kernel& k, const CpuCodegenOptions& opts);
    const std::string& (*host_target_fingerprint)();
    std::unique_ptr<LoadedObject> (*load_object)(const std::vector<uint8_t>& object);
    void (*prepare)();
};

/// The symbol the module exports.
inline constexpr const char* kModuleApiSymbol = "tack_llvm_cpu_api";
/// Its file name, next to the extension.
inline constexpr const char* kModuleFileName = "_tack_llvm.so";

}  // namespace tack::codegen::llvm_cpu
