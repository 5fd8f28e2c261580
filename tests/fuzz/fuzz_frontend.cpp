// libFuzzer entry: arbitrary bytes as a Python module through the whole LLVM-free front half,
// and as the rest of a file a definition starts (frontend/definition.hpp, which the package's
// source capture calls on the user's files). User errors (CompileError) are expected; anything
// else (a crash, a sanitizer report, an InternalError escaping, an extent past the text) is a bug.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <algorithm>
#include <cstdlib>

#include "diag/diagnostic.hpp"
#include "driver/driver.hpp"
#include "frontend/definition.hpp"
#include "frontend/parser.hpp"
#include "passes/passes.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"

using namespace tack;

namespace {

// Every parameter as an f32 array of rank 1, then as an f32 scalar: two common signatures.
std::vector<sema::Type> signature(const frontend::FunctionDef& fn, bool arrays) {
    std::vector<sema::Type> args;
    for (size_t i = 0; i < fn.params.size(); ++i) {
        args.push_back(arrays ? sema::Type::array(DType::f32, 1) : sema::Type::scalar(DType::f32));
    }
    return args;
}

void check_function(const frontend::FunctionDef& fn, const diag::SourceFilePtr& file,
                    const sema::Environment& env) {
    if (!sema::validate(fn, file, env).empty() || fn.def_kind != frontend::DefKind::Kernel) return;
    // A target that refuses nothing, so that every kernel is lowered and optimized.
    static const driver::Capabilities kCaps{
        "fuzz", "fuzz", DTypeSet::all(), DTypeSet::all(), true, UINT64_MAX, {}};
    for (bool arrays : {true, false}) {
        try {
            driver::compile({fn, file, env}, signature(fn, arrays), kCaps,
                            {.stop_after = driver::Stage::Template});
        } catch (const diag::CompileError&) {
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    size_t lines =
        std::count(text.begin(), text.end(), '\n') + std::count(text.begin(), text.end(), '\r') + 1;
    if (frontend::definition_lines(text) > lines) std::abort();
    auto file = std::make_shared<diag::SourceFile>("fuzz.py", std::string(text));
    frontend::ParseResult parsed = frontend::parse_module(file);
    auto module = std::make_shared<frontend::Module>(std::move(parsed.module));
    auto env = std::make_shared<sema::ModuleEnvironment>(module);
    for (const auto& fn : module->functions)
        check_function(*fn, file, *env);
    return 0;
}
