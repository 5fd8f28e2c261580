// Evaluation order (CONTRACT B25), laziness, per-iteration copies (A13), loop-variable scope
// (A7) and the parallel loop's forms (A14-A16).
#include "unit/sema/test_lower_util.hpp"

namespace tack::sema::testing {
namespace {

// A device function with a side effect: bumps c[0] and returns the new value.
const char* kBump = R"(
@tack.func
def bump(c):
    tack.atomic_add(c, 0, 1)
    return c[0]
)";

TEST(LowerOrder, EarlierOperandsSpillBeforeLaterStatements) {
    std::string ir =
        lower_print(kernel1("x, c", {"x[i] = c[0] + bump(c)"}, kBump), {arr(i32), arr(i32)});
    EXPECT_EQ(ir,
              "kernel k(x: i32[1], c: i32[1])\n"
              "  locals $ret0.3: i32, tmp.4: i32\n"
              "  parallel i.2 in [0i64, dim(x,0)) step 1i64:\n"
              "    tmp.4 = (i32 load c[0i64])\n"
              "    atomic_add c[0i64], 1i32\n"
              "    $ret0.3 = (i32 load c[0i64])\n"
              "    store x[i.2] = (i32 add tmp.4 $ret0.3)\n");
}

TEST(LowerOrder, ShortCircuitWithStatements) {
    std::string ir =
        lower_print(kernel1("x, c",
                            {"t = x[i] > 0 and bump(c) > 1", "u = x[i] > 0 or bump(c) > 1",
                             "v = x[i] > 0 and x[i] < 9"},
                            kBump),
                    {arr(i32), arr(i32)});
    EXPECT_EQ(ir,
              "kernel k(x: i32[1], c: i32[1])\n"
              "  locals $ret0.3: i32, tmp.4: i32, t.5: i32, $ret0.6: i32, tmp.7: i32, u.8: i32, "
              "v.9: i32\n"
              "  parallel i.2 in [0i64, dim(x,0)) step 1i64:\n"
              "    tmp.4 = (i32 gt (i32 load x[i.2]) 0i32)\n"
              "    if tmp.4:\n"
              "      atomic_add c[0i64], 1i32\n"
              "      $ret0.3 = (i32 load c[0i64])\n"
              "      tmp.4 = (i32 gt $ret0.3 1i32)\n"
              "    t.5 = tmp.4\n"
              "    tmp.7 = (i32 gt (i32 load x[i.2]) 0i32)\n"
              "    if tmp.7:\n"
              "      pass\n"
              "    else:\n"
              "      atomic_add c[0i64], 1i32\n"
              "      $ret0.6 = (i32 load c[0i64])\n"
              "      tmp.7 = (i32 gt $ret0.6 1i32)\n"
              "    u.8 = tmp.7\n"
              "    v.9 = (i32 and (i32 gt (i32 load x[i.2]) 0i32) (i32 lt (i32 load x[i.2]) "
              "9i32))\n");
}

TEST(LowerOrder, ConditionalExpression) {
    std::string ir = lower_print(
        kernel1("x, c", {"x[i] = x[i] if i > 2 else 0", "x[i] = bump(c) if i > 2 else 5"}, kBump),
        {arr(i32), arr(i32)});
    EXPECT_EQ(ir,
              "kernel k(x: i32[1], c: i32[1])\n"
              "  locals $ret0.3: i32, tmp.4: i32\n"
              "  parallel i.2 in [0i64, dim(x,0)) step 1i64:\n"
              "    store x[i.2] = (i32 select (i32 gt i.2 2i64) (i32 load x[i.2]) 0i32)\n"
              "    if (i32 gt i.2 2i64):\n"
              "      atomic_add c[0i64], 1i32\n"
              "      $ret0.3 = (i32 load c[0i64])\n"
              "      tmp.4 = $ret0.3\n"
              "    else:\n"
              "      tmp.4 = 5i32\n"
              "    store x[i.2] = tmp.4\n");
}

TEST(LowerOrder, ChainedComparisonEvaluatesTheMiddleOnce) {
    std::string ir = lower_print(kernel1("x", {"t = 0 < x[i] <= 5"}), {arr(i32)});
    EXPECT_EQ(ir,
              "kernel k(x: i32[1])\n"
              "  locals tmp.2: i32, t.3: i32\n"
              "  parallel i.1 in [0i64, dim(x,0)) step 1i64:\n"
              "    tmp.2 = (i32 load x[i.1])\n"
              "    t.3 = (i32 and (i32 lt 0i32 tmp.2) (i32 le tmp.2 5i32))\n");
    // A later link with statements runs only when the earlier links hold.
    std::string lazy =
        lower_print(kernel1("x, c", {"t = 0 < i < bump(c)"}, kBump), {arr(i32), arr(i32)});
    EXPECT_EQ(lazy,
              "kernel k(x: i32[1], c: i32[1])\n"
              "  locals $ret0.3: i32, tmp.4: i32, t.5: i32\n"
              "  parallel i.2 in [0i64, dim(x,0)) step 1i64:\n"
              "    tmp.4 = (i32 lt 0i64 i.2)\n"
              "    if tmp.4:\n"
              "      atomic_add c[0i64], 1i32\n"
              "      $ret0.3 = (i32 load c[0i64])\n"
              "      tmp.4 = (i32 lt i.2 (i64 cast $ret0.3))\n"
              "    t.5 = tmp.4\n");
}

TEST(LowerOrder, AugmentedAssignmentReadsOldValueFirst) {
    std::string ir =
        lower_print(kernel1("x, c", {"x[c[i]] += bump(c)"}, kBump), {arr(i32), arr(i64)});
    EXPECT_EQ(ir,
              "kernel k(x: i32[1], c: i64[1])\n"
              "  locals tmp.3: i64, $ret0.4: i64, tmp.5: i32\n"
              "  parallel i.2 in [0i64, dim(x,0)) step 1i64:\n"
              "    tmp.3 = (i64 load c[i.2])\n"
              "    tmp.5 = (i32 load x[tmp.3])\n"
              "    atomic_add c[0i64], 1i64\n"
              "    $ret0.4 = (i64 load c[0i64])\n"
              "    store x[tmp.3] = (i32 cast (i64 add (i64 cast tmp.5) $ret0.4))\n");
}

TEST(LowerOrder, PlainAssignmentEvaluatesValueBeforeIndex) {
    std::string ir =
        lower_print(kernel1("x, c", {"x[bump(c)] = c[0]"}, kBump), {arr(i32), arr(i32)});
    EXPECT_EQ(ir,
              "kernel k(x: i32[1], c: i32[1])\n"
              "  locals $ret0.3: i32, tmp.4: i32\n"
              "  parallel i.2 in [0i64, dim(x,0)) step 1i64:\n"
              "    tmp.4 = (i32 load c[0i64])\n"
              "    atomic_add c[0i64], 1i32\n"
              "    $ret0.3 = (i32 load c[0i64])\n"
              "    store x[(i64 cast $ret0.3)] = tmp.4\n");
}

TEST(LowerOrder, TupleAssignmentEvaluatesTheWholeRightSideFirst) {
    std::string ir = lower_print(kernel1("x", {"a = x[i]", "b = 2", "a, b = b, a"}), {arr(i32)});
    EXPECT_EQ(ir,
              "kernel k(x: i32[1])\n"
              "  locals a.2: i32, b.3: i32, tmp.4: i32, tmp.5: i32\n"
              "  parallel i.1 in [0i64, dim(x,0)) step 1i64:\n"
              "    a.2 = (i32 load x[i.1])\n"
              "    b.3 = 2i32\n"
              "    tmp.4 = b.3\n"
              "    tmp.5 = a.2\n"
              "    a.2 = tmp.4\n"
              "    b.3 = tmp.5\n");
}

TEST(LowerOrder, PerIterationCopies) {
    const char* src = R"(
import tack

@tack.kernel
def k(x, value):
    base = 2
    for i in range(x.shape[0]):
        value = value + 1
        base += i
        x[i] = value + base
)";
    EXPECT_EQ(lower_print(src, {arr(i64), scalar(i32)}),
              "kernel k(x: i64[1], value.1: i32)\n"
              "  locals base.2: i64, base.3: i64, value.4: i32\n"
              "  prologue:\n"
              "    base.2 = 2i64\n"
              "  parallel i.5 in [0i64, dim(x,0)) step 1i64:\n"
              "    base.3 = base.2\n"
              "    value.4 = value.1\n"
              "    value.4 = (i32 add value.4 1i32)\n"
              "    base.3 = (i64 add base.3 i.5)\n"
              "    store x[i.5] = (i64 add (i64 cast value.4) base.3)\n");
}

