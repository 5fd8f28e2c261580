// The optimization pipeline: a straight line, verified at both ends.

#include <cstdio>

#include "ir/printer.hpp"
#include "ir/verifier.hpp"
#include "passes/passes.hpp"

namespace tack::passes {
namespace {

using Pass = ir::Kernel (*)(ir::Kernel);

ir::Kernel run(const char* name, Pass pass, ir::Kernel k, const PipelineOptions& opts) {
    k = pass(std::move(k));
    if (opts.print_after_all) {
        std::fprintf(stderr, "// IR after %s\n%s", name, ir::print(k).c_str());
    }
    return k;
}

}  // namespace

ir::Kernel optimize(ir::Kernel k, const PipelineOptions& opts) {
    ir::verify(k, "lowering");
    k = run("constant_fold", constant_fold, std::move(k), opts);
    k = run("copy_propagate", copy_propagate, std::move(k), opts);
    k = run("constant_fold", constant_fold, std::move(k), opts);
    k = run("dead_code", dead_code, std::move(k), opts);
    ir::verify(k, "optimize");
    return k;
}

}  // namespace tack::passes
