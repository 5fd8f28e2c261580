// Lowering of plain kernels: saxpy, stencils, control flow, casts, math, atomics, storage,
// the parallel loop and the kernel result. Expected IR is written by hand from the printer's
// format (ir/printer.cpp): ids are Vars' and Buffers' creation order (parameters first).
#include "unit/sema/test_lower_util.hpp"

namespace tack::sema::testing {
namespace {

TEST(LowerBasic, Saxpy) {
    const char* src = R"(
import tack

@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]
)";
    EXPECT_EQ(lower_print(src, {arr(f32), arr(f32), scalar(f32)}),
              "kernel saxpy(x: f32[1], y: f32[1], a.2: f32)\n"
              "  parallel i.3 in [0i64, dim(x,0)) step 1i64:\n"
              "    store y[i.3] = (f32 add (f32 mul a.2 (f32 load x[i.3])) (f32 load y[i.3]))\n");
}

TEST(LowerBasic, StencilFlattensRowMajor) {
    const char* src = R"(
import tack

@tack.kernel
def jacobi(a, b):
    for i, j in tack.ndrange((1, a.shape[0] - 1), (1, a.shape[1] - 1)):
        b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j])
)";
    EXPECT_EQ(lower_print(src, {arr(f32, 2), arr(f32, 2)}),
              "kernel jacobi(a: f32[2], b: f32[2])\n"
              "  parallel i.2 in [1i64, (i64 sub dim(a,0) 1i64)) step 1i64, "
              "j.3 in [1i64, (i64 sub dim(a,1) 1i64)) step 1i64:\n"
              "    store b[(i64 add (i64 mul i.2 dim(b,1)) j.3)] = (f32 mul 0.25f32 "
              "(f32 add (f32 load a[(i64 add (i64 mul (i64 sub i.2 1i64) dim(a,1)) j.3)]) "
              "(f32 load a[(i64 add (i64 mul (i64 add i.2 1i64) dim(a,1)) j.3)])))\n");
}

TEST(LowerBasic, FlatIndexAndIndexCasts) {
    std::string ir =
        lower_print(kernel1("x, y, k", {"x[k] = y[0, k]"}), {arr(f32, 2), arr(f32, 2), scalar(u8)});
    EXPECT_NE(ir.find("store x[(i64 cast k.2)] = (f32 load y[(i64 add (i64 mul 0i64 dim(y,1)) "
                      "(i64 cast k.2))])"),
              std::string::npos)
        << ir;
    EXPECT_EQ(lower_error(kernel1("x", {"x[i, i, i] = 1.0"}), {arr(f32, 2)}),
              "TypeError: Kernel 'k': 'x' has 2 dimension(s) but is indexed with 3 indices at "
              "line 7, column 9");
    EXPECT_NE(lower_error(kernel1("x", {"x[0.5] = 1.0"}), {arr(f32)}).find("must be an integer"),
              std::string::npos);
}

TEST(LowerBasic, ShapesLenSize) {
    std::string ir =
        lower_print(kernel1("x, y", {"t = x.shape[1] + len(y) + x.size + x.shape[-1]"}),
                    {arr(f32, 2), arr(i32)});
    EXPECT_NE(ir.find("t.3 = (i64 add (i64 add (i64 add dim(x,1) dim(y,0)) (i64 mul dim(x,0) "
                      "dim(x,1))) dim(x,1))"),
              std::string::npos)
        << ir;
}

TEST(LowerBasic, ControlFlow) {
    const char* src = R"(
import tack

@tack.kernel
def k(x, n):
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            x[i] = 1.0
        elif x[i] < 0.0:
            continue
        else:
            x[i] = 2.0
        for j in range(1, n, 2):
            if j > 5:
                break
        while x[i] < 10.0:
            x[i] += 1.0
)";
    EXPECT_EQ(lower_print(src, {arr(f32), scalar(i32)}),
              "kernel k(x: f32[1], n.1: i32)\n"
              "  locals j.3: i64\n"
              "  parallel i.2 in [0i64, dim(x,0)) step 1i64:\n"
              "    if (i32 gt (f32 load x[i.2]) 0f32):\n"
              "      store x[i.2] = 1f32\n"
              "    else:\n"
              "      if (i32 lt (f32 load x[i.2]) 0f32):\n"
              "        continue\n"
              "      else:\n"
              "        store x[i.2] = 2f32\n"
              "    for j.3 in [1i64, (i64 cast n.1)) step 2i64:\n"
              "      if (i32 gt j.3 5i64):\n"
              "        break\n"
              "    while (i32 lt (f32 load x[i.2]) 10f32):\n"
              "      store x[i.2] = (f32 add (f32 load x[i.2]) 1f32)\n");
}

