// Issue 12 through the C++ API: an unsupported parameter form is reported, located, before an
// argument-count mismatch; an `async def` kernel is rejected; NFKC-equivalent names are one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace {

tack::Kernel kernel(const std::string& src, const char* name) {
    return tack::Module::from_source("import tack\n\n" + src, "k.py").kernel(name);
}

TEST(Issue12, UnsupportedParameterBeforeArity) {
    tack::Kernel k = kernel(R"(
@tack.kernel
def k(x, **options):
    for i in range(x.shape[0]):
        x[i] = 1
)",
                            "k");
    auto x = tack::zeros(tack::f32, {2});
    for (int calls = 0; calls < 2; ++calls) {  // also once validation has been cached
        try {
            k(x);  // one argument for two parameters
            FAIL();
        } catch (const tack::CompileError& e) {
            EXPECT_EQ(e.kind(), tack::ErrorKind::UnsupportedSyntax);
            EXPECT_NE(e.message().find("unsupported parameter 'options'"), std::string::npos);
            EXPECT_EQ(e.line(), 5);
            EXPECT_EQ(e.column(), 10);
        }
    }
}

TEST(Issue12, AsyncKernelIsRejected) {
    tack::Kernel k = kernel(R"(
@tack.kernel
async def k(x):
    for i in range(x.shape[0]):
        x[i] = 1
)",
                            "k");
    auto x = tack::zeros(tack::f32, {2});
    try {
        k(x);
        FAIL();
    } catch (const tack::CompileError& e) {
        EXPECT_EQ(e.kind(), tack::ErrorKind::UnsupportedSyntax);
        EXPECT_NE(e.message().find("AsyncFunctionDef"), std::string::npos);
        EXPECT_EQ(e.line(), 5);
        EXPECT_EQ(e.column(), 1);
    }
    EXPECT_EQ(x.to_host<float>(), std::vector<float>(2, 0.0f));
}

TEST(Issue12, NfkcEquivalentNamesAreOneName) {
    tack::Kernel k = kernel(
        "@tack.kernel\ndef k(x):\n    for i in range(x.shape[0]):\n"
        "        \uFB01 = i + 1\n        x[i] = fi * 2\n",
        "k");
    auto x = tack::zeros(tack::i32, {4});
    k(x);
    EXPECT_EQ(x.to_host<int32_t>(), (std::vector<int32_t>{2, 4, 6, 8}));
}

}  // namespace
