// Typing during lowering: literals (B3), promotion (B6), result-type exceptions (B7, B15, B16),
// weak float literals (B4) and one storage type per local (B8).
#include "unit/sema/test_lower_util.hpp"

namespace tack::sema::testing {
namespace {

// Type of local `t` after `t = <expr>` in a kernel over fields x, y of the given dtypes.
std::optional<DType> type_of(const std::string& expr, DType x, DType y) {
    auto l = lower_source(kernel1("x, y", {"t = " + expr}), {arr(x), arr(y)});
    return local_type(l.kernel, "t");
}

TEST(LowerTypes, IntegerLiteralsByValue) {
    EXPECT_EQ(type_of("2147483647", f32, f32), i32);
    EXPECT_EQ(type_of("2147483648", f32, f32), i64);
    EXPECT_EQ(type_of("-2147483648", f32, f32), i32);
    EXPECT_EQ(type_of("-2147483649", f32, f32), i64);
    EXPECT_EQ(type_of("9223372036854775807", f32, f32), i64);
    EXPECT_EQ(type_of("-9223372036854775808", f32, f32), i64);
    EXPECT_EQ(type_of("9223372036854775808", f32, f32), u64);
    EXPECT_EQ(type_of("18446744073709551615", f32, f32), u64);
    EXPECT_EQ(type_of("True", f32, f32), i32);
    EXPECT_EQ(type_of("0.5", f32, f32), f32);
}

TEST(LowerTypes, PromotionTable) {
    EXPECT_EQ(type_of("x[i] + y[i]", i8, u8), i16);
    EXPECT_EQ(type_of("x[i] + y[i]", i8, u16), i32);
    EXPECT_EQ(type_of("x[i] + y[i]", i32, u32), i64);
    EXPECT_EQ(type_of("x[i] + y[i]", i16, u32), i64);
    EXPECT_EQ(type_of("x[i] + y[i]", u8, u64), u64);
    EXPECT_EQ(type_of("x[i] + y[i]", i64, f32), f32);
    EXPECT_EQ(type_of("x[i] * y[i]", f32, f64), f64);
    EXPECT_EQ(type_of("x[i] < y[i]", i8, u8), i32);
}

TEST(LowerTypes, SignedWithU64IsATypeError) {
    std::string err = lower_error(kernel1("x, y", {"t = x[i] + y[i]"}), {arr(i64), arr(u64)});
    EXPECT_EQ(err,
              "TypeError: Kernel 'k': operands of types i64 and u64 have no common type; use an "
              "explicit integer cast at line 7, column 13");
    // Comparisons too (B6).
    EXPECT_NE(lower_error(kernel1("x, y", {"t = x[i] < y[i]"}), {arr(i32), arr(u64)}), "");
}

TEST(LowerTypes, ResultTypeExceptions) {
    EXPECT_EQ(type_of("x[i] / y[i]", i64, i8), f32);  // B15
    EXPECT_EQ(type_of("x[i] / y[i]", i32, f64), f64);
    EXPECT_EQ(type_of("x[i] ** y[i]", i8, i64), i8);  // B16: the base's type
    EXPECT_EQ(type_of("pow(x[i], y[i])", u8, i32), u8);
    EXPECT_EQ(type_of("x[i] ** y[i]", i32, f32), f32);
    EXPECT_EQ(type_of("x[i] << y[i]", u8, i64), u8);  // B13
    EXPECT_EQ(type_of("x[i] >> y[i]", i16, u32), i16);
    EXPECT_EQ(type_of("abs(x[i])", i8, i8), i8);
    EXPECT_EQ(type_of("math.sqrt(x[i])", i64, i64), f32);
    EXPECT_EQ(type_of("math.atan2(x[i], y[i])", i32, f64), f64);
    EXPECT_EQ(type_of("min(x[i], y[i])", u8, i8), i16);
    EXPECT_EQ(type_of("max(x[i], y[i], 0.5)", i32, i32), f32);
    EXPECT_EQ(type_of("not x[i]", f64, f64), i32);
    EXPECT_EQ(type_of("x[i] and y[i]", f64, f64), i32);
    EXPECT_EQ(type_of("tack.i8(x[i])", f64, f64), i8);
    EXPECT_EQ(type_of("int(x[i])", f64, f64), i32);
    EXPECT_EQ(type_of("float(x[i])", i64, i64), f32);
}

TEST(LowerTypes, IntDivisionConvertsBothOperandsToF32) {
    std::string ir = lower_print(kernel1("x, y", {"y[i] = x[i] / 2"}), {arr(i32), arr(f64)});
    EXPECT_NE(ir.find("store y[i.2] = (f64 cast (f32 div (f32 cast (i32 load x[i.2])) 2f32))"),
              std::string::npos)
        << ir;
}

TEST(LowerTypes, NegativeLiteralExponentIsATypeError) {
    std::string err = lower_error(kernel1("x", {"x[i] = x[i] ** -2"}), {arr(i32)});
    EXPECT_NE(err.find("TypeError: Kernel 'k': integer ** with a negative literal exponent"),
              std::string::npos)
        << err;
    EXPECT_EQ(lower_error(kernel1("x", {"x[i] = x[i] ** -2.0"}), {arr(f32)}), "");
}

TEST(LowerTypes, WeakLiteralAdoptsF64FromTheOtherOperand) {
    std::string src =
        kernel1("x, y", {"x[i] = x[i] * 0.1", "x[i] = x[i] * -0.1", "x[i] = x[i] * (0.1 + 0.2)",
                         "t = x[i] < 0.1", "y[i] = i * 0.1", "y[i] = y[i] * 0.1"});
    std::string ir = lower_print(src, {arr(f64), arr(f32)});
    // Parameters x.0 and y.1, loop variable i.2.
    EXPECT_EQ(ir,
              "kernel k(x: f64[1], y: f32[1])\n"
              "  locals t.3: i32\n"
              "  parallel i.2 in [0i64, dim(x,0)) step 1i64:\n"
              "    store x[i.2] = (f64 mul (f64 load x[i.2]) 0.1f64)\n"
              "    store x[i.2] = (f64 mul (f64 load x[i.2]) -0.1f64)\n"
              "    store x[i.2] = (f64 mul (f64 load x[i.2]) (f64 add 0.1f64 0.2f64))\n"
              "    t.3 = (i32 lt (f64 load x[i.2]) 0.1f64)\n"
              "    store y[i.2] = (f32 mul (f32 cast i.2) 0.1f32)\n"
              "    store y[i.2] = (f32 mul (f32 load y[i.2]) 0.1f32)\n");
}

TEST(LowerTypes, WeakLiteralValuesAreTheExactDoubles) {
    auto l = lower_source(kernel1("x", {"x[i] = x[i] * 0.1"}), {arr(f64)});
    const auto* store = l.kernel.body.at(0)->as<ir::Store>();
    ASSERT_NE(store, nullptr);
    const auto* mul = store->value->as<ir::Binary>();
    ASSERT_NE(mul, nullptr);
    const auto* imm = mul->b->as<ir::FloatImm>();
    ASSERT_NE(imm, nullptr);
    EXPECT_EQ(imm->type, f64);
    EXPECT_EQ(imm->value, 0.1);  // the double nearest 0.1, not float(0.1) widened
    auto l32 = lower_source(kernel1("x", {"x[i] = x[i] * 0.1"}), {arr(f32)});
    const auto* imm32 =
        l32.kernel.body.at(0)->as<ir::Store>()->value->as<ir::Binary>()->b->as<ir::FloatImm>();
    EXPECT_EQ(imm32->type, f32);
    EXPECT_EQ(imm32->value, static_cast<double>(0.1f));
}

TEST(LowerTypes, WeakLiteralContexts) {
    std::string ir = lower_print(
        kernel1("x", {"x[i] = 0.1", "x[i] = tack.f32(0.1)", "x[i] = x[i] if i > 0 else 0.1",
                      "x[i] = math.sqrt(0.5) * x[i]", "tack.atomic_add(x, i, 0.1)",
                      "x[i] = math.pi * x[i]", "t = int(2.5)"}),
        {arr(f64)});
    EXPECT_EQ(ir,
              "kernel k(x: f64[1])\n"
              "  locals t.2: i32\n"
              "  parallel i.1 in [0i64, dim(x,0)) step 1i64:\n"
              "    store x[i.1] = 0.1f64\n"
              "    store x[i.1] = (f64 cast 0.1f32)\n"
              "    store x[i.1] = (f64 select (i32 gt i.1 0i64) (f64 load x[i.1]) 0.1f64)\n"
              "    store x[i.1] = (f64 mul (f64 sqrt 0.5f64) (f64 load x[i.1]))\n"
              "    atomic_add x[i.1], 0.1f64\n"
              "    store x[i.1] = (f64 mul 3.141592653589793f64 (f64 load x[i.1]))\n"
              "    t.2 = (i32 cast 2.5f32)\n");
}

TEST(LowerTypes, TypedConstantIsTheLiteralUnderItsCast) {
    const char* prelude =
        "C = tack.constant(0.1, tack.f64)\nU = tack.constant(747796405, tack.u32)\n";
    auto l = lower_source(kernel1("x", {"t = C", "u = U * U"}, prelude), {arr(f32)});
    EXPECT_EQ(local_type(l.kernel, "t"), f64);
    EXPECT_EQ(local_type(l.kernel, "u"), u32);
    const auto* a = l.kernel.body.at(0)->as<ir::Assign>();
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->value->as<ir::FloatImm>()->value, 0.1);
}

TEST(LowerTypes, LocalWidensToF64ByFixpoint) {
    const char* src = R"(
import tack

@tack.kernel
def k(x, out):
    for i in range(out.shape[0]):
        total = 0.0
        for j in range(x.shape[0]):
            total += x[j]
        out[i] = total
)";
    std::string ir = lower_print(src, {arr(f64), arr(f32)});
    EXPECT_EQ(ir,
              "kernel k(x: f64[1], out: f32[1])\n"
              "  locals total.3: f64, j.4: i64\n"
              "  parallel i.2 in [0i64, dim(out,0)) step 1i64:\n"
              "    total.3 = 0f64\n"
              "    for j.4 in [0i64, dim(x,0)) step 1i64:\n"
              "      total.3 = (f64 add total.3 (f64 load x[j.4]))\n"
              "    store out[i.2] = (f32 cast total.3)\n");
}

