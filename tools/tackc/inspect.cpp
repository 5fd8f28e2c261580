// tackc inspect: the typed IR or generated code of one kernel variant, for any target, with no
// device present (CONTRACT C26; the C-family targets only generate source, never compile it).
#include <cstdio>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "commands.hpp"
#include "diag/diagnostic.hpp"
#include "driver/driver.hpp"
#include "frontend/parser.hpp"
#include "ir/printer.hpp"
#include "passes/passes.hpp"
#include "runtime/checks.hpp"
#include "runtime/inspect.hpp"
#include "runtime/targets.hpp"
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

// The template's IR, or the code the target's generator produces for the variant the driver
// builds, in dispatch's order (shared with tack.inspect; GPU targets only generate source).
std::string render(const InspectOptions& o, ir::Kernel lowered) {
    auto mode = runtime::inspect_mode(o.mode);
    if (mode == runtime::InspectMode::Ir) return ir::print(driver::optimize_template(lowered));
    ir::Kernel k = driver::specialize(lowered, shape_values(lowered, o.shapes),
                                      runtime::textures_of(runtime::find_target(o.target)));
    // The variant a call with non-overlapping arrays selects carries noalias (CONTRACT D7).
    return runtime::render_variant(k, o.target, mode, !o.aliased);
}

}  // namespace

// '64;32,32' -> extents per array argument, in order; missing extents default to 1024.
passes::ShapeValues shape_values(const ir::Kernel& k, const std::string& text) {
    std::vector<std::vector<int64_t>> per_array;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ';');) {
        std::vector<int64_t> dims;
        std::stringstream ds(item);
        for (std::string d; std::getline(ds, d, ',');)
            dims.push_back(std::stoll(d));
        per_array.push_back(dims);
    }
    passes::ShapeValues shapes;
    int array_no = 0;
    for (size_t p = 0; p < k.params.size(); ++p) {
        if (!k.params[p].is_array()) continue;
        for (int d = 0; d < k.params[p].buffer->rank; ++d) {
            int64_t extent = 1024;
            if (array_no < static_cast<int>(per_array.size()) &&
                d < static_cast<int>(per_array[array_no].size()))
                extent = per_array[array_no][d];
            shapes[{static_cast<int>(p), d}] = extent;
        }
        ++array_no;
    }
    return shapes;
}

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
    if (fn) {
        for (auto& d : driver::validate({*fn, file, *env}))
            diags.push_back(std::move(d));
    }
    driver::set_print_after_all(o.print_after_all);
    try {
        if (!diags.empty()) throw diag::CompileError(std::move(diags));
        if (!fn || fn->def_kind != frontend::DefKind::Kernel)
            throw std::runtime_error("no @tack.kernel named '" + o.kernel + "' in " + o.path);
        // The target's row stands in for a device: the kernel is refused where dispatch on
        // that target would refuse it (dtypes, workgroups, atomic dtypes).
        const runtime::Capabilities caps = runtime::capabilities_of(runtime::find_target(o.target));
        std::vector<sema::ArgType> sig = sema::parse_arg_types(o.args);
        runtime::check_dtypes(*fn, sig, caps);
        ir::Kernel k = driver::lower({*fn, file, *env}, sig);
        runtime::check_lowered(*fn, k, caps);
        if (o.debug) k = driver::add_debug_checks(std::move(k)).kernel;
        std::fputs(render(o, std::move(k)).c_str(), stdout);
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
