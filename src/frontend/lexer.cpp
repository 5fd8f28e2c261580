#include "frontend/lexer.hpp"

#include "frontend/unicode.hpp"

#include <cstdio>
#include <cstring>

namespace tack::frontend {

namespace {

constexpr const char* kSpellings[] = {
#define TACK_X(k, s) s,
    TACK_TOKEN_KINDS(TACK_X)
#undef TACK_X
};
constexpr std::string_view kSpellingViews[] = {
#define TACK_X(k, s) std::string_view(s),
    TACK_TOKEN_KINDS(TACK_X)
#undef TACK_X
};

// f-strings nest (PEP 701); beyond this depth a quote simply ends the string.
constexpr int kMaxFStringNesting = 32;

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_ident_start(char c) {
    auto u = static_cast<unsigned char>(c);
    return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
}
bool is_ident_char(char c) {
    return is_ident_start(c) || is_digit(c);
}
bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_oct(char c) {
    return c >= '0' && c <= '7';
}
bool is_bin(char c) {
    return c == '0' || c == '1';
}
char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

Tok keyword_kind(std::string_view word) {
    if (word.size() < 2 || word.size() > 8 || word[0] < 'F' || word[0] > 'y') return Tok::Name;
    for (int k = static_cast<int>(kFirstKeyword); k <= static_cast<int>(kLastKeyword); ++k) {
        if (kSpellingViews[k] == word) return static_cast<Tok>(k);
    }
    return Tok::Name;
}

/// String prefix flags for an identifier directly followed by a quote, or -1 if `word` is not
/// a prefix (r, b, u, f, rb, br, fr, rf in any case).
int string_prefix_flags(std::string_view word) {
    if (word.empty() || word.size() > 2) return -1;
    int flags = 0;
    bool u = false;
    for (char c : word) {
        int bit = 0;
        switch (lower(c)) {
            case 'r':
                bit = kStrRaw;
                break;
            case 'b':
                bit = kStrBytes;
                break;
            case 'f':
                bit = kStrFormat;
                break;
            case 'u':
                u = true;
                break;
            default:
                return -1;
        }
        if (flags & bit) return -1;
        flags |= bit;
    }
    if (u && word.size() != 1) return -1;
    if ((flags & kStrBytes) && (flags & kStrFormat)) return -1;
    return flags;
}

class Lexer {
  public:
    explicit Lexer(std::string_view src) : src_(src), n_(static_cast<uint32_t>(src.size())) {}

    std::vector<Token> run();

  private:
    char at(uint32_t i) const { return i < n_ ? src_[i] : '\0'; }
    void emit(Tok kind, uint32_t begin, uint32_t end, uint8_t flags = 0) {
        out_.push_back(Token{kind, flags, begin, end});
    }
    void error(LexError e, uint32_t begin, uint32_t end) {
        emit(Tok::Error, begin, end, static_cast<uint8_t>(e));
    }
    uint32_t newline_length(uint32_t i) const {
        if (src_[i] == '\r' && at(i + 1) == '\n') return 2;
        return (src_[i] == '\n' || src_[i] == '\r') ? 1 : 0;
    }
    bool line_start();
    void dedent_to(uint32_t col, uint32_t pos);
    void one_token();
    void number();
    void name_or_string();
    uint32_t scan_string(uint32_t quote, int flags, int nesting, bool& ok);
    uint32_t scan_fstring_field(uint32_t i, int nesting);
    uint32_t scan_format_spec(uint32_t i, int nesting);
    void op();

