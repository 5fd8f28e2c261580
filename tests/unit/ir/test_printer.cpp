// Golden text of small kernels, written by hand from the format described in printer.cpp.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/printer.hpp"
#include "unit/ir/ir_test_util.hpp"

namespace tack::ir {
namespace {

using namespace test;

TEST(IrPrinter, Saxpy) {
    auto x = param_array("x", DType::f32, 1, 0);
    auto y = param_array("y", DType::f32, 1, 1);
    auto a = var("a", DType::f32, 2);
    auto i = var("i", DType::i64, 0);
    Kernel k;
    k.name = "saxpy";
    k.params = {array_param(x), array_param(y), scalar_param(a)};
    k.dims = {LoopDim{i, i64c(0), ArrayDim::make(x, 0), i64c(1)}};
    auto xi = Load::make(x, vref(i));
    auto yi = Load::make(y, vref(i));
    k.body = {Store::make(y, vref(i), bin(BinaryOp::Add, bin(BinaryOp::Mul, vref(a), xi), yi))};
    EXPECT_EQ(print(k),
              "kernel saxpy(x: f32[1], y: f32[1], a.2: f32)\n"
              "  parallel i.0 in [0i64, dim(x,0)) step 1i64:\n"
              "    store y[i.0] = (f32 add (f32 mul a.2 (f32 load x[i.0])) (f32 load y[i.0]))\n");
}

TEST(IrPrinter, ControlFlowLocalsPrologueResult) {
    OneDim d(DType::i32);
    auto t = var("t", DType::i32, 1);
    auto j = var("j", DType::i64, 2);
    auto s = var("s", DType::f32, 3);
    auto tmp = local_array("tmp", DType::i32, 8, 4);
    d.k.locals = {t, j, s};
    d.k.prologue = {Assign::make(s, f32c(0.5))};
    Block loop_body = {
        If::make(Compare::make(CompareOp::Ge, vref(j), i64c(3)), {Break::make()}, {}),
        Store::make(tmp, vref(j), Cast::make(DType::i32, vref(j))),
    };
    d.k.body = {
        AllocArray::make(tmp),
        Assign::make(t, Load::make(d.x, vref(d.i))),
        For::make(j, i64c(0), i64c(8), i64c(1), loop_body),
        If::make(Logical::make(LogicalOp::Or, vref(t), i32c(0)), {Continue::make()},
                 {Print::make({std::string("t \"is\""), vref(t)})}),
        While::make(i32c(0), {}),
    };
    d.k.result = vref(s);
    EXPECT_EQ(print(d.k),
              "kernel k(x: i32[1]) -> f32\n"
              "  locals t.1: i32, j.2: i64, s.3: f32\n"
              "  prologue:\n"
              "    s.3 = 0.5f32\n"
              "  parallel i.0 in [0i64, dim(x,0)) step 1i64:\n"
              "    alloc local tmp.4: i32[8]\n"
              "    t.1 = (i32 load x[i.0])\n"
              "    for j.2 in [0i64, 8i64) step 1i64:\n"
              "      if (i32 ge j.2 3i64):\n"
              "        break\n"
              "      store tmp.4[j.2] = (i32 cast j.2)\n"
              "    if (i32 or t.1 0i32):\n"
              "      continue\n"
              "    else:\n"
              "      print(\"t \\\"is\\\"\", t.1)\n"
              "    while 0i32:\n"
              "      pass\n"
              "  return s.3\n");
}

// Expected texts are the shortest round-trip forms (Python repr / NumPy float32 repr).
TEST(IrPrinter, Constants) {
    EXPECT_EQ(print(ci(DType::i8, -128)), "-128i8");
    EXPECT_EQ(print(ci(DType::u8, -1)), "255u8");
    EXPECT_EQ(print(ci(DType::u64, -1)), "18446744073709551615u64");
    EXPECT_EQ(print(ci(DType::i64, INT64_MIN)), "-9223372036854775808i64");
    EXPECT_EQ(print(f32c(0.1)), "0.1f32");
    EXPECT_EQ(print(f64c(0.1)), "0.1f64");
    EXPECT_EQ(print(f64c(1.0 / 3.0)), "0.3333333333333333f64");
    EXPECT_EQ(print(f32c(1.0 / 3.0)), "0.33333334f32");
    EXPECT_EQ(print(f64c(-0.0)), "-0f64");
    EXPECT_EQ(print(f64c(1e300)), "1e+300f64");
    EXPECT_EQ(print(f32c(std::numeric_limits<double>::infinity())), "inff32");
    EXPECT_EQ(print(f64c(-std::numeric_limits<double>::infinity())), "-inff64");
}

TEST(IrPrinter, FloatConstantsRoundTrip) {
    for (double v : {0.1, 1.0 / 3.0, 2.0 / 7.0, 1e-310, 123456789.123, 5e-324}) {
        std::string s = print(f64c(v));
        EXPECT_EQ(std::strtod(s.c_str(), nullptr), v) << s;
        std::string s32 = print(f32c(v));
        EXPECT_EQ(std::strtof(s32.c_str(), nullptr), static_cast<float>(v)) << s32;
    }
}

TEST(IrPrinter, Expressions) {
    auto x = param_array("x", DType::f64, 3, 0);
    auto u = var("u", DType::u32, 5);
    EXPECT_EQ(print(bin(BinaryOp::Shr, vref(u), ci(DType::i8, 3))), "(u32 shr u.5 3i8)");
    EXPECT_EQ(print(Unary::make(UnaryOp::Not, vref(u))), "(i32 not u.5)");
    EXPECT_EQ(print(Select::make(vref(u), f64c(1), f64c(2))), "(f64 select u.5 1f64 2f64)");
    EXPECT_EQ(print(Call::make(MathFn::Atan2, {f64c(1), f64c(2)})), "(f64 atan2 1f64 2f64)");
    EXPECT_EQ(print(ArrayDim::make(x, 2)), "dim(x,2)");
    EXPECT_EQ(print(ThreadId::make()), "thread_id");
    EXPECT_EQ(print(Compare::make(CompareOp::Ne, f64c(1), f64c(2))), "(i32 ne 1f64 2f64)");
}

TEST(IrPrinter, StatementsWithoutKernel) {
    auto x = param_array("x", DType::i32, 1, 0);
    auto r = var("r", DType::i32, 1);
    auto f = var("f", DType::f32, 2);
    auto sh = local_array("sh", DType::f32, 256, 3, BufferKind::Shared);
    Block b = {
        Atomic::make(AtomicOp::Add, x, i64c(0), i32c(1), r),
        Atomic::make(AtomicOp::Max, x, i64c(1), vref(r), nullptr),
        AllocArray::make(sh),
        Barrier::make(),
        BlockReduce::make(ReduceOp::Sum, f, Load::make(sh, ThreadId::make())),
    };
    EXPECT_EQ(print(b, 1),
              "  r.1 = atomic_add x[0i64], 1i32\n"
              "  atomic_max x[1i64], r.1\n"
              "  alloc shared sh.3: f32[256]\n"
              "  barrier\n"
              "  f.2 = block_sum (f32 load sh.3[thread_id])\n");
}

}  // namespace
}  // namespace tack::ir
