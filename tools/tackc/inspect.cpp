// tackc inspect: the typed IR or generated code of one kernel variant, for any target, with no
// device present (CONTRACT C26; the C-family targets only generate source, never compile it).
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "commands.hpp"
#include "diag/diagnostic.hpp"
#include "driver/driver.hpp"
#include "driver/targets.hpp"
#include "frontend/parser.hpp"
#include "ir/printer.hpp"
#include "passes/passes.hpp"
#include "runtime/inspect.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"

namespace tack::tackc {

namespace {

struct InspectOptions {
    std::string path, kernel, args, mode = "ir", shapes, target = "cpu";
    bool aliased = false;  // CPU: the variant for arrays that may overlap (no noalias)
    bool debug = false;    // the debug variant (DECISIONS "Debug mode")
    bool print_after_all = false;
};

InspectOptions parse_options(const Args& args) {
    InspectOptions o;
    std::vector<std::string> positional;
    for (size_t i = 0; i < args.size(); ++i) {
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw std::runtime_error(args[i] + " needs a value");
            return args[++i];
        };
        if (args[i] == "--args")
            o.args = value();
        else if (args[i] == "--mode")
            o.mode = value();
        else if (args[i] == "--shapes")
            o.shapes = value();
        else if (args[i] == "--target")
            o.target = value();
        else if (args[i] == "--aliased")
            o.aliased = true;
        else if (args[i] == "--debug")
            o.debug = true;
        else if (args[i] == "--print-after-all")
            o.print_after_all = true;
        else if (args[i].starts_with("--"))
            throw std::runtime_error("unknown option " + args[i]);
        else
            positional.push_back(args[i]);
    }
    if (positional.size() != 2) throw std::runtime_error("expected FILE.py KERNEL");
    o.path = positional[0];
    o.kernel = positional[1];
    return o;
}

}  // namespace

int cmd_inspect(const Args& args) {
    InspectOptions o = parse_options(args);
    runtime::inspect_mode(o.mode);  // reject a bad mode or target before reading anything
    runtime::check_inspect_target(o.target);
    auto file = std::make_shared<diag::SourceFile>(o.path, read_file(o.path));
    frontend::ParseResult parsed = frontend::parse_module(file);
    auto module = std::make_shared<frontend::Module>(std::move(parsed.module));
    auto env = std::make_shared<sema::ModuleEnvironment>(module);
    std::vector<diag::Diagnostic> diags = std::move(parsed.errors);
    const frontend::FunctionDef* fn = module->find(o.kernel);
    if (fn && !diags.empty()) {  // with the parse errors; otherwise compile() validates
        for (auto& d : driver::validate({*fn, file, *env}))
            diags.push_back(std::move(d));
    }
    driver::set_print_after_all(o.print_after_all);
    try {
        if (!diags.empty()) throw diag::CompileError(std::move(diags));
        if (!fn || fn->def_kind != frontend::DefKind::Kernel)
            throw std::runtime_error("no @tack.kernel named '" + o.kernel + "' in " + o.path);
        auto mode = runtime::inspect_mode(o.mode);
        if (mode == runtime::InspectMode::Ir && !o.shapes.empty())
            throw std::runtime_error(
                "--shapes has no effect with --mode ir: the typed IR holds "
                "for every shape (use --mode source or optimized)");
        // The target's row stands in for a device: the kernel is refused where dispatch on
        // that target would refuse it (dtypes, workgroups, atomic dtypes, private bytes).
        driver::CompileOptions options{
            .debug = o.debug,
            .stop_after =
                mode == runtime::InspectMode::Ir ? driver::Stage::Template : driver::Stage::Variant,
            .shapes = [&](const driver::Template& t) { return shape_values(t.kernel, o.shapes); }};
        driver::Compiled c =
            driver::compile({*fn, file, *env}, sema::parse_arg_types(o.args),
                            driver::capabilities_of(driver::find_target(o.target)), options);
        // The variant a call with non-overlapping arrays selects carries noalias (CONTRACT D7).
        std::fputs(runtime::render_variant(c.ir, o.target, mode, !o.aliased).c_str(), stdout);
        return 0;
    } catch (const diag::CompileError& e) {
        for (const auto& d : e.diagnostics())
            std::fputs(d.render().c_str(), stdout);
        return 1;
    } catch (const tack::TypeError& e) {
        std::printf("TypeError: %s\n", e.what());
        return 1;
    } catch (const tack::NotImplementedError& e) {
        std::printf("NotImplementedError: %s\n", e.what());
        return 1;
    }
}

}  // namespace tack::tackc
