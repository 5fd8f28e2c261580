#pragma once
// Helpers for the validation tests: parse a module, validate every definition in order (as
// `tackc check` does) and render each diagnostic as "ErrorKind: message".

#include <memory>
#include <string>
#include <vector>

#include "diag/diagnostic.hpp"
#include "frontend/parser.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"

namespace tack::sema::testing {

struct Checked {
    std::shared_ptr<frontend::Module> module;
    std::shared_ptr<ModuleEnvironment> env;
    std::vector<diag::Diagnostic> diags;
    std::vector<std::string> messages() const {
        std::vector<std::string> out;
        for (const auto& d : diags)
            out.push_back(std::string(diag::error_kind_name(d.kind)) + ": " + d.message);
        return out;
    }
};

inline Checked check_module(const std::string& source, const std::string& path = "test.py") {
    auto file = std::make_shared<diag::SourceFile>(path, source);
    frontend::ParseResult parsed = frontend::parse_module(file);
    Checked c;
    c.diags = std::move(parsed.errors);
    c.module = std::make_shared<frontend::Module>(std::move(parsed.module));
    c.env = std::make_shared<ModuleEnvironment>(c.module);
    for (const auto& fn : c.module->functions) {
        for (auto& d : validate(*fn, file, *c.env))
            c.diags.push_back(std::move(d));
    }
    return c;
}

// Texts the validator appends to some messages (copied by hand from the contract's intent).
inline const std::string kOutside =
    "is outside the parallel loop. Statements before or after the parallel loop may run any "
    "number of times per launch, so they may only assign locals, load fields, declare local or "
    "shared arrays and read thread_id(); move it into the parallel loop";
inline const std::string kReadable =
    "only parameters, locals, tack.constant names and math.pi, math.e and math.tau can be read";
inline const std::string kNotBound =
    "is not a statically bound @tack.func or a supported kernel intrinsic";
inline const std::string kNoLoop =
    "has no parallel loop: a kernel's work is one top-level `for i in range(n):` or "
    "`for i, j in tack.ndrange(n, m):` loop";
inline const std::string kSecondLoop =
    "is outside the parallel loop. A kernel has one parallel loop, directly in its body; nest "
    "this loop inside it or launch the work as another kernel";
inline const std::string kKernelReturn =
    "kernels write results to fields; a kernel may return a value only as its last statement, "
    "after its parallel loop (with a '-> tack.f32', '-> float' or '-> int' annotation)";
inline const std::string kReturnAnnotation =
    "the kernel's `return` needs a return annotation: '-> tack.f32', '-> float' or '-> int', "
    "the type of the value the call returns";
inline const std::string kReturnType =
    "a kernel's return annotation must be '-> tack.f32', '-> float' or '-> int'";
inline const std::string kAfterLoop =
    "is read after its loop ended; a for loop's variable is bound only inside its loop (copy it "
    "to another name inside the loop)";

// The usual test module: lines 1-5 are fixed, so the body starts at line 6, column 9.
//   1 import tack
//   2
//   3 @tack.kernel
//   4 def k(x, out, n):
//   5     for i in range(out.shape[0]):
inline std::string kernel_with(const std::string& body) {
    return "import tack\n\n@tack.kernel\ndef k(x, out, n):\n    for i in range(out.shape[0]):\n" +
           body;
}

}  // namespace tack::sema::testing
