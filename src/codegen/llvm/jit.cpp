// Loading object code: one process-wide ORC LLJIT, one JITDylib per loaded object.
//
// Each JITDylib resolves libc/libm (printf, tanf, fmod, ...) from the running process. Linking
// happens at the first lookup of a symbol; entry points are cached per object so later lookups
// are a map access. Removing the JITDylib in the destructor frees the code.

#include <atomic>
#include <mutex>
#include <unordered_map>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>

#include "codegen/llvm/internal.hpp"
#include "diag/diagnostic.hpp"

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

// Never destroyed: a LoadedObject held by another static may be released after this one.
llvm::orc::LLJIT& jit() {
    static llvm::orc::LLJIT* instance = [] {
        detail::host_target();  // initializes the native target
        // No platform: our objects have no static initializers, and setup would cost time.
        auto built =
            llvm::orc::LLJITBuilder().setPlatformSetUp(llvm::orc::setUpInactivePlatform).create();
        return unwrap(std::move(built), "cannot create the ORC JIT").release();
    }();
    return *instance;
}

class OrcObject final : public LoadedObject {
  public:
    explicit OrcObject(llvm::orc::JITDylib& jd) : jd_(jd) {}
    ~OrcObject() override { llvm::consumeError(jit().getExecutionSession().removeJITDylib(jd_)); }

    EntryFn entry(const std::string& kernel_name) const override {
        return reinterpret_cast<EntryFn>(lookup(detail::entry_symbol(kernel_name)));
    }
    ResultFn result(const std::string& kernel_name) const override {
        return reinterpret_cast<ResultFn>(lookup(detail::result_symbol(kernel_name)));
    }

  private:
    void* lookup(const std::string& symbol) const {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = cache_.find(symbol);
        if (it != cache_.end()) return it->second;
        void* address = nullptr;
        auto found = jit().lookup(jd_, symbol);
        if (found) {
            address = found->toPtr<void*>();
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

std::unique_ptr<LoadedObject> LoadedObject::load(const std::vector<uint8_t>& object) {
    static std::atomic<uint64_t> counter{0};
    llvm::orc::LLJIT& j = jit();
    std::string name = "tack.object." + std::to_string(counter++);
    llvm::orc::JITDylib& jd = unwrap(j.createJITDylib(name), "cannot create a JITDylib");
    char prefix = j.getDataLayout().getGlobalPrefix();
    jd.addGenerator(unwrap(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix),
                           "cannot search the process for symbols"));
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(reinterpret_cast<const char*>(object.data()), object.size()), name);
    auto loaded = std::make_unique<OrcObject>(jd);  // removes the JITDylib on failure too
    if (llvm::Error err = j.addObjectFile(jd, std::move(buffer))) {
        fail("cannot load kernel object", std::move(err));
    }
    return loaded;
}

}  // namespace tack::codegen::llvm_cpu
