#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "frontend/literals.hpp"
#include "frontend_test_util.hpp"

using namespace tack::frontend;
using tack::frontend::test::lex_text;

namespace {

Token single(std::string_view src) {
    auto toks = lex(src);
    EXPECT_GE(toks.size(), 3u) << src;  // token, NEWLINE, END
    return toks[0];
}

uint64_t int_of(std::string_view src) {
    Token t = single(src);
    EXPECT_EQ(t.kind, Tok::Int) << src;
    return int_literal_value(t.text(src)).value;
}

double float_of(std::string_view src) {
    Token t = single(src);
    EXPECT_EQ(t.kind, Tok::Float) << src;
    EXPECT_EQ(t.end, src.size()) << src;
    return float_literal_value(t.text(src));
}

std::string str_of(std::string_view src) {
    Token t = single(src);
    EXPECT_EQ(t.kind, Tok::String) << src;
    EXPECT_EQ(t.end, src.size()) << src;
    return string_literal_value(t.text(src));
}

uint64_t bits(double d) {
    uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
}

}  // namespace

TEST(Lexer, IntegerLiterals) {
    EXPECT_EQ(int_of("0"), 0u);
    EXPECT_EQ(int_of("00"), 0u);
    EXPECT_EQ(int_of("42"), 42u);
    EXPECT_EQ(int_of("1_000"), 1000u);
    EXPECT_EQ(int_of("0xff"), 255u);
    EXPECT_EQ(int_of("0XFF"), 255u);
    EXPECT_EQ(int_of("0x_ff"), 255u);
    EXPECT_EQ(int_of("0o17"), 15u);
    EXPECT_EQ(int_of("0O17"), 15u);
    EXPECT_EQ(int_of("0b101"), 5u);
    EXPECT_EQ(int_of("0b_1_0_1"), 5u);
    EXPECT_EQ(int_of("0xdead_beef"), 0xdeadbeefu);
    EXPECT_EQ(int_of("747796405"), 747796405u);
}

TEST(Lexer, IntegerOverflowBoundary) {
    IntValue max = int_literal_value("18446744073709551615");  // 2^64 - 1
    EXPECT_FALSE(max.overflow);
    EXPECT_EQ(max.value, UINT64_MAX);
    EXPECT_TRUE(int_literal_value("18446744073709551616").overflow);  // 2^64
    EXPECT_FALSE(int_literal_value("0xffff_ffff_ffff_ffff").overflow);
    EXPECT_TRUE(int_literal_value("0x1_0000_0000_0000_0000").overflow);
    EXPECT_TRUE(int_literal_value("99999999999999999999999999").overflow);
}

TEST(Lexer, FloatLiterals) {
    EXPECT_EQ(float_of("1.5"), 1.5);
    EXPECT_EQ(float_of("1e-3"), 0.001);
    EXPECT_EQ(float_of("1E3"), 1000.0);
    EXPECT_EQ(float_of(".5"), 0.5);
    EXPECT_EQ(float_of("1."), 1.0);
    EXPECT_EQ(float_of("1.e2"), 100.0);
    EXPECT_EQ(float_of("1_0.0"), 10.0);
    EXPECT_EQ(float_of("1_000.000_1"), 1000.0001);
    EXPECT_EQ(float_of("2.5e+2"), 250.0);
    EXPECT_EQ(float_of("0e0"), 0.0);
    EXPECT_EQ(float_of("00.5"), 0.5);
    // 0.1 is the double nearest 1/10: 0x3FB999999999999A.
    EXPECT_EQ(bits(float_of("0.1")), 0x3FB999999999999Aull);
    // Halfway-ish cases must be correctly rounded: 2^-1074 is the smallest subnormal.
    EXPECT_EQ(bits(float_of("4.9406564584124654e-324")), 1u);
    EXPECT_TRUE(std::isinf(float_of("1e400")));
    EXPECT_EQ(float_of("1e-400"), 0.0);
    EXPECT_EQ(float_of("1.7976931348623157e308"), 1.7976931348623157e308);
}

TEST(Lexer, ImaginaryLiterals) {
    EXPECT_EQ(single("1j").kind, Tok::Imag);
    EXPECT_EQ(single("1.5J").kind, Tok::Imag);
    EXPECT_EQ(single(".5j").kind, Tok::Imag);
    EXPECT_EQ(single("1e3j").kind, Tok::Imag);
    EXPECT_EQ(single("09j").kind, Tok::Imag);
}

TEST(Lexer, InvalidNumbers) {
    EXPECT_EQ(single("0x").kind, Tok::Error);
    EXPECT_EQ(single("1_").kind, Tok::Error);
    EXPECT_EQ(single("1__0").kind, Tok::Error);
    EXPECT_EQ(single("0b102").kind, Tok::Error);
    EXPECT_EQ(single("0o8").kind, Tok::Error);
    EXPECT_EQ(single("012").kind, Tok::Error);
    EXPECT_EQ(lex_text("1if x else 2"), "1 if x else 2 NL END");
}

