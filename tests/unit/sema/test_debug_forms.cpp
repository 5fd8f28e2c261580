// The contract between sema's index flattening and passes::debug_checks (ir.hpp SEMANTICS,
// Load/Store index): every form sema builds for a field subscript is checked per axis, and a
// user-written flat index is checked as one. A change to flat_index or place_of that breaks the
// recognition shows here, not as a vaguer message at run time.
#include <gtest/gtest.h>

#include "ir/verifier.hpp"
#include "passes/passes.hpp"
#include "test_lower_util.hpp"

namespace tack::sema::testing {
namespace {

using Kind = passes::CheckSite::Kind;

Type vec(DType t, int rank, int n) {
    return Type::array(t, rank, Shape{n, 0});
}

passes::DebugChecked checked(const std::string& src, const std::vector<Type>& args) {
    Lowered l = lower_source("import tack\n" + src, args);
    return passes::debug_checks(std::move(l.kernel));
}

// "read a 2 axes" per site, in source order.
std::vector<std::string> sites(const passes::DebugChecked& c) {
    static const char* const kKinds[] = {"read", "write", "update", "atomic", "floordiv", "mod"};
    std::vector<std::string> out;
    for (const auto& s : c.sites) {
        std::string text = kKinds[static_cast<int>(s.kind)];
        if (s.buffer)
            text += " " + s.buffer->name +
                    (s.per_axis ? " " + std::to_string(s.values) + " axes" : " flat");
        else
            text += std::string(" ") + name(s.dtype);
        out.push_back(text);
    }
    return out;
}

using Sites = std::vector<std::string>;

TEST(DebugForms, MultiDimensionalSubscriptsArePerAxis) {
    auto c = checked(
        "@tack.kernel\n"
        "def k(a, b):\n"
        "    for i, j in tack.ndrange(a.shape[0], a.shape[1]):\n"
        "        a[i, j] = b[i, j + 1] * 2.0\n",
        {arr(DType::f32, 2), arr(DType::f32, 2)});
    EXPECT_EQ(sites(c), (Sites{"read b 2 axes", "write a 2 axes"}));
}

TEST(DebugForms, ThreeAxesReadAndWrite) {
    auto c = checked(
        "@tack.kernel\n"
        "def k(a):\n"
        "    for i, j, l in tack.ndrange(a.shape[0], a.shape[1], a.shape[2]):\n"
        "        a[i, j, l] = a[i, l, j] + 1.0\n",
        {arr(DType::f32, 3)});
    EXPECT_EQ(sites(c), (Sites{"read a 3 axes", "write a 3 axes"}));
}

TEST(DebugForms, UserFlatIndexStaysFlat) {
    auto c = checked(
        "@tack.kernel\n"
        "def k(a):\n"
        "    for i in range(a.shape[0]):\n"
        "        a[i * a.shape[1] + 1] = 1.0\n",
        {arr(DType::f32, 2)});
    EXPECT_EQ(sites(c), (Sites{"write a flat"}));
}

TEST(DebugForms, SubscriptsThatLoadAreCheckedWhereSemaMaterializesThem) {
    auto c = checked(
        "@tack.kernel\n"
        "def k(a, idx):\n"
        "    for i in range(idx.shape[0]):\n"
        "        a[idx[i], 1] += 1.0\n",
        {arr(DType::f32, 2), arr(DType::i32)});
    EXPECT_EQ(sites(c), (Sites{"read idx 1 axes", "update a 2 axes"}));
}

TEST(DebugForms, VectorFieldsArePerAxis) {
    auto c = checked(
        "@tack.kernel\n"
        "def k(p, q):\n"
        "    for i, j in tack.ndrange(p.shape[0], p.shape[1]):\n"
        "        p[i, j] = q[i + 1]\n",
        {vec(DType::f32, 2, 3), vec(DType::f32, 1, 3)});
    EXPECT_EQ(sites(c), (Sites{"read q 1 axes", "write p 2 axes"}));
}

TEST(DebugForms, VectorAtomicsArePerAxis) {
    auto c = checked(
        "@tack.kernel\n"
        "def k(p, v):\n"
        "    for i in range(p.shape[0]):\n"
        "        tack.atomic_add(p, i + 1, v[i])\n",
        {vec(DType::f32, 1, 3), vec(DType::f32, 1, 3)});
    EXPECT_EQ(sites(c), (Sites{"read v 1 axes", "atomic p 1 axes"}));
}

TEST(DebugForms, LocalArraysAndDivisions) {
    auto c = checked(
        "@tack.kernel\n"
        "def k(a, n: int):\n"
        "    for i in range(a.shape[0]):\n"
        "        t = tack.local_array(tack.i32, 4)\n"
        "        t[i % 4] = a[i] // n\n"
        "        a[i] = t[i // 2] % 3\n",
        {arr(DType::i32), scalar(DType::i32)});
    // `% 4`, `// 2` and `% 3` have non-zero constant divisors: nothing to check.
    EXPECT_EQ(sites(c), (Sites{"read a 1 axes", "floordiv i32", "write t 1 axes", "read t 1 axes",
                               "write a 1 axes"}));
}

TEST(DebugForms, ResultVerifiesAndAppendsTheRecordAndExtents) {
    auto c = checked(
        "@tack.kernel\n"
        "def k(a, b):\n"
        "    for i in range(a.shape[0]):\n"
        "        a[i] = b[i, 0]\n",
        {arr(DType::f32), arr(DType::f32, 2)});
    ir::verify(c.kernel, "test");
    ASSERT_EQ(c.errors_param, 2);
    const ir::Param& record = c.kernel.params.at(2);
    ASSERT_TRUE(record.is_array());
    EXPECT_EQ(record.buffer->elem, DType::i32);
    EXPECT_EQ(c.extents, (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}, {1, 1}}));
    EXPECT_EQ(c.kernel.params.size(), 6u);
    // The checks read hidden extents, not ArrayDim: specialization sees the plain variant's.
    EXPECT_EQ(passes::shape_dims_used(c.kernel),
              passes::shape_dims_used(lower_source("@tack.kernel\n"
                                                   "def k(a, b):\n"
                                                   "    for i in range(a.shape[0]):\n"
                                                   "        a[i] = b[i, 0]\n",
                                                   {arr(DType::f32), arr(DType::f32, 2)})
                                          .kernel));
}

TEST(DebugForms, SitesInsideAFuncNameItsFile) {
    // The Python package hands each function its own SourceFile; here the callee shares the
    // module's, so the site's file is the kernel's and its position the callee's line.
    auto c = checked(
        "@tack.func\n"
        "def get(x, i):\n"
        "    return x[i + 1]\n"
        "\n"
        "@tack.kernel\n"
        "def k(a, b):\n"
        "    for i in range(a.shape[0]):\n"
        "        a[i] = get(b, i)\n",
        {arr(DType::f32), arr(DType::f32)});
    ASSERT_EQ(c.sites.size(), 2u);
    ASSERT_TRUE(c.sites[0].file);
    EXPECT_EQ(c.sites[0].file->line_of(c.sites[0].range.begin), 4);  // after "import tack"
    EXPECT_EQ(c.sites[1].file->line_of(c.sites[1].range.begin), 9);
}

}  // namespace
}  // namespace tack::sema::testing
