// tackc inspect: the typed IR or generated code of one kernel variant, for any target, with no
// device present (CONTRACT C26; the C-family targets only generate source, never compile it).
#include <charconv>
#include <cstdio>
#include <memory>
#include <sstream>
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

// One extent of --shapes: a decimal integer in [0, 2**63 - 1], the whole item.
int64_t parse_extent(const std::string& text, const std::string& all) {
    int64_t v = -1;
    const char* end = text.data() + text.size();
    auto [stop, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || stop != end || v < 0)
        throw std::runtime_error("--shapes '" + all + "': extent '" + text +
                                 "' is not an integer in [0, 2**63 - 1]");
    return v;
}

// '64;32,32' -> extents per array argument, in order; missing extents default to 1024. Bad
// text names what is wrong (hardening round three, defect 15: "stoll", or silently accepted).
passes::ShapeValues shape_values(const ir::Kernel& k, const std::string& text) {
    std::vector<std::vector<int64_t>> per_array;
    if (!text.empty()) {
        std::stringstream ss(text);
        for (std::string item; std::getline(ss, item, ';');) {
            std::vector<int64_t> dims;
            std::stringstream ds(item);
            for (std::string d; std::getline(ds, d, ',');)
                dims.push_back(parse_extent(d, text));
            if (dims.empty() || item.back() == ',') parse_extent("", text);
            per_array.push_back(dims);
        }
        if (text.back() == ';') parse_extent("", text);
    }
    passes::ShapeValues shapes;
    size_t array_no = 0;
    for (size_t p = 0; p < k.params.size(); ++p) {
        if (!k.params[p].is_array()) continue;
        int rank = k.params[p].buffer->rank;
        if (array_no < per_array.size() && per_array[array_no].size() > size_t(rank))
            throw std::runtime_error("--shapes '" + text + "' gives array '" + k.params[p].name +
                                     "' " + std::to_string(per_array[array_no].size()) +
                                     " extents; it has " + std::to_string(rank) +
                                     (rank == 1 ? " dimension" : " dimensions"));
        for (int d = 0; d < rank; ++d) {
            int64_t extent = 1024;
            if (array_no < per_array.size() && size_t(d) < per_array[array_no].size())
                extent = per_array[array_no][size_t(d)];
            shapes[{static_cast<int>(p), d}] = extent;
        }
        ++array_no;
    }
    if (per_array.size() > array_no)
        throw std::runtime_error("--shapes '" + text + "' gives " +
                                 std::to_string(per_array.size()) + " arrays; the kernel has " +
                                 std::to_string(array_no));
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
