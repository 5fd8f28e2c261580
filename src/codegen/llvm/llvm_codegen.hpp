#pragma once
// Typed IR -> LLVM IR -> host object code, and loading object code into the process.
//
// Calling convention of every compiled variant (one exported symbol per variant):
//   void tack_entry_<encoded>(const uint64_t* slots, int64_t loop_start, int64_t loop_end)
// slots[i] holds parameter i: an array's address, or a scalar's bits (zero-extended integers,
// float as its IEEE bits in the low 32 bits, double as 64 bits). The entry runs the prologue and
// then the flattened parallel iterations t in [loop_start, loop_end) (t indexes the row-major
// product of the parallel dimensions). Internally it calls `tack_kernel_<encoded>` whose array
// parameters carry `noalias` when the variant is the disjoint one.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.hpp"

namespace tack::codegen::llvm_cpu {

/// Whole-function vectorization of the parallel loop (lanes.hpp). Auto: kernels whose body
/// qualifies and has a sequential loop (bodies without one are left to LLVM's loop
/// vectorizer); On: every kernel whose body qualifies (tests, the differential tester); Off:
/// the scalar loop only.
enum class Lanes { Auto, Off, On };

struct CpuCodegenOptions {
    bool noalias = false;  // the disjoint-arrays variant (CONTRACT D7)
    Lanes lanes = Lanes::Auto;
};

/// One line saying whether the variant runs its parallel loop as SIMD lanes, with the width,
/// or why not (the kernel's statement or expression that keeps the scalar loop).
std::string lanes_summary(const ir::Kernel& k, const CpuCodegenOptions& opts);

/// A write-only output the variant can stream past the caches (see streaming.cpp): parameter
/// `param`, one element of `elem_bytes` stored per iteration. The object then has a second entry
/// point (LoadedObject::streaming_entry) with the same calling convention.
struct StreamingStore {
    int param;
    int elem_bytes;
};
/// The kernel's streaming candidate, if any (x86-64 hosts only).
std::optional<StreamingStore> streaming_store(const ir::Kernel& k);

/// Injective ASCII encoding of a kernel name: "tack_kernel_" + encoded (CONTRACT A10).
std::string entry_name(const std::string& kernel_name);

/// Textual LLVM IR before (`optimized=false`) or after the O3 pipeline.
std::string emit_llvm_ir(const ir::Kernel& k, const CpuCodegenOptions& opts, bool optimized);

/// O3 + codegen for the host CPU: a relocatable object file. Thread-safe (each call has its own
/// LLVMContext; TargetMachines come from a pool). Throws diag::CompileError (NotImplemented) for
/// workgroup primitives, which the CPU never runs.
std::vector<uint8_t> compile_to_object(const ir::Kernel& k, const CpuCodegenOptions& opts);

/// Describes the code generator target for disk-cache keys: triple, CPU name, features, LLVM
/// version.
const std::string& host_target_fingerprint();

/// A loaded object file (elf_loader.hpp, or ORC JITLink). Thread-safe lookup; the code lives as
/// long as the object.
class LoadedObject {
  public:
    using EntryFn = void (*)(const uint64_t*, int64_t, int64_t);
    /// tack_result_<encoded>(slots, out): runs the prologue and stores Kernel::result (of its
    /// IR type) into *out (DECISIONS G7). Present only for kernels with a result.
    using ResultFn = void (*)(const uint64_t*, void*);
    /// Throws diag::InternalError when the object cannot be loaded.
    static std::unique_ptr<LoadedObject> load(const std::vector<uint8_t>& object);
    /// Sets up what the first load needs (the host identity that keys the disk cache), so a
    /// backend can pay for it when it starts instead of inside its first kernel call.
    static void prepare();
    virtual ~LoadedObject() = default;
    /// nullptr when the object has no such kernel.
    virtual EntryFn entry(const std::string& kernel_name) const = 0;
    /// nullptr when the object has no such kernel or the kernel has no result.
    virtual ResultFn result(const std::string& kernel_name) const = 0;
    /// The entry whose stores to the streaming_store() parameter bypass the caches; nullptr when
    /// the kernel has none.
    virtual EntryFn streaming_entry(const std::string& kernel_name) const = 0;
    /// Set to 1 by a call that could not allocate the kernel's heap local arrays (the call
    /// then did nothing); nullptr when the kernel has none (codegen/llvm/local_arrays.cpp).
    virtual std::atomic<std::int32_t>* failure_word(const std::string& kernel_name) const = 0;
};

}  // namespace tack::codegen::llvm_cpu
