// llvm_codegen.hpp's functions for the shared-LLVM Python extension: each forwards to the
// generator in _tack_llvm.so, opened next to the extension on the first call (see
// codegen/llvm/module_api.hpp). Linked as objects ahead of the static libraries, so the
// generator's own definitions are never pulled in and the extension records no libLLVM.
//
// Measured on a 2-core EPYC VM under load (2026-12): libLLVM-19 and its libraries were half of
// `import tack`'s CPU time (12 of 22 ms); a CPU backend now pays them when it starts.

#include <dlfcn.h>

#include <string>

#include "codegen/llvm/module_api.hpp"
#include "tack/tack.hpp"

namespace tack::codegen::llvm_cpu {
namespace {

std::string module_path() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&module_path), &info) || !info.dli_fname)
        return kModuleFileName;
    std::string self = info.dli_fname;
    size_t slash = self.rfind('/');
    return (slash == std::string::npos ? std::string() : self.substr(0, slash + 1)) +
           kModuleFileName;
}

const ModuleApi* open_module() {
    std::string path = module_path();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        throw RuntimeError("The CPU backend's code generator " + path +
                           " cannot be loaded: " + (why ? why : "unknown error"));
    }
    auto entry = reinterpret_cast<const ModuleApi* (*)()>(dlsym(handle, kModuleApiSymbol));
    const ModuleApi* api = entry ? entry() : nullptr;
    if (!api || api->revision != kModuleApiRevision || api->kernel_size != sizeof(ir::Kernel)) {
        throw RuntimeError("The CPU backend's code generator " + path +
                           " belongs to another build of Tack; rebuild the extension");
    }
    return api;
}

// A failed open throws out of the initializer, so the next call tries again.
const ModuleApi& api() {
    static const ModuleApi* const kApi = open_module();
    return *kApi;
}

}  // namespace

std::optional<StreamingStore> streaming_store(const ir::Kernel& k) {
    return api().streaming_store(k);
}

std::string emit_llvm_ir(const ir::Kernel& k, const CpuCodegenOptions& opts, bool optimized) {
    return api().emit_llvm_ir(k, opts, optimized);
}

std::vector<uint8_t> compile_to_object(const ir::Kernel& k, const CpuCodegenOptions& opts) {
    return api().compile_to_object(k, opts);
}

const std::string& host_target_fingerprint() {
    return api().host_target_fingerprint();
}

std::unique_ptr<LoadedObject> LoadedObject::load(const std::vector<uint8_t>& object) {
    return api().load_object(object);
}

void LoadedObject::prepare() {
    api().prepare();
}

}  // namespace tack::codegen::llvm_cpu
