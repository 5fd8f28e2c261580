// libFuzzer entry: tackc's argument parsers (hardening round three). The input is
// "ARGS\nSHAPES": ARGS goes to sema::parse_arg_types (`tackc inspect --args`); when it parses,
// a kernel with that many parameters is lowered for it and SHAPES goes to shape_values
// (`--shapes`). Bad text is a CompileError (--args) or a runtime_error (--shapes); anything else
// (a crash, a sanitizer report, another exception, a result missing an extent) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "../../tools/tackc/commands.hpp"
#include "diag/diagnostic.hpp"
#include "driver/driver.hpp"
#include "frontend/parser.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"

using namespace tack;

namespace {

// `@tack.kernel def k(a0, ..., aN)` with a body that reads none of them.
std::string kernel_source(size_t params) {
    std::string s = "import tack\n\n@tack.kernel\ndef k(";
    for (size_t i = 0; i < params; ++i)
        s += (i ? ", a" : "a") + std::to_string(i);
    return s + "):\n    for i in range(1):\n        pass\n";
}

void check_shapes(const std::vector<sema::Type>& sig, const std::string& shapes) {
    auto file = std::make_shared<diag::SourceFile>("k.py", kernel_source(sig.size()));
    frontend::ParseResult parsed = frontend::parse_module(file);
    if (!parsed.errors.empty()) std::abort();  // the source is ours
    auto module = std::make_shared<frontend::Module>(std::move(parsed.module));
    sema::ModuleEnvironment env(module);
    static const driver::Capabilities kCaps{
        "fuzz", "fuzz", DTypeSet::all(), DTypeSet::all(), true, UINT64_MAX, {}};
    ir::Kernel kernel;
    try {
        kernel = driver::compile({*module->find("k"), file, env}, sig, kCaps,
                                 {.stop_after = driver::Stage::Template, .shapes = {}})
                     .ir;
    } catch (const diag::CompileError&) {
        return;  // a signature lowering refuses (an array of rank 0)
    }
    passes::ShapeValues values;
    try {
        values = tackc::shape_values(kernel, shapes);
    } catch (const std::runtime_error&) {
        return;
    }
    for (size_t p = 0; p < kernel.params.size(); ++p) {
        if (!kernel.params[p].is_array()) continue;
        for (int d = 0; d < kernel.params[p].buffer->rank; ++d) {
            auto it = values.find({static_cast<int>(p), d});
            if (it == values.end() || it->second < 0) std::abort();
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    size_t newline = text.find('\n');
    std::string_view args = text.substr(0, newline);
    std::string shapes(newline == std::string_view::npos ? "" : text.substr(newline + 1));
    std::vector<sema::Type> sig;
    try {
        sig = sema::parse_arg_types(args);
    } catch (const diag::CompileError&) {
        return 0;
    }
    if (sig.size() <= 32) check_shapes(sig, shapes);
    return 0;
}
