// tackc check: parse every file and validate every @tack.kernel / @tack.func in it, those
// defined inside host functions too.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "commands.hpp"
#include "diag/diagnostic.hpp"
#include "frontend/parser.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"

namespace tack::tackc {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read '" + path + "'");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {

// Diagnostics of one file, in source order: syntax errors, then each definition's.
std::vector<diag::Diagnostic> check_file(const std::string& path) {
    auto file = std::make_shared<diag::SourceFile>(path, read_file(path));
    frontend::ParseResult parsed = frontend::parse_module(file);
    std::vector<diag::Diagnostic> diags = std::move(parsed.errors);
    auto module = std::make_shared<frontend::Module>(std::move(parsed.module));
    // One environment per scope, each in front of its enclosing one (index 0: the module).
    std::vector<std::shared_ptr<const sema::Environment>> envs = {
        std::make_shared<sema::ModuleEnvironment>(module)};
    for (size_t s = 0; s < module->scopes.size(); ++s) {
        int parent = module->scopes[s].parent;  // an enclosing scope comes first
        envs.push_back(std::make_shared<sema::ModuleEnvironment>(
            module, static_cast<int>(s), envs[static_cast<size_t>(parent + 1)]));
    }
    std::vector<const frontend::FunctionDef*> defs;
    for (const auto* list : {&module->functions, &module->nested}) {
        for (const auto& fn : *list)
            defs.push_back(fn.get());
    }
    std::stable_sort(defs.begin(), defs.end(),
                     [](const auto* a, const auto* b) { return a->range.begin < b->range.begin; });
    for (const frontend::FunctionDef* fn : defs) {
        for (auto& d : sema::validate(*fn, file, *envs[static_cast<size_t>(fn->scope + 1)]))
            diags.push_back(std::move(d));
    }
    return diags;
}

}  // namespace

int cmd_check(const Args& args) {
    if (args.empty()) throw std::runtime_error("expected FILE.py");
    size_t errors = 0;
    for (const std::string& path : args) {
        for (const diag::Diagnostic& d : check_file(path)) {
            std::fputs(d.render().c_str(), stdout);
            ++errors;
        }
    }
    return errors ? 1 : 0;
}

}  // namespace tack::tackc