TEST(LowerOrder, NdrangeWithSizesAndPairs) {
    const char* src = R"(
import tack

@tack.kernel
def k(g, n):
    for i, j, l in tack.ndrange(n, (2, g.shape[1]), (n // 2, n * 3)):
        g[i, j, l] = 1
)";
    std::string ir = lower_print(src, {arr(u8, 3), scalar(i64)});
    EXPECT_NE(ir.find("  parallel i.2 in [0i64, n.1) step 1i64, j.3 in [2i64, dim(g,1)) step "
                      "1i64, l.4 in [(i64 floordiv n.1 2i64), (i64 mul n.1 3i64)) step 1i64:\n"),
              std::string::npos)
        << ir;
    const char* one_name = R"(
import tack

@tack.kernel
def k(g):
    for t in tack.ndrange(3, 4):
        g[t] = 1
)";
    EXPECT_NE(lower_error(one_name, {arr(u8)}).find("give one loop variable name per dimension"),
              std::string::npos);
}

TEST(LowerOrder, LoopVariableScopeEndsWithItsLoop) {
    EXPECT_EQ(lower_error(kernel1("x", {"for j in range(3):", "    pass", "x[i] = j"}), {arr(i32)}),
              "NameError: Kernel 'k': name 'j' is not defined (a for loop variable's binding "
              "ends with its loop) at line 9, column 16");
    // Reassigning it after the loop makes it an ordinary local (of its own type).
    auto l = lower_source(kernel1("x", {"for j in range(3):", "    pass", "j = 0.5", "x[i] = j"}),
                          {arr(f32)});
    EXPECT_EQ(local_type(l.kernel, "j"), f32);
    // Sibling loops may reuse the name.
    EXPECT_EQ(lower_error(kernel1("x", {"for j in range(3):", "    x[j] = 1",
                                        "for j in range(2):", "    x[j] = 2"}),
                          {arr(i32)}),
              "");
}

TEST(LowerOrder, WhileConditionWithStatements) {
    std::string ir = lower_print(kernel1("x, c", {"while bump(c) < 3:", "    x[i] += 1"}, kBump),
                                 {arr(i32), arr(i32)});
    EXPECT_EQ(ir,
              "kernel k(x: i32[1], c: i32[1])\n"
              "  locals $ret0.3: i32\n"
              "  parallel i.2 in [0i64, dim(x,0)) step 1i64:\n"
              "    while 1i32:\n"
              "      atomic_add c[0i64], 1i32\n"
              "      $ret0.3 = (i32 load c[0i64])\n"
              "      if (i32 lt $ret0.3 3i32):\n"
              "        pass\n"
              "      else:\n"
              "        break\n"
              "      store x[i.2] = (i32 add (i32 load x[i.2]) 1i32)\n");
}

}  // namespace
}  // namespace tack::sema::testing
