#pragma once
// One kernel of a module's text through the compile driver, as dispatch compiles it for a
// target's row: the tests' one way from source to IR (driver::compile), so no test re-stitches
// the pipeline's stages.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "diag/diagnostic.hpp"
#include "driver/driver.hpp"
#include "driver/targets.hpp"
#include "frontend/parser.hpp"
#include "passes/passes.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"

namespace tack::testing {

struct Compile {
    std::string source;  // the module's text
    std::string kernel;
    std::string args;            // sema::parse_arg_types text: "f32[:],f32x3[:],tex3d,i32"
    std::string target = "cpu";  // a row of driver/targets.cpp
    bool debug = false;
    driver::Stage stop_after = driver::Stage::Variant;
    /// The variant's extent of (parameter, dim) for each extent the template reads.
    std::function<std::int64_t(int param, int dim)> extent = [](int, int) {
        return std::int64_t{1024};
    };
    /// The texture choice, when not the target row's (a device that declines some extents).
    std::optional<passes::TextureInHardware> textures = std::nullopt;
    std::string path = "k.py";
};

/// Throws diag::CompileError for the module's parse errors and the kernel's diagnostics, and
/// what dispatch on the target would throw.
inline driver::Compiled compile(const Compile& c) {
    auto file = std::make_shared<diag::SourceFile>(c.path, c.source);
    frontend::ParseResult parsed = frontend::parse_module(file);
    if (!parsed.errors.empty()) throw diag::CompileError(std::move(parsed.errors));
    auto module = std::make_shared<frontend::Module>(std::move(parsed.module));
    auto env = std::make_shared<sema::ModuleEnvironment>(module);  // @tack.funcs hold it shared
    const frontend::FunctionDef* fn = module->find(c.kernel);
    if (!fn) throw std::invalid_argument("no kernel '" + c.kernel + "' in the test's source");
    driver::Capabilities caps = driver::capabilities_of(driver::find_target(c.target));
    if (c.textures) caps.textures = *c.textures;
    driver::CompileOptions options{
        .debug = c.debug, .stop_after = c.stop_after, .shapes = [&](const driver::Template& t) {
            passes::ShapeValues shapes;
            for (auto [p, d] : t.dims_used)
                shapes[{p, d}] = c.extent(p, d);
            return shapes;
        }};
    return driver::compile({*fn, file, *env}, sema::parse_arg_types(c.args), caps, options);
}

/// The IR compile() stops with: the variant, or the optimized template.
inline ir::Kernel compiled_ir(const Compile& c) {
    return compile(c).ir;
}

/// Every extent `n`.
inline std::function<std::int64_t(int, int)> every_extent(std::int64_t n) {
    return [n](int, int) { return n; };
}

}  // namespace tack::testing
