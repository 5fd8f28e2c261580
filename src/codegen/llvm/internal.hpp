#pragma once
// Pieces of the CPU code generator shared between its .cpp files (not part of the interface).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen/llvm/llvm_codegen.hpp"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace tack::codegen::llvm_cpu::detail {

/// Injective ASCII encoding: [A-Za-z0-9] kept, '_' -> "__", any other byte -> "_XX" (hex).
std::string encode_name(const std::string& kernel_name);
std::string kernel_symbol(const std::string& kernel_name);    // tack_kernel_<enc> (internal)
std::string entry_symbol(const std::string& kernel_name);     // tack_entry_<enc> (exported)
std::string result_symbol(const std::string& kernel_name);    // tack_result_<enc> (exported)
std::string ntentry_symbol(const std::string& kernel_name);   // tack_ntentry_<enc> (exported)
std::string ntkernel_symbol(const std::string& kernel_name);  // tack_ntkernel_<enc> (internal)
std::string failure_symbol(const std::string& kernel_name);   // tack_failed_<enc> (exported i32)

/// A loaded object that finds its kernels' entry points by symbol name: the loaders
/// (elf_loader.cpp, jit.cpp) supply symbol(), this maps kernel names to it.
class SymbolObject : public LoadedObject {
  public:
    EntryFn entry(const std::string& kernel_name) const final {
        return reinterpret_cast<EntryFn>(symbol(entry_symbol(kernel_name)));
    }
    ResultFn result(const std::string& kernel_name) const final {
        return reinterpret_cast<ResultFn>(symbol(result_symbol(kernel_name)));
    }
    EntryFn streaming_entry(const std::string& kernel_name) const final {
        return reinterpret_cast<EntryFn>(symbol(ntentry_symbol(kernel_name)));
    }
    std::atomic<std::int32_t>* failure_word(const std::string& kernel_name) const final {
        return static_cast<std::atomic<std::int32_t>*>(symbol(failure_symbol(kernel_name)));
    }

  protected:
    /// The address of a symbol the object defines; nullptr when it defines none of that name.
    virtual void* symbol(const std::string& name) const = 0;
};

/// After O3: the streaming kernel's stores to the streamed parameter become non-temporal, its
/// vector ones with their proven alignment (see streaming.cpp).
void finish_streaming_stores(llvm::Module& m, const ir::Kernel& k);

/// The host target, detected once (thread-safe).
struct HostTarget {
    std::string triple;
    std::string cpu;
    std::string features;     // "+avx2,+fma,-avx512f,..." (sorted, deterministic)
    std::string data_layout;  // of the host TargetMachine
    std::string fingerprint;  // triple, CPU, features, LLVM version
    /// Ask for 512-bit vectors (AVX-512 hosts). LLVM's default on these CPUs is 256; measured on
    /// a Xeon with AVX-512 (2026-11): a 24-term f32 polynomial ran 1.16 -> 0.87 ns/element,
    /// saxpy in L1/L2 unchanged within noise.
    bool wide_vectors = false;
};
const HostTarget& host_target();
/// The same without data_layout (left empty) and without building a TargetMachine: all that
/// loading objects and keying the disk cache need.
const HostTarget& host_identity();

/// Builds the unoptimized module for one kernel variant (see emit_kernel.cpp).
std::unique_ptr<llvm::Module> build_module(llvm::LLVMContext& ctx, const ir::Kernel& k,
                                           const CpuCodegenOptions& opts);

/// The new pass manager's O3 pipeline for the host (vectorizers, unrolling, interleaving on).
void optimize_module(llvm::Module& m);

/// Codegen of an (optimized) module to a relocatable object for the host.
std::vector<uint8_t> emit_object(llvm::Module& m);

}  // namespace tack::codegen::llvm_cpu::detail
