// The intrinsic table: every intrinsic of the contract is present with the flags validation
// and lowering rely on (CONTRACT A5, A12, A35-A42, DECISIONS G6).

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "builtins/builtins.hpp"

namespace tack::builtins {
namespace {

const Builtin& get(const char* name) {
    const Builtin* b = find(name);
    if (!b) throw std::runtime_error(std::string("missing builtin ") + name);
    return *b;
}

TEST(Builtins, MathFunctionsArePureWithFixedArity) {
    for (const char* n :
         {"sqrt", "sin",  "cos", "tan",  "asin",  "acos",  "atan", "sinh",  "cosh",  "tanh",
          "exp",  "exp2", "log", "log2", "log10", "floor", "ceil", "trunc", "round", "abs"}) {
        const Builtin& b = get(n);
        EXPECT_EQ(b.category, Category::Math) << n;
        EXPECT_EQ(b.min_args, 1) << n;
        EXPECT_EQ(b.max_args, 1) << n;
        EXPECT_TRUE(b.value_ok && b.allowed_outside_loop && !b.needs_workgroups) << n;
    }
    for (const char* n : {"atan2", "pow", "fmod", "copysign"}) {
        EXPECT_EQ(get(n).min_args, 2) << n;
        EXPECT_EQ(get(n).max_args, 2) << n;
    }
}

TEST(Builtins, MinMaxTakeTwoOrMore) {
    for (const char* n : {"min", "max"}) {
        EXPECT_EQ(get(n).category, Category::MinMax);
        EXPECT_EQ(get(n).min_args, 2);
        EXPECT_EQ(get(n).max_args, -1);
    }
}

TEST(Builtins, ShaderHelpers) {
    struct {
        const char* name;
        int args;
    } cases[] = {{"fract", 1}, {"mix", 3},  {"clamp", 3},  {"saturate", 1}, {"smoothstep", 3},
                 {"step", 2},  {"sign", 1}, {"length", 1}, {"distance", 2}, {"normalize", 1}};
    for (auto& c : cases) {
        EXPECT_EQ(get(c.name).category, Category::Helper) << c.name;
        EXPECT_EQ(get(c.name).min_args, c.args) << c.name;
        EXPECT_EQ(get(c.name).max_args, c.args) << c.name;
    }
}

TEST(Builtins, Casts) {
    for (const char* n :
         {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64", "int", "float"}) {
        EXPECT_EQ(get(n).category, Category::Cast) << n;
        EXPECT_EQ(get(n).min_args, 1);
        EXPECT_EQ(get(n).max_args, 1);
        EXPECT_TRUE(get(n).allowed_outside_loop);
    }
    EXPECT_EQ(find("bool"), nullptr);
}

TEST(Builtins, AtomicsReturnTheOldValueButStayInTheLoop) {
    for (const char* n : {"atomic_add", "atomic_min", "atomic_max"}) {
        const Builtin& b = get(n);
        EXPECT_EQ(b.category, Category::Atomic);
        EXPECT_EQ(b.min_args, 3);
        EXPECT_EQ(b.max_args, 3);
        EXPECT_TRUE(b.statement_ok);
        EXPECT_TRUE(b.value_ok);  // DECISIONS G6
        EXPECT_FALSE(b.allowed_outside_loop);
        EXPECT_FALSE(b.needs_workgroups);
    }
}

TEST(Builtins, Allocation) {
    for (const char* n : {"local_array", "local_array_like", "shared", "shared_like"}) {
        EXPECT_EQ(get(n).category, Category::Alloc);
        EXPECT_EQ(get(n).min_args, 2);
        EXPECT_EQ(get(n).max_args, 2);
        EXPECT_TRUE(get(n).allowed_outside_loop);
    }
    EXPECT_FALSE(get("local_array").needs_workgroups);
    EXPECT_FALSE(get("local_array_like").needs_workgroups);
    EXPECT_TRUE(get("shared").needs_workgroups);
    EXPECT_TRUE(get("shared_like").needs_workgroups);
}

TEST(Builtins, WorkgroupPrimitives) {
    const Builtin& barrier = get("barrier");
    EXPECT_EQ(barrier.max_args, 0);
    EXPECT_TRUE(barrier.statement_ok);
    EXPECT_FALSE(barrier.value_ok);
    EXPECT_FALSE(barrier.allowed_outside_loop);
    EXPECT_TRUE(barrier.needs_workgroups);

    const Builtin& tid = get("thread_id");
    EXPECT_EQ(tid.max_args, 0);
    EXPECT_TRUE(tid.value_ok);
    EXPECT_TRUE(tid.allowed_outside_loop);
    EXPECT_TRUE(tid.needs_workgroups);

    for (const char* n : {"block_sum", "block_min", "block_max"}) {
        EXPECT_EQ(get(n).min_args, 1);
        EXPECT_EQ(get(n).max_args, 1);
        EXPECT_TRUE(get(n).value_ok);
        EXPECT_FALSE(get(n).allowed_outside_loop);
        EXPECT_TRUE(get(n).needs_workgroups);
    }
}

TEST(Builtins, LoopsPrintLenSelectConstant) {
    EXPECT_EQ(get("range").min_args, 1);
    EXPECT_EQ(get("range").max_args, 3);
    EXPECT_EQ(get("ndrange").min_args, 1);
    EXPECT_EQ(get("ndrange").max_args, -1);
    EXPECT_FALSE(get("print").value_ok);
    EXPECT_FALSE(get("print").allowed_outside_loop);
    EXPECT_EQ(get("len").max_args, 1);
    EXPECT_EQ(get("select").min_args, 3);
    EXPECT_EQ(get("select").max_args, 3);
    EXPECT_EQ(get("constant").category, Category::Constant);
}

TEST(Builtins, TableHasUniqueCanonicalNames) {
    std::set<std::string> names;
    for (const Builtin& b : all()) {
        EXPECT_TRUE(names.insert(std::string(b.name)).second) << b.name;
        EXPECT_EQ(find(b.name), &b);
        // Bare names, except the static methods of the vector classes ("Matrix.identity").
        if (b.category != Category::Construct)
            EXPECT_EQ(b.name.find('.'), std::string_view::npos) << b.name;
    }
    EXPECT_EQ(names.size(), 71u);  // 24 math, 2 min/max, 10 helpers, 12 casts, 3 atomics,
    // 4 allocations, 5 workgroup, range, ndrange, print, len, select, constant, Vector, Matrix,
    // Matrix.identity, any, all
    EXPECT_EQ(find(""), nullptr);
    EXPECT_EQ(find("tack.sqrt"), nullptr);
    EXPECT_EQ(find("sqr"), nullptr);
}

}  // namespace
}  // namespace tack::builtins

namespace tack::builtins {
namespace {

TEST(Builtins, MethodsAreOneListWithReceiversAndArity) {
    ASSERT_NE(find_method("norm"), nullptr);
    EXPECT_EQ(find_method("norm")->max_args, 1);  // norm(eps)
    EXPECT_EQ(find_method("cross")->receiver, Receiver::Vector);
    EXPECT_EQ(find_method("inverse")->receiver, Receiver::Matrix);
    EXPECT_EQ(find_method("sample")->receiver, Receiver::Texture);
    EXPECT_EQ(find_method("sample")->min_args, 3);
    EXPECT_EQ(find_method("foo"), nullptr);
    EXPECT_EQ(methods().size(), 14u);
    for (const Method& m : methods())
        EXPECT_EQ(find_method(m.name), &m) << m.name;
}

}  // namespace
}  // namespace tack::builtins
