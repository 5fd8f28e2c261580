// frontend::definition_lines: the extent of a definition read from its first line to the end of
// its file, as inspect.getsourcelines finds it (tests/python/test_source_capture.py compares
// the two on real files).
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "frontend/definition.hpp"

using tack::frontend::definition_lines;

TEST(Definition, DecoratedFunctionFollowedByCode) {
    EXPECT_EQ(definition_lines("@tack.kernel\n"
                               "def k(x):\n"
                               "    for i in range(4):\n"
                               "        x[i] = 1.0\n"
                               "\n"
                               "x = tack.zeros(tack.f32, 4)\n"
                               "k(x)\n"),
              4u);
}

TEST(Definition, IndentedDefinitionsEndAtTheirOwnLevel) {
    // A method (or a nested function) ends at the next line of its own level, not the file's.
    EXPECT_EQ(definition_lines("    @tack.kernel\n"
                               "    def k(self, x):\n"
                               "        x[0] = 1.0\n"
                               "\n"
                               "    def other(self):\n"
                               "        pass\n"
                               "y = 1\n"),
              3u);
    EXPECT_EQ(definition_lines("    def k(x):\n"
                               "        x[0] = 1.0\n"
                               "    return k\n"),
              2u);
}

TEST(Definition, StringsAndBracketsAtColumnZeroStayInside) {
    // The cheap guess (the first line back at the def's level) is inside a string or a bracket
    // here; the whole text is lexed instead.
    EXPECT_EQ(definition_lines("def k(x):\n"
                               "    \"\"\"A docstring\n"
                               "with a line at column 0\n"
                               "    \"\"\"\n"
                               "    x[0] = (1.0 +\n"
                               "2.0)\n"
                               "    x[1] = 3.0\n"
                               "z = 0\n"),
              7u);
    EXPECT_EQ(definition_lines("def k(x):\n"
                               "    x[0] = 1.0 + \\\n"
                               "2.0\n"
                               "z = 0\n"),
              3u);
    EXPECT_EQ(definition_lines("def k(x):\n"
                               "    s = 'a\\\n"
                               "b'\n"
                               "z = 0\n"),
              3u);
}

TEST(Definition, DecoratorsSpanningLines) {
    EXPECT_EQ(definition_lines("@decorate(\n"
                               "    1,\n"
                               ")\n"
                               "@tack.kernel\n"
                               "def k(x):\n"
                               "    x[0] = 1.0\n"
                               "k = 2\n"),
              6u);
}

// Small cases: what the text is, and how many lines of it the definition holds (0: none).
struct Case {
    const char* what;
    std::string_view text;
    size_t lines;
};

constexpr Case kCases[] = {
    {"a one-line body", "def k(x): x[0] = 1.0\nz = 0\n", 1},
    {"async def", "async def k(x):\n    pass\n", 2},
    {"no final newline", "def k(x):\n    x[0] = 1.0", 2},
    {"CRLF line ends", "def k(x):\r\n    x[0] = 1.0\r\nz = 0\r\n", 2},
    {"a comment as deep as the body, after a blank line",
     "def k(x):\n    x[0] = 1.0\n\n    # still the body\n# not the body\nz = 0\n", 4},
    {"a comment shallower than the body", "def k(x):\n    x[0] = 1.0\n  # shallower\n", 2},
    {"empty text", "", 0},
    {"an assignment", "x = 1\n", 0},
    {"a class", "class C:\n    pass\n", 0},
    {"a decorator alone", "@tack.kernel\n", 0},
    {"a lambda", "k = lambda x: x\n", 0},
    // Found by fuzz_frontend: a first line with no code (an index past a blank line).
    {"a blank first line", "\n@tack.k    f\n\xcf\xcf", 0},
    {"blank lines before the def count as its", "   \ndef k(x):\n    pass\n", 3},
};

TEST(Definition, SmallCases) {
    for (const Case& c : kCases) {
        SCOPED_TRACE(c.what);
        EXPECT_EQ(definition_lines(c.text), c.lines);
    }
}

TEST(Definition, ManyKernelsInALongFile) {
    // Each definition's extent is found from its own first line, whatever follows.
    std::string file;
    for (int k = 0; k < 200; ++k)
        file += "@tack.kernel\ndef k" + std::to_string(k) + "(x):\n    x[0] = 1.0\n\n";
    size_t pos = 0;
    for (int k = 0; k < 200; ++k) {
        EXPECT_EQ(definition_lines(std::string_view(file).substr(pos)), 3u);
        pos = file.find("@tack", pos + 1);
        if (pos == std::string::npos) break;
    }
}