TEST(LowerBasic, CastsAndMath) {
    std::string ir = lower_print(
        kernel1("x, y", {"y[i] = tack.u8(-1) + tack.i8(x[i])", "x[i] = math.sqrt(y[i]) + abs(x[i])",
                         "x[i] = max(x[i], 1, y[i]) + math.floor(2)"}),
        {arr(f32), arr(i32)});
    EXPECT_EQ(
        ir,
        "kernel k(x: f32[1], y: i32[1])\n"
        "  parallel i.2 in [0i64, dim(x,0)) step 1i64:\n"
        "    store y[i.2] = (i32 cast (i16 add 255i16 (i16 cast (i8 cast (f32 load x[i.2])))))\n"
        "    store x[i.2] = (f32 add (f32 sqrt (f32 cast (i32 load y[i.2]))) "
        "(f32 abs (f32 load x[i.2])))\n"
        "    store x[i.2] = (f32 add (f32 max (f32 max (f32 load x[i.2]) 1f32) (f32 cast "
        "(i32 load y[i.2]))) (f32 floor 2f32))\n");
}

TEST(LowerBasic, GlslHelpersExpand) {
    std::string ir = lower_print(
        kernel1("x", {"x[i] = tack.math.mix(x[i], 2.0, 0.25)", "x[i] = tack.math.clamp(x[i], 0, 1)",
                      "x[i] = tack.math.step(0.5, x[i])", "x[i] = tack.math.fract(x[i])"}),
        {arr(f32)});
    EXPECT_EQ(ir,
              "kernel k(x: f32[1])\n"
              "  locals tmp.2: f32\n"
              "  parallel i.1 in [0i64, dim(x,0)) step 1i64:\n"
              "    store x[i.1] = (f32 add (f32 mul (f32 load x[i.1]) (f32 sub 1f32 0.25f32)) "
              "(f32 mul 2f32 0.25f32))\n"
              "    store x[i.1] = (f32 min (f32 max (f32 load x[i.1]) 0f32) 1f32)\n"
              "    store x[i.1] = (f32 select (i32 lt (f32 load x[i.1]) 0.5f32) 0f32 1f32)\n"
              "    tmp.2 = (f32 load x[i.1])\n"
              "    store x[i.1] = (f32 sub tmp.2 (f32 floor tmp.2))\n");
}

TEST(LowerBasic, AtomicsStatementsAndValues) {
    std::string ir = lower_print(
        kernel1("x, c", {"tack.atomic_add(c, 0, 1)", "slot = tack.atomic_add(c, (0, i), 2.5)",
                         "tack.atomic_max(x, i, slot)"}),
        {arr(f32), arr(i32, 2)});
    EXPECT_EQ(ir,
              "kernel k(x: f32[1], c: i32[2])\n"
              "  locals tmp.3: i32, slot.4: i32\n"
              "  parallel i.2 in [0i64, dim(x,0)) step 1i64:\n"
              "    atomic_add c[0i64], 1i32\n"
              "    tmp.3 = atomic_add c[(i64 add (i64 mul 0i64 dim(c,1)) i.2)], (i32 cast 2.5f32)\n"
              "    slot.4 = tmp.3\n"
              "    atomic_max x[i.2], (f32 cast slot.4)\n");
    EXPECT_EQ(
        lower_error(kernel1("x", {"t = tack.local_array(tack.i32, 4)", "tack.atomic_add(t, 0, 1)"}),
                    {arr(f32)}),
        "TypeError: Kernel 'k': atomic_add() requires a global field parameter target at "
        "line 8, column 25");
}

TEST(LowerBasic, LocalAndSharedArrays) {
    const char* src = R"(
import tack
N = tack.constant(4)

@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        tmp = tack.local_array(tack.f64, N * 2)
        sh = tack.shared_like(x, 256)
        tmp[0] = x[i]
        sh[tack.thread_id()] = tmp[0]
        tack.barrier()
        x[i] = tack.block_sum(sh[0])
)";
    EXPECT_EQ(lower_print(src, {arr(f32)}),
              "kernel k(x: f32[1])\n"
              "  locals tmp.4: f32\n"
              "  parallel i.1 in [0i64, dim(x,0)) step 1i64:\n"
              "    alloc local tmp.2: f64[8]\n"
              "    alloc shared sh.3: f32[256]\n"
              "    store tmp.2[0i64] = (f64 cast (f32 load x[i.1]))\n"
              "    store sh.3[thread_id] = (f32 cast (f64 load tmp.2[0i64]))\n"
              "    barrier\n"
              "    tmp.4 = block_sum (f32 load sh.3[0i64])\n"
              "    store x[i.1] = tmp.4\n");
}

