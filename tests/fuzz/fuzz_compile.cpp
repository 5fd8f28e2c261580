// libFuzzer entry: arbitrary bytes as a Python module through the whole compile path, with no
// execution: parse, validate, lower under argument types derived from the input, the pass
// pipeline, shape specialization, LLVM IR for the CPU and C source for every GPU dialect.
// User errors (CompileError, the public error kinds) are expected; a crash, a sanitizer report,
// a hang or an InternalError escaping is a bug.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "codegen/cfamily/dialect.hpp"
#include "codegen/cfamily/emitter.hpp"
#include "codegen/llvm/llvm_codegen.hpp"
#include "diag/diagnostic.hpp"
#include "driver/driver.hpp"
#include "frontend/parser.hpp"
#include "passes/passes.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"
#include "tack/tack.hpp"

using namespace tack;

namespace {

// splitmix64: argument types and extents are a function of the input, so a crash reproduces.
struct Rng {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
};

std::vector<sema::Type> signature(const frontend::FunctionDef& fn, Rng& rng, int variant) {
    std::vector<sema::Type> args;
    for (size_t i = 0; i < fn.params.size(); ++i) {
        if (variant == 0) {  // the common case first: f32 vectors
            args.push_back(sema::Type::array(DType::f32, 1));
            continue;
        }
        auto dtype = static_cast<DType>(rng.below(kNumDTypes));
        if (rng.below(5) < 3) {
            args.push_back(sema::Type::array(dtype, 1 + rng.below(3)));
        } else {
            args.push_back(sema::Type::scalar(dtype));
        }
    }
    return args;
}

void generate(const ir::Kernel& optimized) {
    for (const char* name : {"opencl", "cuda", "hip", "metal"}) {
        try {
            (void)codegen::cfamily::emit(optimized, codegen::cfamily::dialect(name));
        } catch (const diag::CompileError&) {  // a dialect's own refusal (f64 on Metal, ...)
        } catch (const tack::Error&) {
        }
    }
    try {
        (void)codegen::llvm_cpu::emit_llvm_ir(optimized, {}, false);
    } catch (const diag::CompileError&) {  // workgroup primitives on the CPU
    }
}

// A target that refuses nothing (every dtype and atomic, workgroups, no bound on local arrays)
// and samples textures in hardware, so that every generator sees every construct.
const driver::Capabilities kCaps{"fuzz",
                                 "fuzz",
                                 DTypeSet::all(),
                                 DTypeSet::all(),
                                 true,
                                 UINT64_MAX,
                                 [](const std::array<std::int64_t, 3>&) { return true; }};

void compile(const frontend::FunctionDef& fn, const diag::SourceFilePtr& file,
             const sema::Environment& env, Rng& rng) {
    if (fn.def_kind != frontend::DefKind::Kernel || !sema::validate(fn, file, env).empty()) return;
    for (int variant = 0; variant < 3; ++variant) {
        try {
            driver::CompileOptions options{.shapes = [&](const driver::Template& t) {
                passes::ShapeValues shapes;
                for (auto pd : t.dims_used)
                    shapes[pd] = rng.below(4) == 0 ? 0 : 1 + rng.below(300);
                return shapes;
            }};
            generate(
                driver::compile({fn, file, env}, signature(fn, rng, variant), kCaps, options).ir);
        } catch (const diag::CompileError&) {
        } catch (const tack::Error&) {
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    auto file = std::make_shared<diag::SourceFile>("fuzz.py", text);
    frontend::ParseResult parsed = frontend::parse_module(file);
    auto module = std::make_shared<frontend::Module>(std::move(parsed.module));
    auto env = std::make_shared<sema::ModuleEnvironment>(module);
    Rng rng{std::hash<std::string>{}(text)};
    for (const auto& fn : module->functions)
        compile(*fn, file, *env, rng);
    return 0;
}
