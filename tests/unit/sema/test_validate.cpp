// Source validation: every rejection of the contract with its exact message and position, and
// clean kernels that must produce no diagnostic.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sema/validate.hpp"
#include "test_validate_cases.hpp"
#include "test_validate_util.hpp"

namespace tack::sema::testing {
namespace {

class Reject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(Reject, ReportsExactlyTheExpectedDiagnostics) {
    const RejectCase& c = GetParam();
    Checked checked = check_module(c.source);
    EXPECT_EQ(checked.messages(), c.expected) << c.source;
}

INSTANTIATE_TEST_SUITE_P(Validate, Reject, ::testing::ValuesIn(reject_cases()),
                         [](const ::testing::TestParamInfo<RejectCase>& info) {
                             return info.param.name;
                         });

std::vector<std::string> messages_of(const std::string& source) {
    return check_module(source).messages();
}

TEST(Validate, DiagnosticCarriesAbsolutePosition) {
    Checked c = check_module(kernel_with("        assert x[i] > 0\n"));
    ASSERT_EQ(c.diags.size(), 1u);
    EXPECT_EQ(c.diags[0].line(), 6);
    EXPECT_EQ(c.diags[0].column(), 9);
    EXPECT_EQ(c.diags[0].kind, diag::ErrorKind::UnsupportedSyntax);
}

TEST(Validate, DedentedSourceReportsUserCoordinates) {
    // Python hands us the dedented text of one method; line/column offsets map it back.
    std::string text = "@tack.kernel\ndef k(x):\n    for i in range(4):\n        assert x[i]\n";
    auto file = std::make_shared<diag::SourceFile>("m.py", "import tack\n" + text, 10, 4);
    frontend::ParseResult parsed = frontend::parse_module(file);
    ASSERT_TRUE(parsed.errors.empty());
    auto module = std::make_shared<frontend::Module>(std::move(parsed.module));
    auto env = std::make_shared<ModuleEnvironment>(module);
    auto diags = validate(*module->functions[0], file, *env);
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(
        diags[0].message,
        "Kernel 'k': unsupported Assert at line 15, column 13: "
        "kernels cannot raise or catch; test the condition with `if` and record it in a field, or "
        "run under debug mode (TACK_DEBUG=1), which checks every index and divisor");
}

TEST(Validate, CleanKernelHasNoDiagnostics) {
    EXPECT_EQ(messages_of(R"(import tack
import math
from math import pi, sqrt as msqrt
import tack as tk
from tack import f32

SCALE = tack.constant(2.0)
MASK = tack.constant(255, tack.u32)
NEG = tk.constant(-3)

@tack.func
def pair(a, b):
    """Two values at once."""
    if a > b:
        return b, a
    return a, b

@tack.func
def norm2(a, b):
    s = a * a + b * b
    return tack.sqrt(s)

@tack.kernel
def k(x, out, counts, n):
    """Docstring."""
    scale = SCALE * math.pi + pi * NEG
    first = x[0]
    tmp = tack.local_array(tack.f32, 4)
    smem = tack.shared(f32, 256)
    tid = tack.thread_id()
    if n > 1:
        scale = scale + 1.0
    while n > 4:
        n = n // 2
    for i in range(0, out.shape[0], 2):
        lo, hi = pair(x[i], first)
        v = norm2(lo, hi) * scale + msqrt(2.0) + tk.exp(1.0) + min(lo, hi, 0.0)
        v = max(v, 0.0) + abs(v) + tack.f32(i) + float(n) + int(v) + tack.math.fract(v)
        tmp[0] = v
        smem[tid] = v
        tack.barrier()
        total = tack.block_sum(v)
        slot = tack.atomic_add(counts, 0, 1)
        tack.atomic_max(counts, 1, slot)
        for j in range(3):
            if j == 2:
                break
            v = v + j
        for j in range(4, 0, 1):
            continue
        j = 7
        v = v + j
        if v > 1e30 or x[i] != x[i]:
            continue
        print("value", v, total)
        out[i] = v if v > 0.0 else -v
        out[i] += len(x) + x.shape[0] + (MASK & 3) + (i << 2) + (i ** 2)
    done = scale * 2.0
)"),
              std::vector<std::string>{});
}

TEST(Validate, NdrangeKernelWithReturnValue) {
    // DECISIONS G7: a final `return expr` after the parallel loop of an annotated kernel.
    EXPECT_EQ(messages_of(R"(import tack

@tack.kernel
def k(img, w, h) -> tack.f32:
    for y, x in tack.ndrange(h, (0, w)):
        img[y, x] = img[y, x] * 0.5
    return img[0, 0]

@tack.kernel
def total(x) -> float:
    for i in range(x.shape[0]):
        x[i] = 1.0
    return x[0] + 1.0

@tack.kernel
def count(x) -> int:
    for i in range(x.shape[0]):
        x[i] = 1
    return 3

@tack.kernel
def pre_loop_local(x, n) -> float:
    scale = 2.0 * n
    for i in range(x.shape[0]):
        scale = scale + 1.0
        x[i] = scale
    return scale * x[0]
)"),
              std::vector<std::string>{});
}

TEST(Validate, InlinedEffectsInsideTheParallelLoopAreFine) {
    EXPECT_EQ(messages_of(R"(import tack

@tack.func
def bump(counts, i):
    tack.atomic_add(counts, i, 1)
    counts[0] = 1

@tack.kernel
def k(counts):
    for i in range(counts.shape[0]):
        bump(counts, i)
)"),
              std::vector<std::string>{});
}

TEST(Validate, DeviceFunctionsMayReturnEarlyAndUseLoops) {
    EXPECT_EQ(messages_of(R"(import tack

@tack.func
def clamp_to(a, limit):
    if a > limit:
        return limit
    total = 0.0
    for j in range(3):
        total = total + a
        if total > limit:
            break
    k = 0
    while k < 3:
        k += 1
    return a
)"),
              std::vector<std::string>{});
}

TEST(Validate, SiblingLoopsShareAVariableAndReassignmentRevivesIt) {
    EXPECT_EQ(messages_of(kernel_with("        for j in range(3):\n            out[i] = j\n"
                                      "        for j in range(4):\n            out[i] = j\n"
                                      "        j = 0\n        out[i] = j\n")),
              std::vector<std::string>{});
}

TEST(Validate, UnimportedTackAndMathQualifiersAreIntrinsics) {
    // Upstream accepts `tack.X` / `math.X` even without a Python namespace (AST-only callers).
    EXPECT_EQ(messages_of("@tack.kernel\ndef k(x):\n    for i in range(x.shape[0]):\n"
                          "        x[i] = math.sqrt(tack.f32(x[i])) * math.pi\n"),
              std::vector<std::string>{});
}

TEST(Validate, ModuleFunctionIsNotValidatedAsKernelBody) {
    // A @tack.func needs no parallel loop and may store anywhere.
    EXPECT_EQ(messages_of(func_def("(out, v)", "    out[0] = v\n    print(v)\n")),
              std::vector<std::string>{});
}

TEST(Validate, BarrierNamedFunctionIsNotTheIntrinsic) {
    // A @tack.func called `barrier` shadows the intrinsic; using its value is fine.
    EXPECT_EQ(messages_of(R"(import tack

@tack.func
def barrier(x):
    return x + 7

@tack.kernel
def k(out):
    for i in range(out.shape[0]):
        out[i] = barrier(i)
)"),
              std::vector<std::string>{});
}

TEST(Validate, ValidateWithCalleesChecksEachCalleeOnce) {
    Checked c = check_module(R"(import tack

@tack.func
def leaf(a):
    assert a
    return a

@tack.func
def mid(a):
    return leaf(a) + leaf(a)

@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        x[i] = mid(x[i]) + leaf(x[i])
)");
    auto file = c.module->file;
    const frontend::FunctionDef* k = c.module->functions.back().get();
    auto diags = validate_with_callees(*k, file, *c.env);
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(
        diags[0].message,
        "Device function 'leaf': unsupported Assert at line 5, column 5: "
        "kernels cannot raise or catch; test the condition with `if` and record it in a field, or "
        "run under debug mode (TACK_DEBUG=1), which checks every index and divisor");
}

}  // namespace
}  // namespace tack::sema::testing

