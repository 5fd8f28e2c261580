#pragma once
// Helpers for the lowering tests: parse a module, lower one of its kernels for an argument
// signature and print the IR (or capture the CompileError).

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "diag/diagnostic.hpp"
#include "frontend/parser.hpp"
#include "ir/printer.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"

namespace tack::sema::testing {

inline Type arr(DType t, int rank = 1) {
    return Type::array(t, rank);
}
inline Type scalar(DType t) {
    return Type::scalar(t);
}

struct Lowered {
    std::shared_ptr<frontend::Module> module;
    std::shared_ptr<ModuleEnvironment> env;
    ir::Kernel kernel;
};

/// Parses `source` and lowers its definition `name` (default: the last one).
inline Lowered lower_source(const std::string& source, const std::vector<Type>& args,
                            const std::string& name = "") {
    auto file = std::make_shared<diag::SourceFile>("test.py", source);
    frontend::ParseResult parsed = frontend::parse_module(file);
    if (!parsed.errors.empty()) throw diag::CompileError(parsed.errors);
    Lowered l;
    l.module = std::make_shared<frontend::Module>(std::move(parsed.module));
    l.env = std::make_shared<ModuleEnvironment>(l.module);
    const frontend::FunctionDef* fn =
        name.empty() ? l.module->functions.back().get() : l.module->find(name);
    if (!fn) throw std::runtime_error("no definition " + name);
    l.kernel = lower_kernel(*fn, file, *l.env, args);
    return l;
}

inline std::string lower_print(const std::string& source, const std::vector<Type>& args) {
    return ir::print(lower_source(source, args).kernel);
}

/// "Kind: message" of the CompileError lowering throws, or "" when it succeeds.
inline std::string lower_error(const std::string& source, const std::vector<Type>& args) {
    try {
        lower_source(source, args);
    } catch (const diag::CompileError& e) {
        return std::string(diag::error_kind_name(e.first().kind)) + ": " + e.first().message;
    }
    return "";
}

}  // namespace tack::sema::testing

namespace tack::sema::testing {

/// The storage type of the (last-created) local named `name`, or nullopt.
inline std::optional<DType> local_type(const ir::Kernel& k, const std::string& name) {
    std::optional<DType> t;
    for (const auto& v : k.locals) {
        if (v->name == name) t = v->type;
    }
    return t;
}

/// A one-dimensional kernel `k(params)` whose parallel loop `for i in range(<first>.shape[0])`
/// holds `body` (lines without indentation).
inline std::string kernel1(const std::string& params, const std::vector<std::string>& body,
                           const std::string& prelude = "") {
    std::string first = params.substr(0, params.find(','));
    std::string s = "import tack\nimport math\n" + prelude + "\n@tack.kernel\ndef k(" + params +
                    "):\n    for i in range(" + first + ".shape[0]):\n";
    for (const auto& line : body)
        s += "        " + line + "\n";
    return s;
}

}  // namespace tack::sema::testing
