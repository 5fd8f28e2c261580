// Control flow, local arrays, ndrange decomposition, scalar packing and laziness in generated
// OpenCL C, against hand-written C++ loops.
#include <climits>

#include "harness.hpp"

namespace tack::cfamily_test {
namespace {

// Select evaluates only the chosen arm and `and`/`or` only the operand they need: the other
// arm loads at an index far outside any mapping, which would fault if it ran.
TEST(CFamilyControl, SelectAndLogicalAreLazy) {
    TACK_REQUIRE_OPENCL();
    std::vector<int32_t> a = {5, 6, 7, 8};
    std::vector<int32_t> out(8, -99);
    KernelBuilder kb("lazy");
    auto pa = kb.array("a", DType::i32), po = kb.array("out", DType::i32);
    auto i = kb.dim("i", 0, 0);
    auto far = ld(pa, i64c(int64_t{1} << 44));
    auto lt4 = Compare::make(CompareOp::Lt, vr(i), i64c(4));
    auto sel = Select::make(lt4, ld(pa, Select::make(lt4, vr(i), i64c(0))),
                            ic(DType::i32, static_cast<uint64_t>(-1)));
    auto guarded = Select::make(ic(DType::i32, 0), far, ic(DType::i32, 3));
    auto and_ = Logical::make(LogicalOp::And, ic(DType::i32, 0), far);
    auto or_ = Logical::make(LogicalOp::Or, ic(DType::i32, 2), far);
    kb.k.body = {If::make(
        lt4, {st(po, vr(i), bin(BinaryOp::Add, sel, guarded))},
        {st(po, vr(i), bin(BinaryOp::Add, and_, bin(BinaryOp::Mul, or_, ic(DType::i32, 10))))})};
    ASSERT_EQ(run_opencl(kb.k, {arr(a), arr(out)}, 8), "");
    EXPECT_EQ(out, (std::vector<int32_t>{8, 9, 10, 11, 10, 10, 10, 10}));
}

// for j in range(start, end, step) with sums, break and continue, a while loop, and the loop
// edge cases of ir.hpp: step <= 0 runs nothing, bounds near INT64_MAX do not overflow.
TEST(CFamilyControl, SequentialLoops) {
    TACK_REQUIRE_OPENCL();
    const int n = 300;
    std::vector<int64_t> out(n * 4, -1);
    KernelBuilder kb("loops");
    auto po = kb.array("out", DType::i64);
    auto i = kb.dim("i", 0, 0);
    auto j = kb.local("j", DType::i64);
    auto s = kb.local("s", DType::i64);
    auto w = kb.local("w", DType::i64);
    auto at = [&](int64_t k) {
        return bin(BinaryOp::Add, bin(BinaryOp::Mul, vr(i), i64c(4)), i64c(k));
    };
    auto add = [](ExprPtr a, ExprPtr b) { return bin(BinaryOp::Add, a, b); };
    auto mod = [](ExprPtr a, int64_t b) { return bin(BinaryOp::Mod, a, i64c(b)); };
    auto eq = [](ExprPtr a, int64_t b) { return Compare::make(CompareOp::Eq, a, i64c(b)); };
    // s = sum of j in range(i % 7, i, 3) skipping j % 5 == 0, stopping at j > 200
    Block body1 = {If::make(eq(mod(vr(j), 5), 0), {Continue::make()}, {}),
                   If::make(Compare::make(CompareOp::Gt, vr(j), i64c(200)), {Break::make()}, {}),
                   Assign::make(s, add(vr(s), vr(j)))};
    // step <= 0 and a range ending at INT64_MAX with step 2
    Block count = {Assign::make(s, add(vr(s), i64c(1)))};
    kb.k.body = {
        Assign::make(s, i64c(0)),
        For::make(j, mod(vr(i), 7), vr(i), i64c(3), body1),
        st(po, at(0), vr(s)),
        Assign::make(s, i64c(0)),
        For::make(j, i64c(0), i64c(10), Unary::make(UnaryOp::Neg, mod(vr(i), 2)), count),
        For::make(j, i64c(LLONG_MAX - 5), i64c(LLONG_MAX), i64c(2), count),
        st(po, at(1), vr(s)),
        // while w < i: w = w * 2 + 1
        Assign::make(w, i64c(0)),
        While::make(Compare::make(CompareOp::Lt, vr(w), vr(i)),
                    {Assign::make(w, add(bin(BinaryOp::Mul, vr(w), i64c(2)), i64c(1)))}),
        st(po, at(2), vr(w)),
        // a continue of the parallel loop itself skips the rest of the iteration
        If::make(eq(mod(vr(i), 3), 0), {Continue::make()}, {}),
        st(po, at(3), vr(i)),
    };
    ASSERT_EQ(run_opencl(kb.k, {arr(out)}, n), "");
    std::vector<int64_t> want(n * 4, -1);
    for (int64_t x = 0; x < n; ++x) {
        int64_t sum = 0;
        for (int64_t y = x % 7; y < x; y += 3) {
            if (y % 5 == 0) continue;
            if (y > 200) break;
            sum += y;
        }
        want[4 * x] = sum;
        want[4 * x + 1] = 3;  // the zero or negative step ran nothing
        int64_t v = 0;
        while (v < x)
            v = v * 2 + 1;
        want[4 * x + 2] = v;
        want[4 * x + 3] = x % 3 == 0 ? -1 : x;
    }
    EXPECT_TRUE(same_bits(out, want));
}

// A per-iteration local array, scalars of several dtypes through the packs, and a prologue.
TEST(CFamilyControl, LocalArraysAndScalarPacks) {
    TACK_REQUIRE_OPENCL();
    const int n = 1000;
    std::vector<int32_t> out(n);
    KernelBuilder kb("locals");
    auto po = kb.array("out", DType::i32);
    auto scale = kb.scalar("scale", DType::i32);
    auto bias = kb.scalar("bias", DType::i64);
    auto unused = kb.scalar("float", DType::f32);  // a C keyword as a parameter name
    auto offset = kb.scalar("offset", DType::i32);
    auto i = kb.dim("i", 0, 0);
    auto tmp = kb.alloc("tmp", DType::i32, 8, BufferKind::Local);
    auto j = kb.local("j", DType::i64);
    auto acc = kb.local("acc", DType::i32);
    auto base = kb.local("base", DType::i32);
    auto i32 = [](ExprPtr e) { return Cast::make(DType::i32, e); };
    kb.k.prologue = {Assign::make(base, bin(BinaryOp::Add, vr(offset), i32(vr(bias))))};
    kb.k.body = {AllocArray::make(tmp),
                 For::make(j, i64c(0), i64c(8), i64c(1),
                           {st(tmp, vr(j), bin(BinaryOp::Mul, i32(vr(i)), i32(vr(j))))}),
                 Assign::make(acc, vr(base)),
                 For::make(j, i64c(0), i64c(8), i64c(1),
                           {Assign::make(acc, bin(BinaryOp::Add, vr(acc),
                                                  bin(BinaryOp::Mul, ld(tmp, vr(j)), vr(scale))))}),
                 st(po, vr(i), vr(acc))};
    (void)unused;
    ASSERT_EQ(
        run_opencl(kb.k, {arr(out), val<int32_t>(3), val<int64_t>(-40), val(1.5f), val<int32_t>(2)},
                   n),
        "");
    std::vector<int32_t> want(n);
    for (int x = 0; x < n; ++x) {
        int32_t acc_ = 2 + -40;
        for (int y = 0; y < 8; ++y)
            acc_ += x * y * 3;
        want[x] = acc_;
    }
    EXPECT_TRUE(same_bits(out, want));
}

// ndrange((2, 11, 3), (-3, 5, 2), 4): the flat index decomposes row-major, last fastest.
TEST(CFamilyControl, NdRangeDecomposition) {
    TACK_REQUIRE_OPENCL();
    KernelBuilder kb("nd");
    auto po = kb.array("out", DType::i64);
    auto a = kb.dim("a", 2, 0, 3);  // outer end comes from __n__
    auto b = kb.dim("b", -3, 5, 2);
    auto c = kb.dim("c", 0, 4, 1);
    std::vector<int64_t> want;
    for (int64_t x = 2; x < 11; x += 3)
        for (int64_t y = -3; y < 5; y += 2)
            for (int64_t z = 0; z < 4; ++z)
                want.push_back(x * 10000 + (y + 100) * 100 + z);
    auto flat = bin(
        BinaryOp::Add,
        bin(BinaryOp::Mul,
            bin(BinaryOp::Add,
                bin(BinaryOp::Mul,
                    bin(BinaryOp::FloorDiv, bin(BinaryOp::Sub, vr(a), i64c(2)), i64c(3)), i64c(4)),
                bin(BinaryOp::FloorDiv, bin(BinaryOp::Add, vr(b), i64c(3)), i64c(2))),
            i64c(4)),
        vr(c));
    auto value = bin(BinaryOp::Add,
                     bin(BinaryOp::Add, bin(BinaryOp::Mul, vr(a), i64c(10000)),
                         bin(BinaryOp::Mul, bin(BinaryOp::Add, vr(b), i64c(100)), i64c(100))),
                     vr(c));
    kb.k.body = {st(po, flat, value)};
    std::vector<int64_t> out(want.size(), -1);
    ASSERT_EQ(run_opencl(kb.k, {arr(out)}, want.size()), "");
    EXPECT_TRUE(same_bits(out, want));
}

}  // namespace
}  // namespace tack::cfamily_test

namespace tack::cfamily_test {
namespace {

// print("v", x, ...) is printf with the CPU's formats; PoCL prints through the host's stdout.
// PoCL 3.1's printf narrows a double argument to float (0.1 prints 0.10000000149011612), so the
// f64 value here is exact in f32.
TEST(CFamilyControl, PrintFormats) {
    TACK_REQUIRE_OPENCL();
    KernelBuilder kb("printer");
    auto pa = kb.array("a", DType::i8);
    auto i = kb.dim("i", 0, 0);
    auto x = ld(pa, vr(i));
    kb.k.body = {Print::make({std::string("v%"), x, Cast::make(DType::u64, x),
                              Cast::make(DType::f32, x), fc(DType::f64, 0.375)})};
    std::vector<int8_t> a = {-3};
    ::testing::internal::CaptureStdout();
    std::string error = run_opencl(kb.k, {arr(a)}, 1);
    std::fflush(stdout);
    std::string out = ::testing::internal::GetCapturedStdout();
    ASSERT_EQ(error, "");
    EXPECT_EQ(out, "v% -3 18446744073709551613 -3 0.375\n");
}

}  // namespace
}  // namespace tack::cfamily_test
