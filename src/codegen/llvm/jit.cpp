// Loading object code: Tack's own loader (elf_loader.hpp) for the objects it handles, else
// one process-wide ORC ExecutionSession with a JITLink object layer, one
// JITDylib per loaded object. Not LLJIT: it re-detects the host and builds TargetMachines (for a
// data layout and an IR compiler) that loading finished objects never uses; measured on a 2-core
// Xeon VM (2026-11), its start-up took 1.1 ms of a new process's first load, this one 0.2 ms.
// No EH-frame registration either: kernels never unwind.
//
// Each JITDylib resolves libc/libm (printf, tanf, fmod, ...) from the running process. Linking
// happens at the first lookup of a symbol; entry points are cached per object so later lookups
// are a map access. Removing the JITDylib in the destructor frees the code.

#include <atomic>
#include <mutex>
#include <unordered_map>

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutorProcessControl.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/TargetParser/Triple.h>

#include "codegen/llvm/elf_loader.hpp"
#include "codegen/llvm/internal.hpp"
#include "diag/diagnostic.hpp"
#include "support/env.hpp"

namespace tack::codegen::llvm_cpu {
namespace {

[[noreturn]] void fail(const std::string& what, llvm::Error err) {
    throw diag::InternalError("internal error: " + what + ": " + llvm::toString(std::move(err)));
}

template <class T>
T unwrap(llvm::Expected<T> value, const std::string& what) {
    if (!value) fail(what, value.takeError());
    return std::move(*value);
}

template <class T>
T& unwrap(llvm::Expected<T&> value, const std::string& what) {
    if (!value) fail(what, value.takeError());
    return *value;
}

struct Jit {
    explicit Jit(std::unique_ptr<llvm::orc::ExecutorProcessControl> epc)
        : session(std::move(epc)), layer(session) {}
    llvm::orc::ExecutionSession session;
    llvm::orc::ObjectLinkingLayer layer;
    char global_prefix = '\0';  // what the platform's C symbol names start with
};

// The data layout's global prefix, read off the triple so no TargetMachine is needed: Mach-O and
// 32-bit Windows x86 prefix C symbols with '_', ELF and other COFF targets do not.
char global_prefix(const llvm::Triple& triple) {
    bool underscore = triple.isOSBinFormatMachO() ||
                      (triple.isOSBinFormatCOFF() && triple.getArch() == llvm::Triple::x86);
    return underscore ? '_' : '\0';
}

// Never destroyed: a LoadedObject held by another static may be released after this one.
Jit& jit() {
    static Jit* instance = [] {
        auto epc = unwrap(llvm::orc::SelfExecutorProcessControl::Create(),
                          "cannot create the ORC executor");
        auto* j = new Jit(std::move(epc));
        j->global_prefix = global_prefix(llvm::Triple(detail::host_identity().triple));
        return j;
    }();
    return *instance;
}

class OrcObject final : public detail::SymbolObject {
  public:
    explicit OrcObject(llvm::orc::JITDylib& jd) : jd_(jd) {}
    ~OrcObject() override { llvm::consumeError(jit().session.removeJITDylib(jd_)); }

  private:
    void* symbol(const std::string& symbol) const override {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = cache_.find(symbol);
        if (it != cache_.end()) return it->second;
        void* address = nullptr;
        Jit& j = jit();
        auto found = j.session.lookup(
            {&jd_}, j.session.intern(j.global_prefix ? j.global_prefix + symbol : symbol));
        if (found) {
            address = found->getAddress().toPtr<void*>();
        } else {
            llvm::Error err = found.takeError();
            // A missing symbol is an answer (nullptr); a failed link is a bug.
            bool missing = err.isA<llvm::orc::SymbolsNotFound>();
            if (!missing) fail("cannot link kernel object", std::move(err));
            llvm::consumeError(std::move(err));
        }
        cache_.emplace(symbol, address);
        return address;
    }

    llvm::orc::JITDylib& jd_;
    mutable std::mutex mutex_;
    mutable std::unordered_map<std::string, void*> cache_;
};

}  // namespace

// The ORC session is not made here: the objects of our own code generator load through
// elf_loader.hpp, and the session is built by the first object that needs JITLink.
void LoadedObject::prepare() {
    detail::host_identity();
}

std::unique_ptr<LoadedObject> LoadedObject::load(const std::vector<uint8_t>& object) {
    if (!support::env_cpu_loader_orc()) {
        if (auto loaded = load_elf_object(object)) return loaded;
    }
    static std::atomic<uint64_t> counter{0};
    Jit& j = jit();
    std::string name = "tack.object." + std::to_string(counter++);
    llvm::orc::JITDylib& jd = unwrap(j.session.createJITDylib(name), "cannot create a JITDylib");
    jd.addGenerator(
        unwrap(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(j.global_prefix),
               "cannot search the process for symbols"));
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(reinterpret_cast<const char*>(object.data()), object.size()), name);
    auto loaded = std::make_unique<OrcObject>(jd);  // removes the JITDylib on failure too
    if (llvm::Error err = j.layer.add(jd, std::move(buffer))) {
        fail("cannot load kernel object", std::move(err));
    }
    return loaded;
}

}  // namespace tack::codegen::llvm_cpu
