// The intrinsic table: every intrinsic of the contract is present with the flags validation
// and lowering rely on (CONTRACT A5, A12, A35-A42, DECISIONS G6), and its argument counts are
// the ones its signature gives.

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
        if (b.category != Category::Construct) {
            EXPECT_EQ(b.name.find('.'), std::string_view::npos) << b.name;
        }
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

namespace tack::builtins {
namespace {

// The counts are derived from each row's signature text; these are the known cases.
TEST(BuiltinSignatures, DeriveTheArgumentCounts) {
    struct {
        const char* name;
        int min_args;
        int max_args;
    } cases[] = {{"sqrt", 1, 1},    {"atan2", 2, 2},    {"clamp", 3, 3},     {"min", 2, -1},
                 {"max", 2, -1},    {"range", 1, 3},    {"ndrange", 1, -1},  {"print", 0, -1},
                 {"barrier", 0, 0}, {"constant", 1, 2}, {"atomic_add", 3, 3}};
    for (const auto& c : cases) {
        const Builtin& b = get(c.name);
        EXPECT_EQ(b.min_args, c.min_args) << c.name;
        EXPECT_EQ(b.max_args, c.max_args) << c.name;
        EXPECT_EQ(b.signature.min_args(), c.min_args) << c.name;
        EXPECT_EQ(b.signature.max_args(), c.max_args) << c.name;
    }
    EXPECT_EQ(get("clamp").signature.text, "clamp(x: Value, lo: Value, hi: Value) -> Value");
    EXPECT_EQ(get("sqrt").signature.text, "sqrt(x: Value) -> Value");  // from TACK_IR_MATH
    EXPECT_EQ(get("pow").signature.text, "pow(a: Value, b: Value) -> Value");

    struct {
        const char* name;
        int min_args;
        int max_args;
    } methods_cases[] = {
        {"norm", 0, 1}, {"normalized", 0, 1}, {"sample", 3, 3}, {"dot", 1, 1}, {"transpose", 0, 0}};
    for (const auto& c : methods_cases) {
        const Method* m = find_method(c.name);
        ASSERT_NE(m, nullptr) << c.name;
        EXPECT_EQ(m->min_args, c.min_args) << c.name;
        EXPECT_EQ(m->max_args, c.max_args) << c.name;
    }
}

TEST(BuiltinSignatures, EveryRowIsItsSignature) {
    for (const Builtin& b : all()) {
        EXPECT_EQ(b.name, b.signature.name);
        EXPECT_EQ(b.min_args, b.signature.min_args()) << b.name;
        EXPECT_EQ(b.max_args, b.signature.max_args()) << b.name;
        EXPECT_TRUE(b.signature.text.starts_with(std::string(b.name) + "(")) << b.name;
        EXPECT_FALSE(b.doc.empty()) << b.name;
    }
    for (const Method& m : methods()) {
        EXPECT_EQ(m.name, m.signature.name);
        EXPECT_EQ(m.min_args, m.signature.min_args()) << m.name;
        EXPECT_EQ(m.max_args, m.signature.max_args()) << m.name;
    }
}

TEST(BuiltinSignatures, ParsesParametersAndResult) {
    constexpr Signature s =
        parse_signature("range(start: Int, stop: Int = ..., step: Int = 1) -> Range");
    static_assert(s.min_args() == 1 && s.max_args() == 3);
    ASSERT_EQ(s.param_count, 3);
    EXPECT_EQ(s.name, "range");
    EXPECT_EQ(s.params[0].name, "start");
    EXPECT_EQ(s.params[0].type, Type::Int);
    EXPECT_FALSE(s.params[0].optional);
    EXPECT_TRUE(s.params[2].optional);
    EXPECT_EQ(s.result, Type::Range);

    constexpr Signature v = parse_signature("print(*values: Any) -> None");
    static_assert(v.min_args() == 0 && v.max_args() == -1);
    EXPECT_TRUE(v.params[0].variadic);
    EXPECT_EQ(to_string(v.result), "None");

    constexpr Signature none = parse_signature("thread_id() -> Int");
    static_assert(none.param_count == 0 && none.max_args() == 0);
}

// What arity messages show: the call with the parameters' names, defaults and `*`, no types.
TEST(BuiltinSignatures, CallFormsAndArityErrors) {
    EXPECT_EQ(call_form(get("clamp").signature), "clamp(x, lo, hi)");
    EXPECT_EQ(call_form(get("range").signature), "range(start, stop=..., step=1)");
    EXPECT_EQ(call_form(get("max").signature), "max(a, b, *rest)");
    EXPECT_EQ(call_form(get("print").signature), "print(*values)");
    EXPECT_EQ(call_form(get("barrier").signature), "barrier()");
    EXPECT_EQ(call_form(get("Matrix.identity").signature), "Matrix.identity(n)");
    EXPECT_EQ(call_form(find_method("norm")->signature), "norm(eps=0)");
    EXPECT_EQ(call_form(find_method("sample")->signature), "sample(u, v, w)");

    EXPECT_EQ(arity_error(get("clamp").signature, 2),
              "takes 3 arguments (2 given): clamp(x, lo, hi)");
    EXPECT_EQ(arity_error(get("sqrt").signature, 0), "takes 1 argument (0 given): sqrt(x)");
    EXPECT_EQ(arity_error(get("min").signature, 1),
              "takes at least 2 arguments (1 given): min(a, b, *rest)");
    EXPECT_EQ(arity_error(get("range").signature, 4),
              "takes 1 to 3 arguments (4 given): range(start, stop=..., step=1)");
    EXPECT_EQ(arity_error(find_method("norm")->signature, 2),
              "takes at most 1 argument (2 given): norm(eps=0)");
    EXPECT_EQ(arity_error(get("thread_id").signature, 1), "takes no arguments (1 given)");
    // Every row's form starts with its name and shows no types.
    for (const Builtin& b : all()) {
        EXPECT_TRUE(call_form(b.signature).starts_with(std::string(b.name) + "(")) << b.name;
        EXPECT_EQ(call_form(b.signature).find(':'), std::string::npos) << b.name;
    }
}

TEST(BuiltinSignatures, MalformedTextIsRefused) {
    for (const char* text : {
             "clamp(x: Value, lo: Value",                         // no closing parenthesis
             "clamp(x: Value)",                                   // no result
             "clamp(x: Value) -> Number",                         // unknown type
             "clamp(x) -> Value",                                 // no type
             "clamp(x: Value = ..., y: Value) -> Value",          // required after optional
             "max(*rest: Value, b: Value) -> Value",              // a parameter after the `*` one
             "f(a: Int, b: Int, c: Int, d: Int, e: Int) -> Int",  // more than kMaxParams
             "f(a: Int,) -> Int",                                 // trailing comma
             "f(*a: Int = 1) -> Int",                             // a `*` parameter with a default
             "2f(a: Int) -> Int",                                 // not an identifier
         }) {
        EXPECT_THROW(parse_signature(text), std::invalid_argument) << text;
    }
}

TEST(BuiltinSignatures, PythonNamesAndCategoriesAreNamed) {
    EXPECT_EQ(get("atomic_add").python, PyName::Tack);
    EXPECT_EQ(get("clamp").python, PyName::TackMath);
    EXPECT_EQ(get("sqrt").python, PyName::Own);
    EXPECT_EQ(get("range").python, PyName::Own);
    EXPECT_EQ(get("ndrange").python, PyName::Tack);
    for (const Builtin& b : all()) {
        EXPECT_EQ(b.category == Category::Helper, b.python == PyName::TackMath) << b.name;
    }
    EXPECT_EQ(to_string(PyName::TackMath), "tack.math");
    EXPECT_EQ(to_string(Category::MinMax), "MinMax");
    EXPECT_EQ(title(Category::Math), "math functions");
    EXPECT_EQ(categories().size(), 14u);
    EXPECT_EQ(title(Receiver::VectorOrMatrix), "vectors and matrices");
}

}  // namespace
}  // namespace tack::builtins