TEST(Lexer, Strings) {
    EXPECT_EQ(str_of("'abc'"), "abc");
    EXPECT_EQ(str_of("\"abc\""), "abc");
    EXPECT_EQ(str_of("'a\\nb\\t\\\\\\''"), "a\nb\t\\'");
    EXPECT_EQ(str_of("'\\x41\\101\\u00e9'"), "AA\xC3\xA9");
    EXPECT_EQ(str_of("'\\U0001F600'"), "\xF0\x9F\x98\x80");
    EXPECT_EQ(str_of("'\\q'"), "\\q");  // unknown escapes stay
    EXPECT_EQ(str_of("r'a\\nb'"), "a\\nb");
    EXPECT_EQ(str_of("R'\\''"), "\\'");
    EXPECT_EQ(str_of("u'x'"), "x");
    EXPECT_EQ(str_of("'''a\n'b'\n\"\"c'''"), "a\n'b'\n\"\"c");
    EXPECT_EQ(str_of("\"\"\"x\"\"\""), "x");
    EXPECT_EQ(str_of("'a\\\nb'"), "ab");  // escaped newline joins lines
    EXPECT_EQ(str_of("''"), "");
    EXPECT_EQ(str_of("''''''"), "");
}

TEST(Lexer, StringPrefixesSetFlags) {
    struct Case {
        const char* src;
        int flags;
    };
    const Case cases[] = {
        {"b'x'", kStrBytes},
        {"B'x'", kStrBytes},
        {"rb'x'", kStrRaw | kStrBytes},
        {"bR'x'", kStrRaw | kStrBytes},
        {"f'x'", kStrFormat},
        {"F'{x}'", kStrFormat},
        {"fr'x'", kStrFormat | kStrRaw},
        {"Rf'x'", kStrFormat | kStrRaw},
        {"r'x'", kStrRaw},
        {"U'x'", 0},
    };
    for (const auto& c : cases) {
        Token t = single(c.src);
        EXPECT_EQ(t.kind, Tok::String) << c.src;
        EXPECT_EQ(t.flags, c.flags) << c.src;
        EXPECT_EQ(t.end, std::strlen(c.src)) << c.src;
    }
    // Not prefixes: an identifier followed by a string.
    EXPECT_EQ(lex_text("ub'x'"), "ub 'x' NL END");
    EXPECT_EQ(lex_text("bf'x'"), "bf 'x' NL END");
}

TEST(Lexer, FStringsWithNestedQuotesAndBraces) {
    EXPECT_EQ(lex_text("f'{a[\"b\"]}' + 1"), "f'{a[\"b\"]}' + 1 NL END");
    // PEP 701: the same quote inside a replacement field.
    EXPECT_EQ(lex_text("f\"{x[\"k\"]}\" x"), "f\"{x[\"k\"]}\" x NL END");
    EXPECT_EQ(lex_text("f'{{literal}}' y"), "f'{{literal}}' y NL END");
    EXPECT_EQ(lex_text("f'{x:{w}.{p}f}' z"), "f'{x:{w}.{p}f}' z NL END");
    EXPECT_EQ(lex_text("f'{\"}\"}' z"), "f'{\"}\"}' z NL END");
    // A quote in a format spec is a fill character, not a string.
    EXPECT_EQ(lex_text("f\"{x:'>10}\" z"), "f\"{x:'>10}\" z NL END");
    EXPECT_EQ(lex_text("f'{x:=10}' z"), "f'{x:=10}' z NL END");
    EXPECT_EQ(lex_text("f'{(lambda y: y)(1)!r}' z"), "f'{(lambda y: y)(1)!r}' z NL END");
    EXPECT_EQ(lex_text("f'{d[\"a\"]:{w}}' + f\"\"\"{\n  a}\"\"\" z"),
              "f'{d[\"a\"]:{w}}' + f\"\"\"{\n  a}\"\"\" z NL END");
}

TEST(Lexer, UnterminatedStringsAreErrorTokens) {
    EXPECT_EQ(lex_text("x = 'abc\ny = 1"), "x = ERR NL y = 1 NL END");
    auto toks = lex("'''never closed\ndef k(): pass\n");
    EXPECT_EQ(toks[0].kind, Tok::Error);
    EXPECT_EQ(lex_error_message(toks[0], "'''never closed\ndef k(): pass\n"),
              "unterminated triple-quoted string literal");
}

