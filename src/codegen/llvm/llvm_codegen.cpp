// The public entry points of the CPU code generator: IR -> module -> (O3) -> text or object.

#include "codegen/llvm/llvm_codegen.hpp"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/llvm/internal.hpp"
#include "codegen/llvm/lanes.hpp"
#include "diag/diagnostic.hpp"

namespace tack::codegen::llvm_cpu {
namespace {

/// A module that fails LLVM's verifier is a bug in this generator, never a user error.
void verify(const llvm::Module& m) {
    std::string message;
    llvm::raw_string_ostream os(message);
    if (llvm::verifyModule(m, &os)) {
        throw diag::InternalError("internal error: LLVM codegen produced invalid IR: " + message);
    }
}

std::unique_ptr<llvm::Module> build_verified(llvm::LLVMContext& ctx, const ir::Kernel& k,
                                             const CpuCodegenOptions& opts) {
    auto m = detail::build_module(ctx, k, opts);
    verify(*m);
    return m;
}

}  // namespace

std::string lanes_summary(const ir::Kernel& k, const CpuCodegenOptions& opts) {
    detail::LanePlan plan = detail::plan_lanes(k, opts.lanes, detail::host_vector_bytes());
    return (plan.width ? "lanes: " : "lanes: none: ") + plan.reason;
}

std::string emit_llvm_ir(const ir::Kernel& k, const CpuCodegenOptions& opts, bool optimized) {
    llvm::LLVMContext ctx;
    auto m = build_verified(ctx, k, opts);
    if (optimized) {
        detail::optimize_module(*m);
        detail::finish_streaming_stores(*m, k);
    }
    std::string text = "; " + lanes_summary(k, opts) + "\n";
    llvm::raw_string_ostream os(text);
    m->print(os, nullptr);
    return text;
}

std::vector<uint8_t> compile_to_object(const ir::Kernel& k, const CpuCodegenOptions& opts) {
    llvm::LLVMContext ctx;
    auto m = build_verified(ctx, k, opts);
    detail::optimize_module(*m);
    detail::finish_streaming_stores(*m, k);
    return detail::emit_object(*m);
}

}  // namespace tack::codegen::llvm_cpu
