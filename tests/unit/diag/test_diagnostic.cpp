#include <gtest/gtest.h>

#include "diag/diagnostic.hpp"

using namespace tack::diag;

TEST(Diagnostic, RendersFileLineColumnAndCaret) {
    auto file = std::make_shared<SourceFile>("k.py", "def k(x):\n    assert x > 0\n");
    Diagnostic d{ErrorKind::UnsupportedSyntax, "Kernel 'k': unsupported Assert at line 2, column 5",
                 file, SourceRange{14, 26}};
    EXPECT_EQ(d.line(), 2);
    EXPECT_EQ(d.column(), 5);
    EXPECT_EQ(
        d.render(),
        "k.py:2:5: UnsupportedSyntaxError: Kernel 'k': unsupported Assert at line 2, column 5\n"
        "        assert x > 0\n"
        "        ^~~~~~~~~~~~\n");
}

TEST(Diagnostic, OffsetsMapDedentedSourceToTheUsersFile) {
    // A method body dedented by 4 columns that starts on line 10 of the user's file.
    auto file = std::make_shared<SourceFile>("/home/u/prog.py", "def k(x):\n    y = 1\n", 9, 4);
    Diagnostic d{ErrorKind::NameError, "m", file, SourceRange{14, 15}};
    EXPECT_EQ(d.line(), 11);
    EXPECT_EQ(d.column(), 9);
    EXPECT_EQ(at_position(*file, d.range), "at line 11, column 9");
}
