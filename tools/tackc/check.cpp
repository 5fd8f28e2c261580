// tackc check: parse every file and validate every @tack.kernel / @tack.func in it.
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
    auto env = std::make_shared<sema::ModuleEnvironment>(module);
    for (const auto& fn : module->functions) {
        for (auto& d : sema::validate(*fn, file, *env))
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