TEST(Lexer, OperatorsLongestMatch) {
    EXPECT_EQ(lex_text("a **= b //= c >>= d <<= e @= f"), "a **= b //= c >>= d <<= e @= f NL END");
    EXPECT_EQ(lex_text("(x := 1) -> ... != == <= >= ** // << >>"),
              "( x := 1 ) -> ... != == <= >= ** // << >> NL END");
    EXPECT_EQ(lex_text("a+=1;b-=2"), "a += 1 ; b -= 2 NL END");
    std::string src = "a **= b";
    EXPECT_EQ(lex(src)[1].kind, Tok::PowEq);
    EXPECT_EQ(lex("x.y")[1].kind, Tok::Dot);
    EXPECT_EQ(lex("...")[0].kind, Tok::Ellipsis);
}

TEST(Lexer, KeywordsAndUnicodeNames) {
    auto toks = lex("if not x is None and y in z or True: pass");
    EXPECT_EQ(toks[0].kind, Tok::KwIf);
    EXPECT_EQ(toks[1].kind, Tok::KwNot);
    EXPECT_EQ(toks[3].kind, Tok::KwIs);
    EXPECT_EQ(toks[4].kind, Tok::KwNone);
    EXPECT_EQ(toks[5].kind, Tok::KwAnd);
    EXPECT_EQ(toks[7].kind, Tok::KwIn);
    EXPECT_EQ(lex("match")[0].kind, Tok::Name);  // soft keyword
    EXPECT_EQ(lex_text("\xC3\xA9t\xC3\xA9 = \xCE\xB1"), "\xC3\xA9t\xC3\xA9 = \xCE\xB1 NL END");
    EXPECT_EQ(lex("\xCE\xB1")[0].kind, Tok::Name);
}

TEST(Lexer, IndentDedent) {
    EXPECT_EQ(lex_text("if a:\n    b\n    c\nd\n"), "if a : NL IN b NL c NL DE d NL END");
    EXPECT_EQ(lex_text("if a:\n  if b:\n    c\nd"),
              "if a : NL IN if b : NL IN c NL DE DE d NL END");
    // Closing blocks at end of file.
    EXPECT_EQ(lex_text("if a:\n  b"), "if a : NL IN b NL DE END");
}

TEST(Lexer, TabsAdvanceToMultiplesOfEight) {
    // A tab is column 8; eight spaces are the same level.
    EXPECT_EQ(lex_text("if a:\n\tb\n        c\n"), "if a : NL IN b NL c NL DE END");
    // Two spaces then a tab is still column 8.
    EXPECT_EQ(lex_text("if a:\n\tb\n  \tc\n"), "if a : NL IN b NL c NL DE END");
}

TEST(Lexer, BlankLinesAndCommentsDoNotAffectIndentation) {
    EXPECT_EQ(lex_text("if a:\n\n    b  # c\n# at column 0\n      \n    c\n"),
              "if a : NL IN b NL c NL DE END");
    EXPECT_EQ(lex_text("# only a comment\n"), "END");
    EXPECT_EQ(lex_text(""), "END");
    EXPECT_EQ(lex_text("\n\n   \n"), "END");
}

TEST(Lexer, ImplicitAndExplicitLineJoining) {
    EXPECT_EQ(lex_text("x = (1,\n  2,\n# c\n      3)\ny"), "x = ( 1 , 2 , 3 ) NL y NL END");
    EXPECT_EQ(lex_text("x = [\n]\n"), "x = [ ] NL END");
    EXPECT_EQ(lex_text("x = 1 + \\\n    2\ny"), "x = 1 + 2 NL y NL END");
    EXPECT_EQ(lex_text("if a:\n    x = {\n1: 2}\n    y\n"),
              "if a : NL IN x = { 1 : 2 } NL y NL DE END");
}

TEST(Lexer, WindowsAndOldMacNewlines) {
    EXPECT_EQ(lex_text("if a:\r\n    b\r\nc\r\n"), "if a : NL IN b NL DE c NL END");
    EXPECT_EQ(lex_text("a\rb\r"), "a NL b NL END");
}

TEST(Lexer, ErrorsNeverThrow) {
    EXPECT_EQ(lex_text("a $ b ? c ! d"), "a ERR b ERR c ERR d NL END");
    EXPECT_EQ(lex_text("a)"), "a ERR NL END");
    EXPECT_EQ(lex_text("(a]"), "( a ERR NL END");
    EXPECT_EQ(lex_text("a \\ b"), "a ERR b NL END");
    EXPECT_EQ(lex_text("if a:\n    b\n  c\n"), "if a : NL IN b NL DE ERR c NL DE END");
}

TEST(Lexer, TokenRangesReferenceTheSource) {
    std::string src = "  x = 0x1f  # c\n";
    auto toks = lex(src);
    ASSERT_EQ(toks[0].kind, Tok::Indent);
    EXPECT_EQ(toks[1].text(src), "x");
    EXPECT_EQ(toks[1].begin, 2u);
    EXPECT_EQ(toks[3].text(src), "0x1f");
    EXPECT_EQ(toks[3].begin, 6u);
    EXPECT_EQ(toks[3].end, 10u);
}
