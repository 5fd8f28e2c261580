// The lane plan (codegen/llvm/lanes_plan.cpp): which kernels qualify, the reason when one does
// not, the shapes the analysis gives variables and expressions, and TACK_CPU_LANES. The lane
// code itself runs in every test of this binary under ctest's lanes.* copy (TACK_CPU_LANES=1)
// and in tests/python/test_lanes.py.

#include <cstdlib>
#include <optional>
#include <string>

#include "codegen/llvm/lanes_plan.hpp"
#include "diag/diagnostic.hpp"
#include "harness.hpp"
#include "support/env.hpp"

namespace tack::test {
namespace {

namespace detail = cpu::detail;
using detail::LanePlan;
using detail::Shape;

LanePlan plan(const Kernel& k, cpu::Lanes mode = cpu::Lanes::On) {
    return detail::plan_lanes(k, mode, 64);
}

Shape var_shape(const LanePlan& p, const VarPtr& v) {
    auto it = p.vars.find(v.get());
    return it == p.vars.end() ? Shape::uniform() : it->second;
}

// for i: x = a[i]; s = 0; for j in [0, n): s += b[j] * x; out[i] = s
struct Accumulate {
    KernelBuilder kb{"acc"};
    BufferPtr a = kb.array_param("a", f32), b = kb.array_param("b", f32),
              out = kb.array_param("out", f32);
    VarPtr n = kb.scalar_param("n", i64);
    VarPtr i = kb.dim(0, 0, 1);
    VarPtr x = kb.local("x", f32), s = kb.local("s", f32), j = kb.local("j", i64),
           idx = kb.local("idx", i64);
    Accumulate() {
        kb.k.body = {
            assign(idx, bin(BinaryOp::Add, bin(BinaryOp::Mul, use(i), c64(3)), c64(1))),
            assign(x, load(a, use(i))),
            assign(s, cf(f32, 0)),
            For::make(j, c64(0), use(n), c64(1),
                      {assign(s, bin(BinaryOp::Add, use(s),
                                     bin(BinaryOp::Mul, load(b, use(j)), use(x))))}),
            store(out, use(i), use(s)),
        };
    }
};

TEST(LanePlan, ShapesOfAnInnerReduction) {
    Accumulate t;
    LanePlan p = plan(t.kb.k);
    ASSERT_GT(p.width, 0) << p.reason;
    EXPECT_EQ(var_shape(p, t.i), Shape::linear(1));
    EXPECT_EQ(var_shape(p, t.idx), Shape::linear(3));  // i * 3 + 1
    EXPECT_EQ(var_shape(p, t.j), Shape::uniform());    // the inner counter stays scalar
    EXPECT_EQ(var_shape(p, t.x).kind, Shape::Varying);
    EXPECT_EQ(var_shape(p, t.s).kind, Shape::Varying);
    EXPECT_TRUE(p.divergent_loops.empty());
    // Two varying 4-byte variables: four registers each fit in 32, so W = 16 * 4.
    EXPECT_EQ(p.width, 64);
    EXPECT_EQ(p.reason, "64 lanes of 4-byte elements");
}

TEST(LanePlan, VaryingConditionsMakeLoopsDivergent) {
    KernelBuilder kb("div");
    auto a = kb.array_param("a", i32);
    auto i = kb.dim(0, 0, 1);
    auto w = kb.local("w", i32), u = kb.local("u", i32);
    auto keep = kb.local("keep", i32);
    StmtPtr loop = While::make(Compare::make(CompareOp::Lt, use(w), load(a, use(i))),
                               {assign(w, bin(BinaryOp::Add, use(w), cint(i32, 1)))});
    kb.k.body = {
        assign(w, cint(i32, 0)),
        assign(u, cint(i32, 5)),
        loop,
        If::make(Compare::make(CompareOp::Gt, use(w), cint(i32, 3)), {assign(u, cint(i32, 7))}, {}),
        assign(keep, cint(i32, 1)),  // after the varying if: still uniform
        store(a, use(i), bin(BinaryOp::Add, use(w), bin(BinaryOp::Add, use(u), use(keep)))),
    };
    LanePlan p = plan(kb.k);
    ASSERT_GT(p.width, 0) << p.reason;
    EXPECT_TRUE(p.divergent_loops.count(loop.get()));
    EXPECT_EQ(var_shape(p, w).kind, Shape::Varying);
    EXPECT_EQ(var_shape(p, u).kind, Shape::Varying);  // assigned under a varying if
    EXPECT_EQ(var_shape(p, keep), Shape::uniform());
}

TEST(LanePlan, ReasonsForTheScalarLoop) {
    {
        Accumulate t;
        EXPECT_EQ(plan(t.kb.k, cpu::Lanes::Off).reason, "lanes are off (TACK_CPU_LANES=0)");
        EXPECT_EQ(plan(t.kb.k, cpu::Lanes::Off).width, 0);
    }
    {
        KernelBuilder kb("straight");
        auto a = kb.array_param("a", f32);
        auto i = kb.dim(0, 0, 1);
        kb.k.body = {store(a, use(i), cf(f32, 1))};
        EXPECT_EQ(plan(kb.k, cpu::Lanes::Auto).reason,
                  "no sequential loop in the body (LLVM's loop vectorizer takes it)");
        EXPECT_GT(plan(kb.k, cpu::Lanes::On).width, 0);
    }
    {
        KernelBuilder kb("prints");
        auto i = kb.dim(0, 0, 1);
        kb.k.body = {Print::make({std::string("i"), use(i)})};
        LanePlan p = plan(kb.k);
        EXPECT_EQ(p.width, 0);
        EXPECT_EQ(p.reason.rfind("print()", 0), 0u) << p.reason;
    }
    {
        KernelBuilder kb("assigns_dim");
        auto a = kb.array_param("a", i64);
        auto i = kb.dim(0, 0, 1);
        kb.k.body = {assign(i, c64(0)), store(a, use(i), use(i))};
        EXPECT_EQ(plan(kb.k).reason, "the body assigns the parallel loop variable 'd0'");
    }
    {
        KernelBuilder kb("big_local");
        auto i = kb.dim(0, 0, 1);
        auto arr = kb.local_array("big", f64, 4096);
        kb.k.body = {AllocArray::make(arr)};
        LanePlan p = plan(kb.k);
        EXPECT_EQ(p.width, 0);
        EXPECT_NE(p.reason.find("too much stack"), std::string::npos) << p.reason;
        (void)i;
    }
    {
        KernelBuilder kb("no_dims");
        kb.k.body = {};
        EXPECT_EQ(plan(kb.k).reason, "no parallel loop");
    }
}

TEST(LanePlan, SummaryLineForInspect) {
    Accumulate t;
    EXPECT_EQ(cpu::lanes_summary(t.kb.k, {.lanes = cpu::Lanes::Off}),
              "lanes: none: lanes are off (TACK_CPU_LANES=0)");
    std::string on = cpu::lanes_summary(t.kb.k, {.lanes = cpu::Lanes::On});
    EXPECT_EQ(on.rfind("lanes: ", 0), 0u) << on;
    EXPECT_NE(on.find(" lanes of 4-byte elements"), std::string::npos) << on;
    std::string ir = cpu::emit_llvm_ir(t.kb.k, {.lanes = cpu::Lanes::On}, false);
    EXPECT_EQ(ir.rfind("; " + on + "\n", 0), 0u);
}

// Runs the accumulation kernel for n iterations with lanes on and off: the same bits.
TEST(LanePlan, LanesAndScalarAgreeOnEveryRemainder) {
    Accumulate t;
    auto compile_with = [&](cpu::Lanes lanes) {
        Compiled c;
        c.object = cpu::LoadedObject::load(cpu::compile_to_object(t.kb.k, {.lanes = lanes}));
        c.entry = c.object->entry(t.kb.k.name);
        return c;
    };
    Compiled on = compile_with(cpu::Lanes::On), off = compile_with(cpu::Lanes::Off);
    std::vector<float> a(200), b(37);
    for (size_t k = 0; k < a.size(); ++k)
        a[k] = 0.37f * float(k) - 20.0f;
    for (size_t k = 0; k < b.size(); ++k)
        b[k] = 1.0f / float(k + 1);
    for (int64_t n : {0, 1, 15, 16, 17, 63, 64, 65, 129, 200}) {
        std::vector<float> r_on(200, -1.0f), r_off(200, -1.0f);
        on.run({slot(a.data()), slot(b.data()), slot(r_on.data()), scalar_slot<int64_t>(37)}, 0, n);
        off.run({slot(a.data()), slot(b.data()), slot(r_off.data()), scalar_slot<int64_t>(37)}, 0,
                n);
        ASSERT_EQ(0, std::memcmp(r_on.data(), r_off.data(), r_on.size() * sizeof(float))) << n;
    }
}

// Sets (or unsets) a variable for one scope.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value) {
            ::setenv(name, value->c_str(), 1);
        } else {
            ::unsetenv(name);
        }
    }
    ~ScopedEnv() {
        if (old_) {
            ::setenv(name_, old_->c_str(), 1);
        } else {
            ::unsetenv(name_);
        }
    }

  private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(LanePlan, EnvironmentSpellings) {
    const std::pair<const char*, std::optional<bool>> cases[] = {
        {"", std::nullopt}, {"auto", std::nullopt}, {" AUTO ", std::nullopt},
        {"0", false},       {"off", false},         {"No", false},
        {"1", true},        {"on", true},           {"TRUE", true},
    };
    for (const auto& [text, want] : cases) {
        ScopedEnv env("TACK_CPU_LANES", text);
        EXPECT_EQ(support::env_cpu_lanes(), want) << "'" << text << "'";
    }
    {
        ScopedEnv env("TACK_CPU_LANES", std::nullopt);
        EXPECT_EQ(support::env_cpu_lanes(), std::nullopt);
    }
    ScopedEnv env("TACK_CPU_LANES", "sometimes");
    try {
        support::env_cpu_lanes();
        FAIL() << "no error";
    } catch (const diag::CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("Unknown TACK_CPU_LANES 'sometimes'"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace tack::test
