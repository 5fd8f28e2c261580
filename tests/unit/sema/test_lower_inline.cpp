// @tack.func inlining (CONTRACT A20, A22): fresh variables per call, scalar arguments copied,
// arrays aliased, early returns, tuple returns, recursion and arity errors.
#include "sema/validate.hpp"
#include "unit/sema/test_lower_util.hpp"

namespace tack::sema::testing {
namespace {

TEST(LowerInline, EarlyReturnMovesTheRestIntoTheOtherBranch) {
    // LC7: `if a > limit: return limit` then `return a` yields limit when taken.
    const char* src = R"(
import tack

@tack.func
def clampf(a, limit):
    if a > limit:
        return limit
    a = a * 2
    return a

@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        x[i] = clampf(x[i], 3)
)";
    EXPECT_EQ(lower_print(src, {arr(f32)}),
              "kernel k(x: f32[1])\n"
              "  locals a.2: f32, limit.3: i32, $ret0.4: f32\n"
              "  parallel i.1 in [0i64, dim(x,0)) step 1i64:\n"
              "    a.2 = (f32 load x[i.1])\n"
              "    limit.3 = 3i32\n"
              "    if (i32 gt a.2 (f32 cast limit.3)):\n"
              "      $ret0.4 = (f32 cast limit.3)\n"
              "    else:\n"
              "      a.2 = (f32 mul a.2 2f32)\n"
              "      $ret0.4 = a.2\n"
              "    store x[i.1] = $ret0.4\n");
}

TEST(LowerInline, TupleReturnsUnpackIntoTargets) {
    const char* src = R"(
import tack

@tack.func
def divmod2(a, b):
    return a // b, a % b

@tack.kernel
def k(x, q, r):
    for i in range(x.shape[0]):
        q[i], r[i] = divmod2(x[i], 7)
)";
    EXPECT_EQ(lower_print(src, {arr(i32), arr(i32), arr(i64)}),
              "kernel k(x: i32[1], q: i32[1], r: i64[1])\n"
              "  locals a.4: i32, b.5: i32, $ret0.6: i32, $ret1.7: i32\n"
              "  parallel i.3 in [0i64, dim(x,0)) step 1i64:\n"
              "    a.4 = (i32 load x[i.3])\n"
              "    b.5 = 7i32\n"
              "    $ret0.6 = (i32 floordiv a.4 b.5)\n"
              "    $ret1.7 = (i32 mod a.4 b.5)\n"
              "    store q[i.3] = $ret0.6\n"
              "    store r[i.3] = (i64 cast $ret1.7)\n");
    // A multi-value result bound to one name is rejected.
    std::string one = std::string(src).replace(std::string(src).find("q[i], r[i] ="), 12, "q[i] =");
    EXPECT_NE(lower_error(one, {arr(i32), arr(i32), arr(i64)}).find("unpack them"),
              std::string::npos);
}

TEST(LowerInline, EveryCallGetsFreshVariablesAndArraysAlias) {
    const char* src = R"(
import tack

@tack.func
def fill(buf, v):
    buf[0] = v
    v = v + 1
    return v

@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        tmp = tack.local_array(tack.i32, 2)
        x[i] = fill(tmp, 1) + fill(x, 2) + tmp[0]
)";
    EXPECT_EQ(lower_print(src, {arr(i32)}),
              "kernel k(x: i32[1])\n"
              "  locals v.3: i32, $ret0.4: i32, v.5: i32, $ret0.6: i32\n"
              "  parallel i.1 in [0i64, dim(x,0)) step 1i64:\n"
              "    alloc local tmp.2: i32[2]\n"
              "    v.3 = 1i32\n"
              "    store tmp.2[0i64] = v.3\n"
              "    v.3 = (i32 add v.3 1i32)\n"
              "    $ret0.4 = v.3\n"
              "    v.5 = 2i32\n"
              "    store x[0i64] = v.5\n"
              "    v.5 = (i32 add v.5 1i32)\n"
              "    $ret0.6 = v.5\n"
              "    store x[i.1] = (i32 add (i32 add $ret0.4 $ret0.6) (i32 load tmp.2[0i64]))\n");
}

TEST(LowerInline, ReturnSlotJoinsItsPaths) {
    const char* src = R"(
import tack

@tack.func
def pick(a, b):
    if a > 0:
        return 0.5
    return b

@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        x[i] = pick(x[i], x[i])
)";
    // The f64 path settles the slot to f64, so the weak 0.5 becomes the double 0.5.
    EXPECT_EQ(lower_print(src, {arr(f64)}),
              "kernel k(x: f64[1])\n"
              "  locals a.2: f64, b.3: f64, $ret0.4: f64\n"
              "  parallel i.1 in [0i64, dim(x,0)) step 1i64:\n"
              "    a.2 = (f64 load x[i.1])\n"
              "    b.3 = (f64 load x[i.1])\n"
              "    if (i32 gt a.2 0f64):\n"
              "      $ret0.4 = 0.5f64\n"
              "    else:\n"
              "      $ret0.4 = b.3\n"
              "    store x[i.1] = $ret0.4\n");
}