TEST(LowerBasic, PrologueAndResult) {
    const char* src = R"(
import tack

@tack.kernel
def k(x, n) -> float:
    m = n - 1
    h = x.shape[0] // 2
    for i in range(m, h * 2):
        x[i] = 0.5
    return x[0] * 2 + n
)";
    EXPECT_EQ(lower_print(src, {arr(f32), scalar(i32)}),
              "kernel k(x: f32[1], n.1: i32) -> f32\n"
              "  locals m.2: i32, h.3: i64\n"
              "  prologue:\n"
              "    m.2 = (i32 sub n.1 1i32)\n"
              "    h.3 = (i64 floordiv dim(x,0) 2i64)\n"
              "  parallel i.4 in [(i64 cast (i32 sub n.1 1i32)), (i64 mul (i64 floordiv dim(x,0) "
              "2i64) 2i64)) step 1i64:\n"
              "    store x[i.4] = 0.5f32\n"
              "  return (f32 add (f32 mul (f32 load x[0i64]) 2f32) (f32 cast n.1))\n");
}

TEST(LowerBasic, LoopRangeMustBeHostEvaluable) {
    const char* src = R"(
import tack

@tack.kernel
def k(x):
    n = x[0]
    for i in range(n):
        x[i] = 0
)";
    EXPECT_EQ(lower_error(src, {arr(i32)}),
              "RuntimeError: Kernel 'k': Cannot resolve loop range expression at line 7, "
              "column 20");
    const char* twice = R"(
import tack

@tack.kernel
def k(x, n):
    m = n
    if n > 2:
        m = 3
    for i in range(m):
        x[i] = 0
)";
    EXPECT_NE(lower_error(twice, {arr(i32), scalar(i32)}).find("Cannot resolve loop range"),
              std::string::npos);
}

TEST(LowerBasic, NoParallelLoop) {
    const char* src = "import tack\n@tack.kernel\ndef k(x):\n    x[0] = 1\n";
    EXPECT_NE(lower_error(src, {arr(i32)}).find("has no parallel loop"), std::string::npos);
}

TEST(LowerBasic, ArityMismatch) {
    EXPECT_NE(lower_error(kernel1("x, y", {"x[i] = 0"}), {arr(i32)}).find("TypeError"),
              std::string::npos);
}

// Lowering checks arity too: a method's (only lowering knows the receiver) and, again, a
// builtin's (lowering also runs without validation, as here). Both show the row's call form.
TEST(LowerBasic, ArityErrorsShowTheCallForm) {
    const std::string v = "v = tack.Vector([x[i], 1.0, 2.0])";
    EXPECT_EQ(lower_error(kernel1("x", {v, "x[i] = v.norm(1.0, 2.0)"}), {arr(f32)}),
              "TypeError: Kernel 'k': norm() takes at most 1 argument (2 given): norm(eps=0) at "
              "line 8, column 16");
    EXPECT_EQ(lower_error(kernel1("x", {v, "x[i] = v.dot()"}), {arr(f32)}),
              "TypeError: Kernel 'k': dot() takes 1 argument (0 given): dot(other) at line 8, "
              "column 16");
    EXPECT_EQ(
        lower_error(kernel1("x, t", {"x[i] = t.sample(0.5, 0.5)"}), {arr(f32), Type::texture()}),
        "TypeError: Kernel 'k': sample() takes 3 arguments (2 given): sample(u, v, w) at "
        "line 7, column 16");
    EXPECT_EQ(
        lower_error(kernel1("x", {"for j in range(1, 2, 3, 4):", "    x[i] = 0.0"}), {arr(f32)}),
        "TypeError: Kernel 'k': range() takes 1 to 3 arguments (4 given): "
        "range(start, stop=..., step=1) at line 7, column 18");
    EXPECT_EQ(lower_error(kernel1("x", {"x[i] = tack.clamp(x[i], 0.0)"}), {arr(f32)}),
              "TypeError: Kernel 'k': clamp() takes 3 arguments (2 given): clamp(x, lo, hi) at "
              "line 7, column 16");
}

}  // namespace
}  // namespace tack::sema::testing