TEST(LowerTypes, LocalJoinsAllAssignedTypes) {
    auto l = lower_source(kernel1("x, y", {"t = 0", "if i > 2:", "    t = y[i]", "x[i] = t"}),
                          {arr(i64), arr(u16)});
    EXPECT_EQ(local_type(l.kernel, "t"), i32);
    auto w = lower_source(kernel1("x, y", {"t = 0", "t = t + 0.5"}), {arr(i64), arr(f64)});
    EXPECT_EQ(local_type(w.kernel, "t"), f32);  // an integer local that gets a weak float
    auto a = lower_source(kernel1("x, y", {"t = 0.1"}), {arr(f64), arr(f64)});
    // Only weak values: the kernel's float type, f64 beside f64 fields (the public Oct 2026
    // float-literal rule), f32 otherwise.
    EXPECT_EQ(local_type(a.kernel, "t"), f64);
    auto b = lower_source(kernel1("x, y", {"t = 0.1", "t = t * 2.0"}), {arr(f32), arr(i32)});
    EXPECT_EQ(local_type(b.kernel, "t"), f32);
    std::string err = lower_error(kernel1("x, y", {"t = x[i]", "t = y[i]"}), {arr(i8), arr(u64)});
    EXPECT_EQ(err,
              "TypeError: Kernel 'k': cannot assign a value of type u64 to a local that also "
              "holds i8 (no common type; use an explicit integer cast) at line 8, column 9");
}

TEST(LowerTypes, ParametersAndLoopVariablesArePinned) {
    auto l = lower_source(kernel1("x, n", {"n = 0.5", "for j in range(3):", "    j = 2.5"}),
                          {arr(f32), scalar(i16)});
    // The per-iteration copy of n keeps the parameter's type; the copy of j stays i64.
    EXPECT_EQ(local_type(l.kernel, "n"), i16);
    EXPECT_EQ(local_type(l.kernel, "j"), i64);
}

TEST(LowerTypes, BlockReductionsNeedF32) {
    EXPECT_EQ(lower_error(kernel1("x", {"x[i] = tack.block_sum(x[i])"}), {arr(f64)}),
              "TypeError: Kernel 'k': block_sum requires f32 input; use an explicit f32 cast at "
              "line 7, column 16");
    EXPECT_EQ(lower_error(kernel1("x", {"x[i] = tack.block_max(tack.f32(x[i]))"}), {arr(f64)}), "");
}

}  // namespace
}  // namespace tack::sema::testing
