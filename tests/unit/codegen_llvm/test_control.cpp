// Control flow: lazy select/and/or, sequential For (dynamic, negative and zero steps, no
// overflow at the ends of i64), While/Break/Continue, the parallel loop's Continue, ndrange
// decomposition, local arrays, print, and the CPU's refusal of workgroup primitives.

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include "diag/diagnostic.hpp"
#include "harness.hpp"

namespace tack::test {
namespace {

constexpr int64_t kFar = int64_t{1} << 40;  // an index far outside any test array

TEST(LlvmControl, SelectAndLogicalAreLazy) {
    // out1 = a[i] > 0 ? a[i] : a[far];  out2 = not (a[i] > 0) ? a[far] : -a[i]
    // out3 = a[i] > 0 or a[far];        out4 = b[i] and a[far]   (b is all zeros)
    KernelBuilder kb("lazy");
    auto a = kb.array_param("a", i32);
    auto b = kb.array_param("b", i32);
    auto out1 = kb.array_param("out1", i32);
    auto out2 = kb.array_param("out2", i32);
    auto out3 = kb.array_param("out3", i32);
    auto out4 = kb.array_param("out4", i32);
    auto j = kb.dim(0, 0, 1);
    auto y = load(a, use(j));
    auto far = load(a, c64(kFar));
    auto positive = Compare::make(CompareOp::Gt, y, cint(i32, 0));
    auto negated = Unary::make(UnaryOp::Not, positive);
    kb.k.body = {
        store(out1, use(j), Select::make(positive, y, far)),
        store(out2, use(j), Select::make(negated, far, Unary::make(UnaryOp::Neg, y))),
        store(out3, use(j), Logical::make(LogicalOp::Or, positive, far)),
        store(out4, use(j), Logical::make(LogicalOp::And, load(b, use(j)), far)),
    };
    for (bool noalias : {false, true}) {
        auto c = compile(kb.k, noalias);
        std::vector<int32_t> vals = {5, 7, 1, 1000}, zeros(4, 0), r1(4), r2(4), r3(4), r4(4, 9);
        c.run({slot(vals.data()), slot(zeros.data()), slot(r1.data()), slot(r2.data()),
               slot(r3.data()), slot(r4.data())},
              0, 4);
        for (int k = 0; k < 4; ++k) {
            EXPECT_EQ(r1[k], vals[k]);
            EXPECT_EQ(r2[k], -vals[k]);
            EXPECT_EQ(r3[k], 1);
            EXPECT_EQ(r4[k], 0);
        }
    }
}

TEST(LlvmControl, LogicalValuesAndTruthiness) {
    KernelBuilder kb("logic");
    auto a = kb.array_param("a", f64);
    auto b = kb.array_param("b", i8);
    auto land = kb.array_param("land", i32);
    auto lor = kb.array_param("lor", i32);
    auto i = kb.dim(0, 0, 1);
    kb.k.body.push_back(
        store(land, use(i), Logical::make(LogicalOp::And, load(a, use(i)), load(b, use(i)))));
    kb.k.body.push_back(
        store(lor, use(i), Logical::make(LogicalOp::Or, load(a, use(i)), load(b, use(i)))));
    auto c = compile(kb.k);
    std::vector<double> va = {0.0, -0.0, std::nan(""), 2.0, 0.0, 0.5};
    std::vector<int8_t> vb = {0, 3, 1, 0, -128, -1};
    std::vector<int32_t> l(6), o(6);
    c.run({slot(va.data()), slot(vb.data()), slot(l.data()), slot(o.data())}, 0, 6);
    std::vector<int32_t> want_and = {0, 0, 1, 0, 0, 1}, want_or = {0, 1, 1, 1, 1, 1};
    EXPECT_EQ(l, want_and);
    EXPECT_EQ(o, want_or);
}

// for v in range(start, end, step): out[n] = v; n += 1   -- then count[0] = n
Compiled for_loop_kernel() {
    KernelBuilder kb("for_dyn");
    auto start = kb.scalar_param("start", i64);
    auto end = kb.scalar_param("end", i64);
    auto step = kb.scalar_param("step", i64);
    auto out = kb.array_param("out", i64);
    auto count = kb.array_param("count", i64);
    auto n = kb.local("n", i64);
    auto v = kb.local("v", i64);
    kb.dim(0, 1, 1);
    Block body = {store(out, use(n), use(v)), assign(n, bin(BinaryOp::Add, use(n), c64(1)))};
    kb.k.body.push_back(assign(n, c64(0)));
    kb.k.body.push_back(For::make(v, use(start), use(end), use(step), body));
    kb.k.body.push_back(store(count, c64(0), use(n)));
    return compile(kb.k);
}

std::vector<int64_t> run_for(const Compiled& c, int64_t start, int64_t end, int64_t step) {
    std::vector<int64_t> out(16, -777), count(1, -1);
    c.run({scalar_slot(start), scalar_slot(end), scalar_slot(step), slot(out.data()),
           slot(count.data())},
          0, 1);
    EXPECT_GE(count[0], 0);
    EXPECT_LE(count[0], 16);
    out.resize(static_cast<size_t>(std::max<int64_t>(count[0], 0)));
    return out;
}

TEST(LlvmControl, SequentialForSteps) {
    auto c = for_loop_kernel();
    using V = std::vector<int64_t>;
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    EXPECT_EQ(run_for(c, 0, 10, 3), (V{0, 3, 6, 9}));
    EXPECT_EQ(run_for(c, -5, 5, 4), (V{-5, -1, 3}));
    EXPECT_EQ(run_for(c, 0, 10, -1), V{});  // negative step runs nothing
    EXPECT_EQ(run_for(c, 10, 0, -1), V{});
    EXPECT_EQ(run_for(c, 0, 10, 0), V{});  // zero step runs nothing
    EXPECT_EQ(run_for(c, 5, 5, 1), V{});
    EXPECT_EQ(run_for(c, 6, 5, 1), V{});
    int64_t q = int64_t{1} << 62;
    EXPECT_EQ(run_for(c, kMin, kMax, q), (V{kMin, kMin + q, 0, q}));  // no overflow
    EXPECT_EQ(run_for(c, kMax - 1, kMax, 10), (V{kMax - 1}));
    EXPECT_EQ(run_for(c, kMin, kMin + 3, kMax), (V{kMin}));
}

TEST(LlvmControl, WhileBreakContinue) {
    // x = 0; s = 0; while 1: x += 1; if x > 20: break; if x % 3 == 0: continue; s += x
    // for v in range(100): if v == 10: break; if v % 2 == 0: continue; t += v
    KernelBuilder kb("loops");
    auto out = kb.array_param("out", i64);
    auto x = kb.local("x", i64);
    auto s = kb.local("s", i64);
    auto t = kb.local("t", i64);
    auto v = kb.local("v", i64);
    kb.dim(0, 1, 1);
    auto inc = assign(x, bin(BinaryOp::Add, use(x), c64(1)));
    Block wbody = {
        inc, If::make(Compare::make(CompareOp::Gt, use(x), c64(20)), {Break::make()}, {}),
        If::make(Compare::make(CompareOp::Eq, bin(BinaryOp::Mod, use(x), c64(3)), c64(0)),
                 {Continue::make()}, {}),
        assign(s, bin(BinaryOp::Add, use(s), use(x)))};
    Block fbody = {
        If::make(Compare::make(CompareOp::Eq, use(v), c64(10)), {Break::make()}, {}),
        If::make(Compare::make(CompareOp::Eq, bin(BinaryOp::Mod, use(v), c64(2)), c64(0)),
                 {Continue::make()}, {}),
        assign(t, bin(BinaryOp::Add, use(t), use(v)))};
    kb.k.body = {assign(x, c64(0)),
                 assign(s, c64(0)),
                 assign(t, c64(0)),
                 While::make(cint(i32, 1), wbody),
                 For::make(v, c64(0), c64(100), c64(1), fbody),
                 store(out, c64(0), use(s)),
                 store(out, c64(1), use(t)),
                 store(out, c64(2), use(v))};
    auto c = compile(kb.k);
    std::vector<int64_t> got(3);
    c.run({slot(got.data())}, 0, 1);
    EXPECT_EQ(got[0], 210 - 63);
    EXPECT_EQ(got[1], 1 + 3 + 5 + 7 + 9);
    EXPECT_EQ(got[2], 10);  // the variable keeps the value it had at the break
}

TEST(LlvmControl, ParallelContinue) {
    // if i % 3 == 1: continue;  out[i] = i
    KernelBuilder kb("par_continue");
    auto out = kb.array_param("out", i64);
    auto i = kb.dim(0, 0, 1);
    kb.k.body = {If::make(Compare::make(CompareOp::Eq, bin(BinaryOp::Mod, use(i), c64(3)), c64(1)),
                          {Continue::make(), store(out, use(i), c64(-5))}, {}),
                 store(out, use(i), use(i))};
    auto c = compile(kb.k);
    std::vector<int64_t> got(30, -1);
    c.run({slot(got.data())}, 2, 28);
    for (int64_t k = 0; k < 30; ++k) {
        int64_t want = (k < 2 || k >= 28 || k % 3 == 1) ? -1 : k;
        EXPECT_EQ(got[k], want) << k;
    }
}

TEST(LlvmControl, NdrangeDecomposition) {
    // dims: d0 = 2 + 3*i0 (count from the host), d1 in range(-1, 5, 2), d2 in range(0, 7, 3);
    // out[t] = d0 * 10000 + (d1 + 100) * 100 + d2 where t = (i0 * 3 + i1) * 3 + i2.
    KernelBuilder kb("ndrange");
    auto out = kb.array_param("out", i64);
    auto d0 = kb.dim(2, 0, 3);
    auto d1 = kb.dim(-1, 5, 2);
    auto d2 = kb.dim(0, 7, 3);
    auto i0 = bin(BinaryOp::FloorDiv, bin(BinaryOp::Sub, use(d0), c64(2)), c64(3));
    auto i1 = bin(BinaryOp::FloorDiv, bin(BinaryOp::Add, use(d1), c64(1)), c64(2));
    auto i2 = bin(BinaryOp::FloorDiv, use(d2), c64(3));
    auto t =
        bin(BinaryOp::Add,
            bin(BinaryOp::Mul, bin(BinaryOp::Add, bin(BinaryOp::Mul, i0, c64(3)), i1), c64(3)), i2);
    auto value = bin(BinaryOp::Add,
                     bin(BinaryOp::Add, bin(BinaryOp::Mul, use(d0), c64(10000)),
                         bin(BinaryOp::Mul, bin(BinaryOp::Add, use(d1), c64(100)), c64(100))),
                     use(d2));
    kb.k.body.push_back(store(out, t, value));
    auto c = compile(kb.k);
    std::vector<int64_t> got(27, -1);
    c.run({slot(got.data())}, 4, 20);
    for (int64_t t_ = 0; t_ < 27; ++t_) {
        int64_t i0v = t_ / 9, i1v = (t_ / 3) % 3, i2v = t_ % 3;
        int64_t want = (2 + 3 * i0v) * 10000 + (-1 + 2 * i1v + 100) * 100 + 3 * i2v;
        EXPECT_EQ(got[t_], (t_ >= 4 && t_ < 20) ? want : -1) << t_;
    }
}

TEST(LlvmControl, Ndrange2DEverySubrangeWithContinue) {
    // d0 = -3 + 2*i0 (5 rows), d1 in range(1, 12, 4) = 1, 5, 9;
    // if d1 == 5: continue;  out[t] += d0 * 100 + d1
    KernelBuilder kb("ndrange2d");
    auto out = kb.array_param("out", i64);
    auto d0 = kb.dim(-3, 0, 2);
    auto d1 = kb.dim(1, 12, 4);
    auto i0 = bin(BinaryOp::FloorDiv, bin(BinaryOp::Add, use(d0), c64(3)), c64(2));
    auto i1 = bin(BinaryOp::FloorDiv, bin(BinaryOp::Sub, use(d1), c64(1)), c64(4));
    auto t = bin(BinaryOp::Add, bin(BinaryOp::Mul, i0, c64(3)), i1);
    auto value = bin(BinaryOp::Add, bin(BinaryOp::Mul, use(d0), c64(100)), use(d1));
    kb.k.body = {If::make(Compare::make(CompareOp::Eq, use(d1), c64(5)), {Continue::make()}, {}),
                 store(out, t, bin(BinaryOp::Add, load(out, t), value))};
    auto c = compile(kb.k);
    constexpr int64_t kTotal = 5 * 3;
    for (int64_t s = 0; s <= kTotal; ++s) {
        for (int64_t e = s; e <= kTotal; ++e) {
            std::vector<int64_t> got(kTotal, 0);
            c.run({slot(got.data())}, s, e);
            for (int64_t q = 0; q < kTotal; ++q) {
                int64_t d0v = -3 + 2 * (q / 3), d1v = 1 + 4 * (q % 3);
                int64_t want = (q >= s && q < e && d1v != 5) ? d0v * 100 + d1v : 0;
                ASSERT_EQ(got[q], want) << "range [" << s << ", " << e << ") t=" << q;
            }
        }
    }
}

TEST(LlvmControl, NdrangeEmptyInnerDimensionRunsNothing) {
    KernelBuilder kb("ndrange_empty");
    auto out = kb.array_param("out", i64);
    kb.dim(0, 0, 1);
    auto d1 = kb.dim(10, 0, -1);  // a negative step: empty
    kb.k.body.push_back(store(out, c64(0), use(d1)));
    auto c = compile(kb.k);
    std::vector<int64_t> got(1, -1);
    c.run({slot(got.data())}, 0, 5);
    EXPECT_EQ(got[0], -1);
}

TEST(LlvmControl, LocalArrays) {
    // loc = local_array(i32, 8); for j in range(8): loc[j] = i * j
    // s = sum(loc); out[i] = s + loc[7]; zero[i] = untouched[3]  (fresh arrays read as 0)
    KernelBuilder kb("locals");
    auto out = kb.array_param("out", i32);
    auto zero = kb.array_param("zero", i32);
    auto loc = kb.local_array("loc", i32, 8);
    auto untouched = kb.local_array("untouched", f64, 4);
    auto j = kb.local("j", i64);
    auto s = kb.local("s", i32);
    auto i = kb.dim(0, 0, 1);
    auto ii = Cast::make(i32, use(i));
    kb.k.body = {
        AllocArray::make(loc),
        AllocArray::make(untouched),
        For::make(j, c64(0), c64(8), c64(1),
                  {store(loc, use(j), bin(BinaryOp::Mul, ii, Cast::make(i32, use(j))))}),
        assign(s, cint(i32, 0)),
        For::make(j, c64(0), c64(8), c64(1),
                  {assign(s, bin(BinaryOp::Add, use(s), load(loc, use(j))))}),
        store(out, use(i), bin(BinaryOp::Add, use(s), load(loc, c64(7)))),
        store(zero, use(i), Cast::make(i32, load(untouched, c64(3)))),
    };
    auto c = compile(kb.k);
    std::vector<int32_t> got(50), z(50, 9);
    c.run({slot(got.data()), slot(z.data())}, 0, 50);
    for (int k = 0; k < 50; ++k) {
        EXPECT_EQ(got[k], k * 28 + k * 7);
        EXPECT_EQ(z[k], 0);
    }
}

std::string capture_stdout(const std::function<void()>& f) {
    std::fflush(stdout);
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    int saved = dup(1);
    dup2(fds[1], 1);
    f();
    std::fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(fds[1]);
    std::string text;
    char buf[256];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
        text.append(buf, n);
    close(fds[0]);
    return text;
}

TEST(LlvmControl, Print) {
    KernelBuilder kb("printer");
    auto a = kb.scalar_param("a", f32);
    kb.dim(0, 1, 1);
    std::vector<std::variant<std::string, ExprPtr>> parts = {
        std::string("value"), cint(i8, 0xFB),      cint(u64, ~uint64_t{0}),     use(a),
        cf(f64, 0.1),         std::string("100%"), cint(i64, uint64_t{1} << 63)};
    kb.k.body.push_back(Print::make(parts));
    auto c = compile(kb.k);
    std::string text = capture_stdout([&] { c.run({scalar_slot(1.5f)}, 0, 2); });
    std::string line =
        "value -5 18446744073709551615 1.5 0.10000000000000001 100% "
        "-9223372036854775808\n";
    EXPECT_EQ(text, line + line);
}

TEST(LlvmControl, WorkgroupPrimitivesAreNotImplemented) {
    KernelBuilder kb("groups");
    kb.dim(0, 1, 1);
    kb.k.body.push_back(Barrier::make());
    try {
        cpu::compile_to_object(kb.k, {});
        FAIL() << "expected a CompileError";
    } catch (const diag::CompileError& e) {
        EXPECT_EQ(e.first().kind, diag::ErrorKind::NotImplemented);
        EXPECT_NE(e.first().message.find("barrier"), std::string::npos);
    }
}

}  // namespace
}  // namespace tack::test
