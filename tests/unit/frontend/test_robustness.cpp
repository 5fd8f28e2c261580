// Garbage never crashes the front end, nesting is capped, and parsing is fast.

#include <gtest/gtest.h>

#include <ctime>
#include <random>

#include "frontend_test_util.hpp"

using namespace tack::frontend;
using tack::frontend::test::first_error;
using tack::frontend::test::parse_text;

namespace {

std::string kernel_with(const std::string& line) {
    return "@tack.kernel\ndef k():\n    x = " + line + "\n";
}

}  // namespace

TEST(Robustness, RandomBytesNeverCrash) {
    std::mt19937 rng(12345);
    for (int round = 0; round < 300; ++round) {
        std::string text = round % 2 ? "@tack.kernel\ndef k(a):\n    " : "";
        size_t n = rng() % 400;
        for (size_t i = 0; i < n; ++i)
            text += static_cast<char>(rng() % 256);
        auto r = parse_text(text);  // must return, whatever the input
        for (const auto& e : r.errors)
            EXPECT_EQ(e.kind, tack::diag::ErrorKind::SyntaxError);
    }
}

TEST(Robustness, RandomPythonishTokensNeverCrash) {
    static const char* kPieces[] = {"(",
                                    ")",
                                    "[",
                                    "]",
                                    "{",
                                    "}",
                                    ":",
                                    "\n",
                                    "    ",
                                    "\t",
                                    "if ",
                                    "def ",
                                    "@tack.kernel\n",
                                    "x",
                                    " = ",
                                    "1",
                                    ".5",
                                    "'s'",
                                    "'''",
                                    "f'{",
                                    "}'",
                                    ",",
                                    "*",
                                    "**",
                                    "lambda",
                                    "for ",
                                    " in ",
                                    "else",
                                    "\\\n",
                                    "#",
                                    "not ",
                                    "yield",
                                    ";",
                                    ":=",
                                    "->"};
    std::mt19937 rng(777);
    for (int round = 0; round < 500; ++round) {
        std::string text = "@tack.kernel\ndef k():\n    ";
        for (int i = 0; i < 60; ++i)
            text += kPieces[rng() % (sizeof(kPieces) / sizeof(*kPieces))];
        parse_text(text);
    }
}

TEST(Robustness, UnbalancedBrackets) {
    EXPECT_EQ(first_error(kernel_with("(1, 2")), "3:9: '(' was never closed");
    EXPECT_EQ(first_error(kernel_with("1, 2)")), "3:13: unmatched ')'");
    EXPECT_EQ(first_error(kernel_with("[1, 2)")),
              "3:14: closing parenthesis does not match opening parenthesis");
    // Unbalanced brackets in host code are ignored.
    EXPECT_TRUE(parse_text("x = ((((\n").errors.empty());
    EXPECT_TRUE(parse_text("x = ))))\n").errors.empty());
}

TEST(Robustness, DeepNestingIsASyntaxErrorNotACrash) {
    const char* kinds[][2] = {{"(", ")"},   {"[", "]"},       {"-", ""},
                              {"not ", ""}, {"f(", ")"},      {"x[", "]"},
                              {"2**", "1"}, {"lambda: ", ""}, {"{", "}"}};
    for (const auto& k : kinds) {
        std::string open, close;
        for (int i = 0; i < 10000; ++i) {
            open += k[0];
            close += k[1];
        }
        auto r = parse_text(kernel_with(open + "1" + close));
        ASSERT_EQ(r.errors.size(), 1u) << k[0];
        EXPECT_EQ(r.errors[0].message, "expression too deeply nested") << k[0];
        EXPECT_TRUE(r.module.functions.empty());
    }
    // Long left-associative chains and postfix chains are capped too.
    std::string chain = "a";
    for (int i = 0; i < 100000; ++i)
        chain += "+a";
    EXPECT_EQ(parse_text(kernel_with(chain)).errors.at(0).message, "expression too deeply nested");
    std::string attrs = "a";
    for (int i = 0; i < 100000; ++i)
        attrs += ".b";
    EXPECT_EQ(parse_text(kernel_with(attrs)).errors.at(0).message, "expression too deeply nested");
    // Nesting within the caps parses.
    std::string ok(150, '(');
    ok += "1" + std::string(150, ')');
    EXPECT_TRUE(parse_text(kernel_with(ok)).errors.empty());
    std::string sum = "a";
    for (int i = 0; i < 500; ++i)
        sum += "+a";
    EXPECT_TRUE(parse_text(kernel_with(sum)).errors.empty());
}

TEST(Robustness, DeepBlocksAndElifChains) {
    std::string text = "@tack.kernel\ndef k():\n";
    for (int i = 0; i < 300; ++i)
        text += std::string(4 * (i + 1), ' ') + "if x:\n";
    text += std::string(4 * 301, ' ') + "pass\n";
    auto r = parse_text(text);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].message, "expression too deeply nested");
    std::string elifs = "@tack.kernel\ndef k():\n    if a:\n        pass\n";
    for (int i = 0; i < 5000; ++i)
        elifs += "    elif a:\n        pass\n";
    EXPECT_EQ(parse_text(elifs).errors.size(), 1u);
}
