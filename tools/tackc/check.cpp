// tackc check: parse every file and validate every @tack.kernel / @tack.func in it, those
// defined inside host functions too.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "commands.hpp"
#include "diag/diagnostic.hpp"
#include "driver/driver.hpp"
#include "driver/targets.hpp"
#include "frontend/parser.hpp"
#include "runtime/inspect.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"

namespace tack::tackc {

std::string read_file(const std::string& path) {
    // A directory opens as a stream on Linux and reads as empty: say so instead of checking it.
    if (std::filesystem::is_directory(path))
        throw std::runtime_error("'" + path + "' is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read '" + path + "'");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {

struct CheckOptions {
    std::vector<std::string> paths;
    std::string kernel, args, target = "cpu";  // --args: run the typed pipeline as well
};

CheckOptions parse_options(const Args& args) {
    CheckOptions o;
    for (size_t i = 0; i < args.size(); ++i) {
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw std::runtime_error(args[i] + " needs a value");
            return args[++i];
        };
        if (args[i] == "--kernel")
            o.kernel = value();
        else if (args[i] == "--args")
            o.args = value();
        else if (args[i] == "--target")
            o.target = value();
        else if (args[i].starts_with("--"))
            throw std::runtime_error("unknown option " + args[i]);
        else
            o.paths.push_back(args[i]);
    }
    if (o.paths.empty()) throw std::runtime_error("expected FILE.py");
    if (!o.kernel.empty() && o.args.empty()) throw std::runtime_error("--kernel needs --args");
    if (!o.args.empty()) runtime::check_inspect_target(o.target);
    return o;
}

struct Definition {
    const frontend::FunctionDef* fn;
    std::shared_ptr<const sema::Environment> env;
};

// The kernel `--args` applies to: the one named, or the file's only kernel.
const Definition* typed_target(const std::vector<Definition>& defs, const CheckOptions& o,
                               const std::string& path) {
    const Definition* found = nullptr;
    for (const Definition& d : defs) {
        if (d.fn->def_kind != frontend::DefKind::Kernel) continue;
        if (!o.kernel.empty() && d.fn->name != o.kernel) continue;
        if (found && o.kernel.empty())
            throw std::runtime_error(path + " has more than one kernel: name one with --kernel");
        if (!found) found = &d;
    }
    if (!found)
        throw std::runtime_error(o.kernel.empty()
                                     ? "no @tack.kernel in " + path
                                     : "no @tack.kernel named '" + o.kernel + "' in " + path);
    return found;
}

// Diagnostics of one file, in source order: syntax errors, then each definition's; with
// --args, then those of lowering the kernel for those argument types and generating the
// target's code (types, capabilities), as its first call would.
std::vector<diag::Diagnostic> check_file(const std::string& path, const CheckOptions& o) {
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
    std::vector<Definition> defs;
    for (const auto* list : {&module->functions, &module->nested}) {
        for (const auto& fn : *list)
            defs.push_back({fn.get(), envs[static_cast<size_t>(fn->scope + 1)]});
    }
    std::stable_sort(defs.begin(), defs.end(), [](const Definition& a, const Definition& b) {
        return a.fn->range.begin < b.fn->range.begin;
    });
    for (const Definition& d : defs) {
        for (auto& diag : sema::validate(*d.fn, file, *d.env))
            diags.push_back(std::move(diag));
    }
    if (o.args.empty() || !diags.empty()) return diags;
    const Definition* k = typed_target(defs, o, path);
    const driver::Capabilities caps = driver::capabilities_of(driver::find_target(o.target));
    // A refusal by the target's row (dispatch's dtype, workgroup and atomic checks) has no
    // source position of its own: it points at the kernel.
    auto refused = [&](diag::ErrorKind kind, const char* what) {
        diags.push_back({kind, what, file, k->fn->name_range});
    };
    try {
        driver::CompileOptions options{
            .shapes = [](const driver::Template& t) { return shape_values(t.kernel, ""); }};
        driver::Compiled c =
            driver::compile({*k->fn, file, *k->env}, sema::parse_arg_types(o.args), caps, options);
        runtime::render_variant(c.ir, o.target, runtime::InspectMode::Source, true);
    } catch (const diag::CompileError& e) {
        for (const auto& diag : e.diagnostics())
            diags.push_back(diag);
    } catch (const tack::TypeError& e) {
        refused(diag::ErrorKind::TypeError, e.what());
    } catch (const tack::NotImplementedError& e) {
        refused(diag::ErrorKind::NotImplemented, e.what());
    }
    return diags;
}

}  // namespace

// The files a path names: itself, or a directory's .py files at any depth, in name order (as
// linters take a directory; hardening round three, defect 16: a directory was read as an empty
// file and passed).
std::vector<std::string> files_of(const std::string& path) {
    namespace fs = std::filesystem;
    if (!fs::is_directory(path)) return {path};
    std::vector<std::string> files;
    for (const auto& e :
         fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied)) {
        if (e.is_regular_file() && e.path().extension() == ".py") files.push_back(e.path());
    }
    if (files.empty()) throw std::runtime_error("no .py files in '" + path + "'");
    std::sort(files.begin(), files.end());
    return files;
}

int cmd_check(const Args& args) {
    CheckOptions o = parse_options(args);
    size_t errors = 0;
    std::vector<std::string> files;
    for (const std::string& path : o.paths) {
        std::vector<std::string> more = files_of(path);
        files.insert(files.end(), more.begin(), more.end());
    }
    for (const std::string& path : files) {
        for (const diag::Diagnostic& d : check_file(path, o)) {
            std::fputs(d.render().c_str(), stdout);
            ++errors;
        }
    }
    return errors ? 1 : 0;
}

}  // namespace tack::tackc