namespace tack::sema::testing {
namespace {

TEST(LowerBasic, PrintSelectAndBareBuiltins) {
    std::string ir = lower_print(
        kernel1("x, n", {"print(\"v\", x[i], n)", "x[i] = tack.select(x[i] > 0, x[i], 0)",
                         "x[i] = sqrt(x[i]) + min(n, 2)"}),
        {arr(f32), scalar(i32)});
    EXPECT_EQ(ir,
              "kernel k(x: f32[1], n.1: i32)\n"
              "  parallel i.2 in [0i64, dim(x,0)) step 1i64:\n"
              "    print(\"v\", (f32 load x[i.2]), n.1)\n"
              "    store x[i.2] = (f32 select (i32 gt (f32 load x[i.2]) 0f32) (f32 load x[i.2]) "
              "0f32)\n"
              "    store x[i.2] = (f32 add (f32 sqrt (f32 load x[i.2])) (f32 cast (i32 min n.1 "
              "2i32)))\n");
}

TEST(LowerBasic, IntResultAndLoopLocalsInvisibleAfterTheLoop) {
    const char* src = R"(
import tack

@tack.kernel
def k(x) -> int:
    for i in range(x.shape[0]):
        x[i] = 1.5
    return x[0] * 2
)";
    std::string ir = lower_print(src, {arr(f32)});
    EXPECT_NE(ir.find("  return (i32 cast (f32 mul (f32 load x[0i64]) 2f32))\n"), std::string::npos)
        << ir;
    const char* inner = R"(
import tack

@tack.kernel
def k(x) -> float:
    for i in range(x.shape[0]):
        t = x[i]
    return t
)";
    EXPECT_NE(lower_error(inner, {arr(f32)}).find("NameError: Kernel 'k': name 't'"),
              std::string::npos);
}

TEST(LowerBasic, DeviceFunctionWithoutValue) {
    const char* src = R"(
import tack

@tack.func
def store(x, i):
    x[i] = 1

@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        store(x, i)
        x[i] = store(x, i)
)";
    EXPECT_EQ(lower_error(src, {arr(f32)}),
              "TypeError: Kernel 'k': 'store' returns no value at line 12, column 16");
}

}  // namespace
}  // namespace tack::sema::testing

namespace tack::sema::testing {
namespace {

TEST(LowerBasic, SignAndSmoothstepEvaluateArgumentsOnce) {
    std::string ir = lower_print(kernel1("x", {"x[i] = tack.math.sign(x[i])",
                                               "x[i] = tack.math.smoothstep(0.0, 1.0, x[i])"}),
                                 {arr(f32)});
    EXPECT_EQ(ir,
              "kernel k(x: f32[1])\n"
              "  locals tmp.2: f32, tmp.3: f32\n"
              "  parallel i.1 in [0i64, dim(x,0)) step 1i64:\n"
              "    tmp.2 = (f32 load x[i.1])\n"
              "    store x[i.1] = (f32 select (i32 gt tmp.2 0f32) 1f32 (f32 select (i32 lt tmp.2 "
              "0f32) -1f32 0f32))\n"
              "    tmp.3 = (f32 min (f32 max (f32 div (f32 sub (f32 load x[i.1]) 0f32) (f32 sub "
              "1f32 0f32)) 0f32) 1f32)\n"
              "    store x[i.1] = (f32 mul (f32 mul tmp.3 tmp.3) (f32 sub 3f32 (f32 mul 2f32 "
              "tmp.3)))\n");
}

TEST(LowerBasic, LoopVariableRebindingGetsItsOwnCopy) {
    std::string ir = lower_print(
        kernel1("x", {"for j in range(4):", "    j = j * 2", "    x[j] = 1"}), {arr(i32)});
    EXPECT_EQ(ir,
              "kernel k(x: i32[1])\n"
              "  locals j.2: i64, j.3: i64\n"
              "  parallel i.1 in [0i64, dim(x,0)) step 1i64:\n"
              "    for j.2 in [0i64, 4i64) step 1i64:\n"
              "      j.3 = j.2\n"
              "      j.3 = (i64 mul j.3 2i64)\n"
              "      store x[j.3] = 1i32\n");
}

}  // namespace
}  // namespace tack::sema::testing