namespace tack::sema::testing {
namespace {

// Every accepted golden program must validate cleanly (its definitions are all supported).
TEST(Validate, AcceptedGoldenProgramsAreClean) {
    namespace fs = std::filesystem;
    fs::path dir = fs::path(TACK_SOURCE_DIR) / "tests/golden/accept";
    if (!fs::exists(dir)) GTEST_SKIP() << "no accepted golden programs";
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".py") continue;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        EXPECT_EQ(check_module(text.str(), entry.path().filename().string()).messages(),
                  std::vector<std::string>{})
            << entry.path();
    }
}

}  // namespace
}  // namespace tack::sema::testing

namespace tack::sema::testing {
namespace {

std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The golden files tests/golden/reject/<case>.py hold these cases' sources; their .expected
// files hold what `tackc check` prints: the hand-written messages above, rendered.
TEST_P(Reject, GoldenFilesMatchTheCase) {
    const RejectCase& c = GetParam();
    namespace fs = std::filesystem;
    std::string rel = "tests/golden/reject/" + c.name + ".py";
    fs::path py = fs::path(TACK_SOURCE_DIR) / rel;
    ASSERT_TRUE(fs::exists(py)) << py;
    EXPECT_EQ(read_text(py), c.source);
    Checked checked = check_module(c.source, rel);
    std::string rendered;
    for (const auto& d : checked.diags)
        rendered += d.render();
    EXPECT_EQ(
        read_text(fs::path(TACK_SOURCE_DIR) / ("tests/golden/reject/" + c.name + ".expected")),
        rendered);
}

}  // namespace
}  // namespace tack::sema::testing
