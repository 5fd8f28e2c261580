// ModuleEnvironment: how a module's imports, tack.constant assignments and @tack.func
// definitions resolve (CONTRACT A6, A22, A27).

#include <gtest/gtest.h>

#include <memory>

#include "frontend/parser.hpp"
#include "sema/environment.hpp"

namespace tack::sema {
namespace {

using Kind = Resolution::Kind;

struct Env {
    std::shared_ptr<frontend::Module> module;
    std::shared_ptr<ModuleEnvironment> env;
};

Env make_env(const std::string& source, std::map<std::string, Constant> extra = {}) {
    auto file = std::make_shared<diag::SourceFile>("env.py", source);
    frontend::ParseResult parsed = frontend::parse_module(file);
    EXPECT_TRUE(parsed.errors.empty());
    Env e;
    e.module = std::make_shared<frontend::Module>(std::move(parsed.module));
    e.env = std::make_shared<ModuleEnvironment>(e.module, std::move(extra));
    return e;
}

void expect_intrinsic(const Environment& env, const char* spelled, const char* canonical) {
    Resolution r = env.resolve(spelled);
    EXPECT_EQ(r.kind, Kind::Intrinsic) << spelled;
    EXPECT_EQ(r.intrinsic, canonical) << spelled;
}

void expect_other(const Environment& env, const char* spelled, const char* description) {
    Resolution r = env.resolve(spelled);
    EXPECT_EQ(r.kind, Kind::Other) << spelled;
    EXPECT_EQ(r.other_description, description) << spelled;
}

TEST(Environment, TackModuleMembersAreIntrinsics) {
    Env e = make_env("import tack\n");
    expect_intrinsic(*e.env, "tack.sqrt", "sqrt");
    expect_intrinsic(*e.env, "tack.atomic_add", "atomic_add");
    expect_intrinsic(*e.env, "tack.f32", "f32");
    expect_intrinsic(*e.env, "tack.ndrange", "ndrange");
    expect_intrinsic(*e.env, "tack.math.fract", "fract");
    expect_intrinsic(*e.env, "tack.math.smoothstep", "smoothstep");
    expect_other(*e.env, "tack.kernel", "'kernel' of module 'tack'");
    expect_other(*e.env, "tack", "module 'tack'");
    expect_other(*e.env, "tack.math", "module 'tack.math'");
}

TEST(Environment, TackAliasesAndFromImports) {
    Env e = make_env(
        "import tack as tk\nfrom tack import f32, barrier as sync, math as tm\n"
        "import tack.math as tmath\n");
    expect_intrinsic(*e.env, "tk.exp", "exp");
    expect_intrinsic(*e.env, "f32", "f32");
    expect_intrinsic(*e.env, "sync", "barrier");
    expect_intrinsic(*e.env, "tm.mix", "mix");
    expect_intrinsic(*e.env, "tmath.clamp", "clamp");
    EXPECT_EQ(e.env->resolve("tack.sqrt").kind, Kind::Unbound);  // only `tk` is bound
}

TEST(Environment, ImportOfSubmoduleBindsThePackage) {
    Env e = make_env("import tack.math\n");
    expect_intrinsic(*e.env, "tack.sqrt", "sqrt");
    expect_intrinsic(*e.env, "tack.math.sign", "sign");
}

TEST(Environment, MathConstantsAreExactDoubles) {
    Env e = make_env("import math\nfrom math import pi as PI, e, sqrt as root\n");
    struct {
        const char* name;
        double value;
    } cases[] = {{"math.pi", 3.141592653589793},
                 {"math.e", 2.718281828459045},
                 {"math.tau", 6.283185307179586},
                 {"PI", 3.141592653589793},
                 {"e", 2.718281828459045}};
    for (auto& c : cases) {
        Resolution r = e.env->resolve(c.name);
        ASSERT_EQ(r.kind, Kind::Constant) << c.name;
        EXPECT_EQ(r.constant.kind, Constant::Kind::Float);
        EXPECT_EQ(r.constant.fval, c.value) << c.name;
        EXPECT_FALSE(r.constant.dtype.has_value());
    }
    expect_intrinsic(*e.env, "math.sqrt", "sqrt");
    expect_intrinsic(*e.env, "math.atan2", "atan2");
    expect_intrinsic(*e.env, "root", "sqrt");
    expect_other(*e.env, "math.gamma", "'gamma' of module 'math'");
}

TEST(Environment, OtherModulesAreNotIntrinsics) {
    Env e = make_env("import numpy as np\nfrom numpy import sqrt\nimport helpers\n");
    expect_other(*e.env, "np", "module 'numpy'");
    expect_other(*e.env, "np.sqrt", "'sqrt' of module 'numpy'");
    expect_other(*e.env, "sqrt", "'sqrt' of module 'numpy'");
    expect_other(*e.env, "helpers.norm2", "'norm2' of module 'helpers'");
    EXPECT_EQ(e.env->resolve("numpy").kind, Kind::Unbound);
}

TEST(Environment, TackConstantsEvaluateTheirLiterals) {
    Env e = make_env(
        "import tack\nfrom tack import u8\n"
        "A = tack.constant(3)\n"
        "B = tack.constant(-2.5, tack.f64)\n"
        "C = tack.constant(747796405, tack.u32)\n"
        "D = tack.constant(True)\n"
        "E = tack.constant(7, u8)\n"
        "F = tack.constant(-9223372036854775808)\n"
        "G = tack.constant(0.1, dtype=tack.f32)\n"
        "V = tack.constant((1.0, 2.0))\n");
    Resolution a = e.env->resolve("A");
    ASSERT_EQ(a.kind, Kind::Constant);
    EXPECT_EQ(a.constant.kind, Constant::Kind::Int);
    EXPECT_TRUE(a.constant.ival == 3);
    EXPECT_FALSE(a.constant.dtype);

    Resolution b = e.env->resolve("B");
    ASSERT_EQ(b.kind, Kind::Constant);
    EXPECT_EQ(b.constant.kind, Constant::Kind::Float);
    EXPECT_EQ(b.constant.fval, -2.5);
    EXPECT_EQ(b.constant.dtype, DType::f64);

    Resolution c = e.env->resolve("C");
    ASSERT_EQ(c.kind, Kind::Constant);
    EXPECT_TRUE(c.constant.ival == 747796405);
    EXPECT_EQ(c.constant.dtype, DType::u32);

    EXPECT_TRUE(e.env->resolve("D").constant.ival == 1);
    EXPECT_EQ(e.env->resolve("E").constant.dtype, DType::u8);

    Resolution f = e.env->resolve("F");
    ASSERT_EQ(f.kind, Kind::Constant);
    EXPECT_TRUE(f.constant.ival == -(static_cast<__int128>(1) << 63));

    Resolution g = e.env->resolve("G");
    ASSERT_EQ(g.kind, Kind::Constant);
    EXPECT_EQ(g.constant.fval, 0.1);
    EXPECT_EQ(g.constant.dtype, DType::f32);

    Resolution v = e.env->resolve("V");  // a vector constant (CONTRACT A27)
    ASSERT_EQ(v.kind, Kind::Constant);
    ASSERT_EQ(v.constant.kind, sema::Constant::Kind::Tuple);
    EXPECT_EQ(v.constant.rows, 2);
    EXPECT_EQ(v.constant.cols, 0);
    ASSERT_EQ(v.constant.items.size(), 2u);
    EXPECT_EQ(v.constant.items[1].fval, 2.0);
}

TEST(Environment, ExtraConstantsFromCpp) {
    Env e = make_env("import tack\n", {{"SCALE", Constant::floating(2.0)},
                                       {"cfg.N", Constant::integer(16, DType::i64)}});
    Resolution s = e.env->resolve("SCALE");
    ASSERT_EQ(s.kind, Kind::Constant);
    EXPECT_EQ(s.constant.fval, 2.0);
    Resolution n = e.env->resolve("cfg.N");
    ASSERT_EQ(n.kind, Kind::Constant);
    EXPECT_TRUE(n.constant.ival == 16);
    EXPECT_EQ(n.constant.dtype, DType::i64);
}

TEST(Environment, DefinitionsResolveToFuncsAndKernels) {
    Env e = make_env(
        "import tack\n\n@tack.func\ndef helper(a):\n    return a\n\n@tack.kernel\n"
        "def k(x):\n    for i in range(4):\n        x[i] = helper(x[i])\n");
    Resolution h = e.env->resolve("helper");
    ASSERT_EQ(h.kind, Kind::Func);
    EXPECT_EQ(h.func.def, e.module->functions[0].get());
    EXPECT_EQ(h.func.env.get(), e.env.get());
    EXPECT_EQ(h.func.file, e.module->file);
    EXPECT_EQ(h.func.keep_alive.get(), e.module.get());
    EXPECT_EQ(h.func.identity(), e.module->functions[0].get());
    expect_other(*e.env, "k", "the @tack.kernel 'k'");
    EXPECT_EQ(e.env->resolve("missing").kind, Kind::Unbound);
    EXPECT_EQ(e.env->resolve("sqrt").kind, Kind::Unbound);  // bare intrinsics are unbound
}

TEST(Environment, ConstantFactories) {
    Constant i = Constant::integer(-5, DType::i8);
    EXPECT_EQ(i.kind, Constant::Kind::Int);
    EXPECT_TRUE(i.ival == -5);
    EXPECT_EQ(i.dtype, DType::i8);
    Constant f = Constant::floating(0.5);
    EXPECT_EQ(f.kind, Constant::Kind::Float);
    EXPECT_EQ(f.fval, 0.5);
    EXPECT_FALSE(f.dtype);
}

// Definitions inside host functions resolve names as closures do: the function's own imports,
// constants and definitions first, then the enclosing function's, then the module's.
TEST(Environment, NestedScopesShadowOutward) {
    Env e = make_env(
        "import tack\nK = tack.constant(1)\nJ = tack.constant(5)\n"
        "def outer():\n"
        "    K = tack.constant(2)\n"
        "    import math as m\n"
        "    @tack.func\n"
        "    def helper(x):\n"
        "        return x\n"
        "    class Holder:\n"
        "        H = tack.constant(9)\n"
        "        def method(self):\n"
        "            @tack.kernel\n"
        "            def deepest(x: tack.f32[:]):\n"
        "                for i in range(x.shape[0]):\n"
        "                    x[i] = K\n"
        "    @tack.kernel\n"
        "    def inner(x: tack.f32[:]):\n"
        "        for i in range(x.shape[0]):\n"
        "            x[i] = helper(K)\n");
    ASSERT_EQ(e.module->functions.size(), 0u);
    ASSERT_EQ(e.module->nested.size(), 3u);
    ASSERT_EQ(e.module->scopes.size(), 2u);  // outer, Holder.method (the class is no scope)
    EXPECT_EQ(e.module->scopes[1].parent, 0);
    EXPECT_EQ(e.module->nested[1]->name, "deepest");
    EXPECT_EQ(e.module->nested[1]->scope, 1);
    auto outer = std::make_shared<ModuleEnvironment>(e.module, 0, e.env);
    auto method = std::make_shared<ModuleEnvironment>(e.module, 1, outer);
    EXPECT_EQ(outer->resolve("K").constant.ival, 2);
    EXPECT_EQ(method->resolve("K").constant.ival, 2);
    EXPECT_EQ(method->resolve("J").constant.ival, 5);
    EXPECT_EQ(e.env->resolve("K").constant.ival, 1);
    EXPECT_EQ(method->resolve("H").kind, Kind::Unbound);  // class names are not closures'
    EXPECT_EQ(outer->resolve("helper").kind, Kind::Func);
    EXPECT_EQ(e.env->resolve("helper").kind, Kind::Unbound);
    expect_intrinsic(*method, "m.sqrt", "sqrt");
    EXPECT_EQ(e.env->resolve("m.sqrt").kind, Kind::Unbound);
}

// tack.random resolves from python/tack/random.py's own text, compiled in.
TEST(Environment, TackRandomIsTheCompiledInModule) {
    Env e = make_env("import tack\nfrom tack import random\nimport tack.random as tr\n");
    for (const char* spelled : {"tack.random.uniform", "random.seed", "tr.direction3"}) {
        Resolution r = e.env->resolve(spelled);
        ASSERT_EQ(r.kind, Kind::Func) << spelled;
        EXPECT_EQ(r.func.def->def_kind, frontend::DefKind::Func);
    }
    EXPECT_EQ(e.env->resolve("random.uniform").func.def->name, "uniform");
    expect_other(*e.env, "random.np_uniform", "'np_uniform' of module 'tack.random'");
    expect_other(*e.env, "tack.random", "module 'tack.random'");
}

}  // namespace
}  // namespace tack::sema
