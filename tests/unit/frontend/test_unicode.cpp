// Identifiers are NFKC-normalized and XID-checked as CPython does (PEP 3131, CONTRACT A10;
// issue 12: 'ﬁ' and 'fi' were two names in Tack, one in Python). Expected values are Python's
// unicodedata.normalize("NFKC", ...); scripts/gen_unicode_tables.py has the exhaustive check.
#include <gtest/gtest.h>

#include <string>

#include "frontend/unicode.hpp"
#include "frontend_test_util.hpp"

namespace tack::frontend {
namespace {

using test::first_error;

TEST(Unicode, NfkcOfIdentifiersMatchesPython) {
    const std::pair<const char*, const char*> cases[] = {
        {"fi", "fi"},
        {"\uFB01", "fi"},                      // LATIN SMALL LIGATURE FI
        {"\u210C", "H"},                       // BLACK-LETTER CAPITAL H
        {"\uFF46\uFF55\uFF4C\uFF4C", "full"},  // fullwidth
        {"e\u0301", "\u00E9"},                 // composed
        {"\u00E9", "\u00E9"},
        {"a\u0323\u0302", "\u1EAD"},       // a, dot below, circumflex
        {"a\u0302\u0323", "\u1EAD"},       // reordered (ccc 220 before 230), composed
        {"\u1100\u1161\u11A8", "\uAC01"},  // Hangul jamo compose
        {"\uAC01", "\uAC01"},
        {"\u2168", "IX"},            // ROMAN NUMERAL NINE
        {"\u00B5", "\u03BC"},        // MICRO SIGN -> GREEK MU
        {"\u017F", "s"},             // LONG S
        {"\u1E9B\u0323", "\u1E69"},  // UAX 15's example
        {"\u3131", "\u1100"},        // HANGUL LETTER KIYEOK (compatibility)
        {"\U0001D400", "A"},         // MATHEMATICAL BOLD CAPITAL A
        {"\u0958", "\u0915\u093C"},  // composition exclusion stays decomposed
    };
    for (auto [in, want] : cases)
        EXPECT_EQ(nfkc_identifier(in), want) << in;
}

TEST(Unicode, IdentifierCharactersAreXid) {
    EXPECT_EQ(invalid_identifier_char("caf\u00E9"), std::string::npos);
    EXPECT_EQ(invalid_identifier_char("\u03C0"), std::string::npos);
    EXPECT_EQ(invalid_identifier_char("a\u20AC"), 1u);  // EURO SIGN
    EXPECT_EQ(invalid_identifier_char("\u0301a"), 0u);  // a mark cannot start a name
    EXPECT_EQ(invalid_identifier_char("a\u0301"), std::string::npos);
    EXPECT_EQ(invalid_identifier_char("a\u200B"), 1u);        // ZERO WIDTH SPACE
    EXPECT_EQ(invalid_identifier_char("x\u2082"), 1u);        // SUBSCRIPT TWO is not XID
    EXPECT_EQ(invalid_identifier_char("a\xFF"), 1u);          // malformed UTF-8
    EXPECT_EQ(invalid_identifier_char("a\xC0\x80"), 1u);      // overlong
    EXPECT_EQ(invalid_identifier_char("a\xED\xA0\x80"), 1u);  // surrogate
    EXPECT_EQ(invalid_identifier_char("\xE2\x82"), 0u);       // truncated
}

TEST(Unicode, ParserSeesOneNameForEquivalentSpellings) {
    auto r =
        test::parse_text("import tack\n@tack.kernel\ndef \uFB01ll(\uFB01, x):\n    x[0] = fi\n");
    ASSERT_TRUE(r.errors.empty());
    ASSERT_EQ(r.module.functions.size(), 1u);
    EXPECT_EQ(r.module.functions[0]->name, "fill");
    EXPECT_EQ(r.module.functions[0]->params[0].name, "fi");
}

TEST(Unicode, InvalidCharactersAreLocated) {
    EXPECT_EQ(first_error("import tack\n@tack.kernel\ndef k():\n    a\u20AC = 1\n"),
              "4:6: invalid character '\u20AC' (U+20AC)");
    EXPECT_EQ(first_error("import tack\n@tack.kernel\ndef k():\n    a\u200B = 1\n"),
              "4:6: invalid non-printable character U+200B");
    EXPECT_EQ(first_error("import tack\n@tack.kernel\ndef k():\n    a\xFF = 1\n"),
              "4:6: invalid UTF-8 in source");
}

}  // namespace
}  // namespace tack::frontend
