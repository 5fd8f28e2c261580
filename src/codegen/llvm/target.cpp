// The host target: detected once, TargetMachines pooled, the O3 pipeline and object emission.
//
// A TargetMachine is not safe to use from two threads at once (it caches subtargets lazily), so
// compiles borrow one from a small pool and give it back; each compile has its own LLVMContext.

#include <algorithm>
#include <mutex>

#include <llvm/ADT/SmallVector.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>

#include "codegen/llvm/internal.hpp"
#include "diag/diagnostic.hpp"
#include "support/platform.hpp"

namespace tack::codegen::llvm_cpu {
namespace detail {
namespace {

std::string sorted_host_features() {
    std::vector<std::string> names;
    for (const auto& f : llvm::sys::getHostCPUFeatures()) {
        std::string name = f.getValue() ? "+" : "-";  // not "x" + str: GCC 12 -Wrestrict noise
        name += f.getKey();
        names.push_back(std::move(name));
    }
    std::sort(names.begin(), names.end());
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "" : ",") + n;
    return out;
}

const llvm::Target& lookup_target(const std::string& triple) {
    std::string err;
    const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, err);
    if (!t) throw diag::InternalError("internal error: no LLVM target for " + triple + ": " + err);
    return *t;
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const HostTarget& host) {
    llvm::TargetOptions options;  // IEEE defaults: no unsafe math, no FMA fusion across ops
    auto* tm =
        lookup_target(host.triple)
            .createTargetMachine(host.triple, host.cpu, host.features, options, llvm::Reloc::PIC_,
                                 std::nullopt, llvm::CodeGenOptLevel::Aggressive);
    if (!tm) throw diag::InternalError("internal error: cannot create the host TargetMachine");
    return std::unique_ptr<llvm::TargetMachine>(tm);
}

class TargetMachinePool {
  public:
    std::unique_ptr<llvm::TargetMachine> acquire() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!free_.empty()) {
                auto tm = std::move(free_.back());
                free_.pop_back();
                return tm;
            }
        }
        return make_target_machine(host_target());
    }
    void release(std::unique_ptr<llvm::TargetMachine> tm) {
        std::lock_guard<std::mutex> lock(mutex_);
        free_.push_back(std::move(tm));
    }

  private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<llvm::TargetMachine>> free_;
};

TargetMachinePool& pool() {
    static TargetMachinePool p;
    return p;
}

/// Borrows a TargetMachine for the duration of one compile step.
class TargetMachineLease {
  public:
    TargetMachineLease() : tm_(pool().acquire()) {}
    ~TargetMachineLease() { pool().release(std::move(tm_)); }
    llvm::TargetMachine* operator->() const { return tm_.get(); }
    llvm::TargetMachine* get() const { return tm_.get(); }

  private:
    std::unique_ptr<llvm::TargetMachine> tm_;
};

// Everything but the data layout: reading it needs a TargetMachine (~0.3 ms), which loading a
// cached object and keying the disk cache never need.
// Bumped whenever the generated code changes for the same IR, so the disk cache does not hand
// out objects of an older generator: 2 = field accesses claim align 1 (E14), streaming entries;
// 3 = SIMD lanes (lanes.hpp).
constexpr int kCodegenRevision = 3;

HostTarget detect_host_identity() {
    HostTarget h;
    h.triple = llvm::sys::getDefaultTargetTriple();
    h.cpu = llvm::sys::getHostCPUName().str();
    h.features = sorted_host_features();
    h.wide_vectors = h.features.find("+avx512f") != std::string::npos &&
                     h.features.find("-evex512") == std::string::npos;
    h.fingerprint = h.triple + ";" + h.cpu + ";" + h.features + ";LLVM " LLVM_VERSION_STRING +
                    ";codegen " + std::to_string(kCodegenRevision);
    return h;
}

HostTarget detect_host() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    HostTarget h = host_identity();
    auto tm = make_target_machine(h);
    h.data_layout = tm->createDataLayout().getStringRepresentation();
    pool().release(std::move(tm));  // the first compile reuses it
    return h;
}

}  // namespace

const HostTarget& host_identity() {
    static const HostTarget host = detect_host_identity();
    return host;
}

const HostTarget& host_target() {
    static const HostTarget host = detect_host();
    return host;
}

void optimize_module(llvm::Module& m) {
    TargetMachineLease tm;
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions tuning;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    tuning.LoopUnrolling = true;
    tuning.LoopInterleaving = true;
    llvm::PassBuilder pb(tm.get(), tuning);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

std::vector<uint8_t> emit_object(llvm::Module& m) {
    TargetMachineLease tm;
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
        throw diag::InternalError("internal error: the host target cannot emit object files");
    }
    pm.run(m);
    return std::vector<uint8_t>(buffer.begin(), buffer.end());
}

}  // namespace detail

// With the generator's own build id: where it lives in a module of its own (_tack_llvm.so), a
// rebuild of it changes no other object's id, and its code is what the cached objects hold.
const std::string& host_target_fingerprint() {
    static const std::string fingerprint =
        detail::host_identity().fingerprint + ";generator " +
        support::platform::build_id_of(reinterpret_cast<const void*>(&host_target_fingerprint));
    return fingerprint;
}

}  // namespace tack::codegen::llvm_cpu
