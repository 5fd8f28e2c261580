#include "frontend/definition.hpp"

#include <algorithm>
#include <vector>

#include "frontend/lexer.hpp"

namespace tack::frontend {
namespace {

// Line breaks as the lexer reads them: \n, \r\n and a lone \r.
size_t line_of(std::string_view text, size_t offset) {
    size_t line = 0;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')))
            ++line;
    }
    return line;
}

// The column of `offset` in its line (a tab advances to the next multiple of 8); an offset past
// the end (npos: a blank line's first non-blank) counts as the end.
size_t column_of(std::string_view text, size_t offset) {
    offset = std::min(offset, text.size());
    size_t start = offset;
    while (start > 0 && text[start - 1] != '\n' && text[start - 1] != '\r')
        --start;
    size_t col = 0;
    for (size_t i = start; i < offset; ++i)
        col = text[i] == '\t' ? (col / 8 + 1) * 8 : col + 1;
    return col;
}

// The physical line that starts at `pos` (without its line break), and where the next one
// starts (text.size() after the last).
struct Line {
    std::string_view text;
    size_t next;
};
Line line_at(std::string_view text, size_t pos) {
    size_t end = pos;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r')
        ++end;
    size_t next = end;
    if (next < text.size())
        next += (text[next] == '\r' && next + 1 < text.size() && text[next + 1] == '\n') ? 2 : 1;
    return {text.substr(pos, end - pos), next};
}

struct Extent {
    size_t lines = 0;   // 0: no definition
    bool clean = true;  // false: the text ends inside a string or brackets (a bad cut)
};

Extent extent_of(std::string_view text) {
    std::vector<Token> toks = lex(text);
    Extent e;
    int open = 0;
    for (const Token& t : toks) {
        if (t.is(Tok::LPar) || t.is(Tok::LSqb) || t.is(Tok::LBrace)) ++open;
        if (t.is(Tok::RPar) || t.is(Tok::RSqb) || t.is(Tok::RBrace)) --open;
        if (t.is(Tok::Error) && t.flags == static_cast<uint8_t>(LexError::UnterminatedString))
            e.clean = false;
    }
    e.clean = e.clean && open == 0;
    size_t i = 0;
    auto at = [&](Tok k) { return toks[i].is(k); };
    auto skip_logical_line = [&] {
        while (!at(Tok::Newline) && !at(Tok::EndMarker))
            ++i;
        return at(Tok::Newline);
    };
    if (at(Tok::Indent)) ++i;  // an indented definition
    while (at(Tok::At)) {
        if (!skip_logical_line()) return e;
        ++i;
    }
    if (at(Tok::KwAsync)) ++i;
    if (!at(Tok::KwDef) || !skip_logical_line()) return e;
    size_t last = toks[i].begin;  // the NEWLINE that ends the last statement read so far
    ++i;
    if (!at(Tok::Indent)) {  // `def f(x): return x`
        e.lines = line_of(text, last) + 1;
        return e;
    }
    size_t body_col = column_of(text, toks[i].begin);
    for (int depth = 0; i < toks.size() && !at(Tok::EndMarker); ++i) {
        if (at(Tok::Indent)) {
            ++depth;
        } else if (at(Tok::Dedent)) {
            if (--depth == 0) break;
        } else if (at(Tok::Newline)) {
            last = toks[i].begin;
        }
    }
    // Comment lines after the last statement belong to the body when indented as deep as it
    // (inspect does the same; blank lines only between such comments).
    size_t end_line = line_of(text, last);
    size_t l = end_line;
    for (size_t pos = line_at(text, last).next; pos < text.size();) {
        Line line = line_at(text, pos);
        pos = line.next;
        ++l;
        size_t first = line.text.find_first_not_of(" \t\f");
        if (first == std::string_view::npos) continue;
        if (line.text[first] != '#' || column_of(line.text, first) < body_col) break;
        end_line = l;
    }
    e.lines = end_line + 1;
    return e;
}

// The byte offset of the first line after the `def` line that holds code indented no deeper
// than the first line: where the definition most likely ends (text.size() if none). A wrong
// guess (the line sits inside a string or brackets) makes extent_of's result unclean.
// Scans line by line and stops there: the rest of the file is never split.
size_t likely_end(std::string_view text) {
    auto indent_of = [](std::string_view s) { return column_of(s, s.find_first_not_of(" \t\f")); };
    size_t base = indent_of(line_at(text, 0).text);
    bool past_def = false, continued = false;
    for (size_t pos = 0; pos < text.size();) {
        Line line = line_at(text, pos);
        std::string_view s = line.text;
        size_t first = s.find_first_not_of(" \t\f");
        bool code = first != std::string_view::npos && s[first] != '#';
        if (code && past_def && !continued && indent_of(s) <= base) return pos;
        std::string_view rest = code ? s.substr(first) : std::string_view{};
        if (rest.starts_with("def") || rest.starts_with("async")) past_def = true;
        continued = code && s.back() == '\\';
        pos = line.next;
    }
    return text.size();
}

}  // namespace

size_t definition_lines(std::string_view text) {
    // Lexing the rest of the file for each of its kernels would cost O(file size) per kernel:
    // first the text up to where the definition most likely ends, all of it if that guess cut
    // a string or a bracket.
    size_t cut = likely_end(text);
    if (cut < text.size()) {
        Extent e = extent_of(text.substr(0, cut));
        if (e.clean && e.lines) return e.lines;
    }
    return extent_of(text).lines;
}

}  // namespace tack::frontend