    std::string_view src_;
    uint32_t n_;
    uint32_t i_ = 0;
    std::vector<Token> out_;
    std::vector<uint32_t> indents_{0};
    std::vector<char> brackets_;
    bool at_line_start_ = true;
};

std::vector<Token> Lexer::run() {
    out_.reserve(n_ / 4 + 16);
    if (src_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;
    while (true) {
        if (at_line_start_ && brackets_.empty() && !line_start()) continue;
        if (i_ >= n_) break;
        one_token();
    }
    if (!out_.empty() && !out_.back().is(Tok::Newline) && !out_.back().is(Tok::Dedent)) {
        emit(Tok::Newline, n_, n_);
    }
    dedent_to(0, n_);
    emit(Tok::EndMarker, n_, n_);
    return std::move(out_);
}

/// Measures the indentation of a physical line. Blank and comment-only lines are consumed
/// whole (returns false); otherwise emits INDENT/DEDENTs and returns true.
bool Lexer::line_start() {
    uint32_t col = 0;
    uint32_t i = i_;
    for (; i < n_; ++i) {
        char c = src_[i];
        if (c == ' ') {
            ++col;
        } else if (c == '\t') {
            col = (col / 8 + 1) * 8;
        } else if (c == '\f') {
            col = 0;
        } else {
            break;
        }
    }
    if (i >= n_) {
        i_ = i;
        at_line_start_ = false;
        return true;
    }
    if (src_[i] == '#' || src_[i] == '\n' || src_[i] == '\r') {
        while (i < n_ && src_[i] != '\n' && src_[i] != '\r')
            ++i;
        if (i < n_) i += newline_length(i);
        i_ = i;
        return false;
    }
    at_line_start_ = false;
    if (col > indents_.back()) {
        indents_.push_back(col);
        emit(Tok::Indent, i, i);  // zero width at the indented text: carets point at it
    } else if (col < indents_.back()) {
        dedent_to(col, i);
        if (col != indents_.back()) {
            // Python: IndentationError. Keep the stack consistent by opening a level here.
            error(LexError::BadDedent, i, i);
            indents_.push_back(col);
        }
    }
    i_ = i;
    return true;
}

void Lexer::dedent_to(uint32_t col, uint32_t pos) {
    while (indents_.back() > col) {
        indents_.pop_back();
        emit(Tok::Dedent, pos, pos);
    }
}

void Lexer::one_token() {
    char c = src_[i_];
    switch (c) {
        case ' ':
        case '\t':
        case '\f':
            ++i_;
            return;
        case '#':
            while (i_ < n_ && src_[i_] != '\n' && src_[i_] != '\r')
                ++i_;
            return;
        case '\n':
        case '\r': {
            uint32_t len = newline_length(i_);
            if (brackets_.empty()) {
                if (!out_.empty() && !out_.back().is(Tok::Newline))
                    emit(Tok::Newline, i_, i_ + len);
                at_line_start_ = true;
            }
            i_ += len;
            return;
        }
        case '\\':
            if (i_ + 1 < n_ && newline_length(i_ + 1) > 0) {
                i_ += 1 + newline_length(i_ + 1);
            } else {
                error(LexError::StrayBackslash, i_, i_ + 1);
                ++i_;
            }
            return;
        case '"':
        case '\'': {
            bool ok = true;
            uint32_t begin = i_;
            uint32_t end = scan_string(i_, 0, 0, ok);
            if (ok) {
                emit(Tok::String, begin, end, 0);
            } else {
                error(LexError::UnterminatedString, begin, end);
            }
            i_ = end;
            return;
        }
        default:
            break;
    }
    if (is_digit(c) || (c == '.' && is_digit(at(i_ + 1)))) return number();
    if (is_ident_start(c)) return name_or_string();
    op();
}

/// Python's numeric literal grammar. An underscore must sit between two digits.
void Lexer::number() {
    uint32_t begin = i_;
    auto digits = [&](bool (*pred)(char)) {
        // Returns false on a misplaced underscore.
        bool any = false;
        while (i_ < n_) {
            if (pred(src_[i_])) {
                any = true;
                ++i_;
            } else if (src_[i_] == '_' && any && pred(at(i_ + 1))) {
                ++i_;
            } else {
                break;
            }
        }
        return any && src_[i_ - 1] != '_' && !(i_ < n_ && src_[i_] == '_');
    };
    char c0 = src_[i_];
    char p = lower(at(i_ + 1));
    if (c0 == '0' && (p == 'x' || p == 'o' || p == 'b')) {
        i_ += 2;
        if (at(i_) == '_') ++i_;
        bool ok = digits(p == 'x' ? is_hex : p == 'o' ? is_oct : is_bin);
        while (i_ < n_ && (is_ident_char(src_[i_]))) {
            ok = false;
            ++i_;
        }
        if (!ok) return error(LexError::InvalidNumber, begin, i_);
        return emit(Tok::Int, begin, i_);
    }
    bool ok = true;
    bool is_float = false;
    if (c0 != '.') ok = digits(is_digit);
    if (at(i_) == '.' && ok) {
        ++i_;
        is_float = true;
        if (is_digit(at(i_))) ok = digits(is_digit);
    }
    char e = lower(at(i_));
    if (ok && e == 'e') {
        uint32_t save = i_;
        ++i_;
        if (at(i_) == '+' || at(i_) == '-') ++i_;
        if (is_digit(at(i_))) {
            ok = digits(is_digit);
            is_float = true;
        } else {
            i_ = save;  // `1else`: the number ends before the keyword
        }
    }
    if (!ok) {
        while (i_ < n_ && (is_ident_char(src_[i_]) || src_[i_] == '.'))
            ++i_;
        return error(LexError::InvalidNumber, begin, i_);
    }
    if (lower(at(i_)) == 'j') {
        ++i_;
        return emit(Tok::Imag, begin, i_);
    }
    if (is_float) return emit(Tok::Float, begin, i_);
    // "0", "00", "0_0" are fine; "01" is not (Python 3 has no octal without 0o).
    std::string_view s = src_.substr(begin, i_ - begin);
    if (s.size() > 1 && s[0] == '0' && s.find_first_not_of("0_") != std::string_view::npos) {
        return error(LexError::LeadingZeros, begin, i_);
    }
    emit(Tok::Int, begin, i_);
}

void Lexer::name_or_string() {
    uint32_t begin = i_;
    bool ascii = true;
    while (i_ < n_ && is_ident_char(src_[i_])) {
        ascii &= static_cast<unsigned char>(src_[i_]) < 0x80;
        ++i_;
    }
    std::string_view word = src_.substr(begin, i_ - begin);
    if (!ascii) {
        // PEP 3131: XID_Start then XID_Continue; anything else (or malformed UTF-8) is an
        // invalid character at its own position, as in CPython.
        size_t bad = invalid_identifier_char(word);
        if (bad != std::string_view::npos) {
            if (bad > 0) emit(keyword_kind(word.substr(0, bad)), begin, begin + uint32_t(bad));
            size_t len = 0;
            decode_utf8(word, bad, len);
            i_ = begin + uint32_t(bad + len);
            return error(LexError::InvalidCharacter, begin + uint32_t(bad), i_);
        }
    }
    if (i_ < n_ && (src_[i_] == '"' || src_[i_] == '\'')) {
        int flags = string_prefix_flags(word);
        if (flags >= 0) {
            bool ok = true;
            uint32_t end = scan_string(i_, flags, 0, ok);
            if (ok) {
                emit(Tok::String, begin, end, static_cast<uint8_t>(flags));
            } else {
                error(LexError::UnterminatedString, begin, end);
            }
            i_ = end;
            return;
        }
    }
    emit(keyword_kind(word), begin, i_);
}

/// Returns the end of the string whose opening quote is at `quote`. A backslash always protects
/// the next character (even in raw strings, as in Python). Sets ok=false when unterminated.
uint32_t Lexer::scan_string(uint32_t quote, int flags, int nesting, bool& ok) {
    char q = src_[quote];
    bool triple = at(quote + 1) == q && at(quote + 2) == q;
    uint32_t i = quote + (triple ? 3 : 1);
    bool format = (flags & kStrFormat) && nesting < kMaxFStringNesting;
    while (i < n_) {
        char c = src_[i];
        if (c == '\\') {
            i += 2;
            continue;
        }
        if (c == q) {
            if (!triple) return i + 1;
            if (at(i + 1) == q && at(i + 2) == q) return i + 3;
        }
        if (!triple && (c == '\n' || c == '\r')) break;
        if (format && c == '{') {
            if (at(i + 1) == '{') {
                i += 2;
                continue;
            }
            i = scan_fstring_field(i + 1, nesting + 1);
            continue;
        }
        ++i;
    }
    ok = false;
    if (triple) return n_;
    return i < n_ ? i : n_;
}

/// Skips a replacement field `{expr!r:spec}` of an f-string, starting after its `{`; nested
/// strings (any quote, PEP 701) and brackets are skipped whole. A `:` outside brackets starts
/// the format spec. Returns the index after the closing `}`.
uint32_t Lexer::scan_fstring_field(uint32_t i, int nesting) {
    int depth = 0;
    while (i < n_) {
        char c = src_[i];
        if (c == '"' || c == '\'') {
            uint32_t p = i;
            while (p > 0 && is_ident_char(src_[p - 1]))
                --p;
            int flags = string_prefix_flags(src_.substr(p, i - p));
            bool ok = true;
            i = scan_string(i, flags < 0 ? 0 : flags, nesting, ok);
            if (!ok) return i;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']') --depth;
        if (c == '}' && depth-- == 0) return i + 1;
        if (c == ':' && depth == 0) return scan_format_spec(i + 1, nesting);
        ++i;
    }
    return i;
}

/// The format spec of a replacement field is literal text (quotes included: `{x:'>10}`)
/// except for nested fields. Returns the index after the field's closing `}`.
uint32_t Lexer::scan_format_spec(uint32_t i, int nesting) {
    while (i < n_) {
        char c = src_[i];
        if (c == '}') return i + 1;
        if (c == '\n' || c == '\r') return i;
        if (c == '{' && nesting < kMaxFStringNesting) {
            i = scan_fstring_field(i + 1, nesting + 1);
            continue;
        }
        ++i;
    }
    return i;
}

void Lexer::op() {
    uint32_t avail = n_ - i_;
    const char* p = src_.data() + i_;
    for (int k = static_cast<int>(kFirstOperator); k <= static_cast<int>(kLastOperator); ++k) {
        std::string_view s = kSpellingViews[k];
        size_t len = s.size();
        if (s[0] != p[0] || len > avail || std::memcmp(s.data(), p, len) != 0) continue;
        auto kind = static_cast<Tok>(k);
        uint32_t begin = i_;
        i_ += static_cast<uint32_t>(len);
        if (kind == Tok::LPar || kind == Tok::LSqb || kind == Tok::LBrace) {
            brackets_.push_back(s[0]);
        } else if (kind == Tok::RPar || kind == Tok::RSqb || kind == Tok::RBrace) {
            if (brackets_.empty()) return error(LexError::UnmatchedBracket, begin, i_);
            char open = brackets_.back();
            brackets_.pop_back();
            char want = open == '(' ? ')' : open == '[' ? ']' : '}';
            if (want != s[0]) return error(LexError::MismatchedBracket, begin, i_);
        }
        return emit(kind, begin, i_);
    }
    error(LexError::InvalidCharacter, i_, i_ + 1);
    ++i_;
}

// Python's str.isprintable() for the characters an error can name: controls and the
// invisible format characters are shown by code point only.
bool printable(char32_t c) {
    if (c < 0x20 || (c >= 0x7F && c < 0xA0) || c == 0xAD) return false;
    if ((c >= 0x200B && c <= 0x200F) || (c >= 0x2028 && c <= 0x202E)) return false;
    if ((c >= 0x2060 && c <= 0x206F) || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB)) return false;
    return true;
}

constexpr const char* kLexErrorMessages[] = {
    "invalid character",
    "unterminated string literal",
    "unterminated triple-quoted string literal",
    "unmatched",
    "closing parenthesis does not match opening parenthesis",
    "unindent does not match any outer indentation level",
    "unexpected character after line continuation character",
    "invalid numeric literal",
    ("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal "
     "integers"),
};

}  // namespace

const char* spelling(Tok kind) {
    return kSpellings[static_cast<int>(kind)];
}

std::vector<Token> lex(std::string_view src) {
    return Lexer(src).run();
}

std::string lex_error_message(const Token& tok, std::string_view src) {
    auto e = static_cast<LexError>(tok.flags);
    std::string msg = kLexErrorMessages[tok.flags];
    std::string_view text = tok.text(src);
    if (e == LexError::InvalidCharacter && !text.empty()) {
        // CPython's wording; a control byte is never copied into the message (a NUL would
        // end it there, losing the location and caret; issue 12).
        size_t len = 0;
        char32_t c = decode_utf8(text, 0, len);
        char hex[16];
        std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(c));
        if (c == 0) return "source code cannot contain null bytes";
        if (len != text.size() || (c == 0xFFFD && text != "\xEF\xBF\xBD"))
            return "invalid UTF-8 in source";
        if (!printable(c)) return std::string("invalid non-printable character ") + hex;
        return msg + " '" + std::string(text) + "' (" + hex + ")";
    }
    if (e == LexError::UnmatchedBracket) {
        msg += " '";
        msg += text;
        msg += "'";
    }
    if (e == LexError::UnterminatedString && text.size() >= 3) {
        size_t q = text.find_first_of("'\"");
        if (q != std::string_view::npos && text.size() >= q + 3 && text[q + 1] == text[q] &&
            text[q + 2] == text[q]) {
            msg = kLexErrorMessages[static_cast<int>(LexError::UnterminatedTripleString)];
        }
    }
    return msg;
}

}  // namespace tack::frontend