TEST(LowerInline, ErrorsNameTheDeviceFunction) {
    const char* src = R"(
import tack

@tack.func
def bad(a, b):
    return a + b

@tack.kernel
def k(x, y):
    for i in range(x.shape[0]):
        x[i] = bad(x[i], y[i])
)";
    EXPECT_EQ(lower_error(src, {arr(i64), arr(u64)}),
              "TypeError: Device function 'bad' (inlined into kernel 'k'): operands of types i64 "
              "and u64 have no common type; use an explicit integer cast at line 6, column 12");
}

TEST(LowerInline, ArityMismatch) {
    const char* src = R"(
import tack

@tack.func
def f(a):
    return a

@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        x[i] = f(x[i], 1)
)";
    EXPECT_EQ(lower_error(src, {arr(i32)}),
              "TypeError: Kernel 'k': f() takes 1 positional argument(s) but 2 were given at "
              "line 11, column 16");
}

TEST(LowerInline, RecursionIsRejectedWithTheCallChain) {
    const char* src = R"(
import tack

@tack.func
def f(a):
    return g(a)

@tack.func
def g(a):
    return f(a)

@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        x[i] = f(x[i])
)";
    std::string err = lower_error(src, {arr(i32)});
    EXPECT_NE(err.find("recursive call to @tack.func 'f' (call chain k -> f -> g -> f)"),
              std::string::npos)
        << err;
}

// A chain of `calls` nested @tack.func calls from kernel k: k -> f<calls-1> -> ... -> f0.
std::string call_chain(int calls) {
    std::string src = "import tack\n\n@tack.func\ndef f0(v):\n    return v + 1\n";
    for (int i = 1; i < calls; ++i) {
        src += "\n@tack.func\ndef f" + std::to_string(i) + "(v):\n    return f" +
               std::to_string(i - 1) + "(v)\n";
    }
    return src + "\n@tack.kernel\ndef k(x):\n    for i in range(x.shape[0]):\n        x[i] = f" +
           std::to_string(calls - 1) + "(x[i])\n";
}

// Hardening round three, defect 4: 3,000 chained calls overflowed the stack. kMaxCallDepth
// nested calls lower; one more, or thousands, is a located error naming the chain.
TEST(LowerInline, CallsNestAtMostTheDocumentedDepth) {
    EXPECT_EQ(lower_error(call_chain(kMaxCallDepth), {arr(i32)}), "");
    for (int calls : {kMaxCallDepth + 1, 20'000}) {
        std::string err = lower_error(call_chain(calls), {arr(i32)});
        EXPECT_NE(err.find("UnsupportedSyntaxError: Device function 'f" +
                           std::to_string(calls - kMaxCallDepth) +
                           "' (inlined into kernel 'k'): "
                           "@tack.func calls nest deeper than 256 (call chain k -> f" +
                           std::to_string(calls - 1) + " -> f" + std::to_string(calls - 2) +
                           " -> ... -> f"),
                  std::string::npos)
            << err.substr(0, 400);
        EXPECT_NE(err.find("; shorten the chain or merge some of its functions at line "),
                  std::string::npos)
            << err.substr(0, 400);
    }
}

// g0 calls g1 twice, g1 calls g2 twice, ... g<levels> is the leaf: 2^(levels+1) - 1 inlined
// calls from kernel k.
std::string doubling_calls(int levels) {
    std::string src =
        "import tack\n\n@tack.func\ndef g" + std::to_string(levels) + "(v):\n    return v * 3\n";
    for (int j = levels - 1; j >= 0; --j) {
        std::string next = "g" + std::to_string(j + 1) + "(v)";
        src += "\n@tack.func\ndef g" + std::to_string(j) + "(v):\n    return " + next + " + " +
               next + "\n";
    }
    return src +
           "\n@tack.kernel\ndef k(x):\n    for i in range(x.shape[0]):\n        x[i] = g0(x[i])\n";
}

// Hardening round three, defect 8: calls within calls multiply (14 doubling levels compiled
// for over 30 s, 30 ended in std::bad_alloc). Up to kMaxInlinedCalls inlined calls lower; the
// call past them is a located error at once, however deep the doubling goes.
TEST(LowerInline, InlinedCallsHaveABudget) {
    EXPECT_EQ(lower_error(doubling_calls(10), {arr(i32)}), "");  // 2047 calls
    EXPECT_EQ(lower_error(doubling_calls(11), {arr(i32)}), "");  // 4095 calls
    for (int levels : {12, 30}) {
        std::string err = lower_error(doubling_calls(levels), {arr(i32)});
        EXPECT_NE(err.find("(inlined into kernel 'k'): kernel 'k' inlines more than 4096 "
                           "@tack.func calls (call chain k -> g0 -> "),
                  std::string::npos)
            << err.substr(0, 400);
        EXPECT_NE(err.find("every call is inlined, so calls within calls multiply"),
                  std::string::npos)
            << err.substr(0, 400);
    }
}

}  // namespace
}  // namespace tack::sema::testing
