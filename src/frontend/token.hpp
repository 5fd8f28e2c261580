#pragma once
// Python tokens. A token is a kind plus a byte range into the source text; literal values are
// decoded from that spelling by the parser only where the kernel language needs them, so lexing
// host code costs no allocation beyond the token vector.

#include <cstdint>
#include <string_view>

namespace tack::frontend {

// X(kind, spelling shown in diagnostics). Keywords and operators are contiguous ranges.
#define TACK_TOKEN_KINDS(X)                                                       \
    X(EndMarker, "end of file")                                                   \
    X(Newline, "newline")                                                         \
    X(Indent, "indent")                                                           \
    X(Dedent, "dedent")                                                           \
    X(Name, "name")                                                               \
    X(Int, "integer literal")                                                     \
    X(Float, "float literal")                                                     \
    X(Imag, "imaginary literal")                                                  \
    X(String, "string literal")                                                   \
    X(Error, "invalid token")                                                     \
    X(KwFalse, "False")                                                           \
    X(KwNone, "None")                                                             \
    X(KwTrue, "True")                                                             \
    X(KwAnd, "and")                                                               \
    X(KwAs, "as")                                                                 \
    X(KwAssert, "assert")                                                         \
    X(KwAsync, "async")                                                           \
    X(KwAwait, "await")                                                           \
    X(KwBreak, "break")                                                           \
    X(KwClass, "class")                                                           \
    X(KwContinue, "continue")                                                     \
    X(KwDef, "def")                                                               \
    X(KwDel, "del")                                                               \
    X(KwElif, "elif")                                                             \
    X(KwElse, "else")                                                             \
    X(KwExcept, "except")                                                         \
    X(KwFinally, "finally")                                                       \
    X(KwFor, "for")                                                               \
    X(KwFrom, "from")                                                             \
    X(KwGlobal, "global")                                                         \
    X(KwIf, "if")                                                                 \
    X(KwImport, "import")                                                         \
    X(KwIn, "in")                                                                 \
    X(KwIs, "is")                                                                 \
    X(KwLambda, "lambda")                                                         \
    X(KwNonlocal, "nonlocal")                                                     \
    X(KwNot, "not")                                                               \
    X(KwOr, "or")                                                                 \
    X(KwPass, "pass")                                                             \
    X(KwRaise, "raise")                                                           \
    X(KwReturn, "return")                                                         \
    X(KwTry, "try")                                                               \
    X(KwWhile, "while")                                                           \
    X(KwWith, "with")                                                             \
    X(KwYield, "yield")                                                           \
    /* operators, longest first so that the lexer's first match is the longest */ \
    X(PowEq, "**=")                                                               \
    X(FloorDivEq, "//=")                                                          \
    X(RShiftEq, ">>=")                                                            \
    X(LShiftEq, "<<=")                                                            \
    X(Ellipsis, "...")                                                            \
    X(Pow, "**")                                                                  \
    X(FloorDiv, "//")                                                             \
    X(RShift, ">>")                                                               \
    X(LShift, "<<")                                                               \
    X(LtE, "<=")                                                                  \
    X(GtE, ">=")                                                                  \
    X(EqEq, "==")                                                                 \
    X(NotEq, "!=")                                                                \
    X(Arrow, "->")                                                                \
    X(ColonEq, ":=")                                                              \
    X(PlusEq, "+=")                                                               \
    X(MinusEq, "-=")                                                              \
    X(StarEq, "*=")                                                               \
    X(SlashEq, "/=")                                                              \
    X(PercentEq, "%=")                                                            \
    X(AmpEq, "&=")                                                                \
    X(PipeEq, "|=")                                                               \
    X(CaretEq, "^=")                                                              \
    X(AtEq, "@=")                                                                 \
    X(LPar, "(")                                                                  \
    X(RPar, ")")                                                                  \
    X(LSqb, "[")                                                                  \
    X(RSqb, "]")                                                                  \
    X(LBrace, "{")                                                                \
    X(RBrace, "}")                                                                \
    X(Comma, ",")                                                                 \
    X(Colon, ":")                                                                 \
    X(Semi, ";")                                                                  \
    X(Dot, ".")                                                                   \
    X(Eq, "=")                                                                    \
    X(Plus, "+")                                                                  \
    X(Minus, "-")                                                                 \
    X(Star, "*")                                                                  \
    X(Slash, "/")                                                                 \
    X(Percent, "%")                                                               \
    X(At, "@")                                                                    \
    X(Amp, "&")                                                                   \
    X(Pipe, "|")                                                                  \
    X(Caret, "^")                                                                 \
    X(Tilde, "~")                                                                 \
    X(Lt, "<")                                                                    \
    X(Gt, ">")

enum class Tok : uint8_t {
#define TACK_X(k, s) k,
    TACK_TOKEN_KINDS(TACK_X)
#undef TACK_X
};

constexpr Tok kFirstKeyword = Tok::KwFalse;
constexpr Tok kLastKeyword = Tok::KwYield;
constexpr Tok kFirstOperator = Tok::PowEq;
constexpr Tok kLastOperator = Tok::Gt;

/// The spelling of a keyword or operator; a description for the other kinds.
const char* spelling(Tok kind);

/// String token flags (Token::flags for Tok::String).
enum StringFlags : uint8_t {
    kStrRaw = 1,
    kStrBytes = 2,
    kStrFormat = 4,
};

/// Why an Error token is an error (Token::flags for Tok::Error); see lex_error_message().
enum class LexError : uint8_t {
    InvalidCharacter,
    UnterminatedString,
    UnterminatedTripleString,
    UnmatchedBracket,
    MismatchedBracket,
    BadDedent,
    StrayBackslash,
    InvalidNumber,
    LeadingZeros,
};

struct Token {
    Tok kind = Tok::EndMarker;
    uint8_t flags = 0;  // StringFlags for strings, LexError for errors
    uint32_t begin = 0;
    uint32_t end = 0;  // one past the last byte

    std::string_view text(std::string_view src) const { return src.substr(begin, end - begin); }
    bool is(Tok k) const { return kind == k; }
};

}  // namespace tack::frontend
