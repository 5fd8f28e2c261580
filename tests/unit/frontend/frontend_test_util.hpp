#pragma once
// Helpers shared by the front-end tests.

#include <memory>
#include <string>

#include "frontend/lexer.hpp"
#include "frontend/parser.hpp"

namespace tack::frontend::test {

inline ParseResult parse_text(std::string text) {
    return parse_module(std::make_shared<diag::SourceFile>("t.py", std::move(text)));
}

/// Tokens as compact text: names and literals by spelling, layout tokens as NL, IN, DE, END,
/// errors as ERR.
inline std::string lex_text(std::string_view src) {
    std::string out;
    for (const Token& t : lex(src)) {
        if (!out.empty()) out += ' ';
        switch (t.kind) {
            case Tok::Newline:
                out += "NL";
                break;
            case Tok::Indent:
                out += "IN";
                break;
            case Tok::Dedent:
                out += "DE";
                break;
            case Tok::EndMarker:
                out += "END";
                break;
            case Tok::Error:
                out += "ERR";
                break;
            default:
                out += t.text(src);
        }
    }
    return out;
}

/// The dump (without ranges) of a kernel whose body is `body` (lines indented by 4).
inline std::string kernel_dump(const std::string& body) {
    auto r = parse_text("@tack.kernel\ndef k():\n" + body);
    if (!r.errors.empty()) return "ERROR: " + r.errors[0].message;
    if (r.module.functions.size() != 1) return "NO FUNCTION";
    std::string d = dump(*r.module.functions[0], false);
    // Drop the FunctionDef header, the decorator and the "body" label: 5 lines.
    size_t pos = 0;
    for (int i = 0; i < 5; ++i)
        pos = d.find('\n', pos) + 1;
    std::string rest = d.substr(pos);
    // Re-indent to column 0 (body statements sit at depth 2).
    std::string out;
    size_t start = 0;
    while (start < rest.size()) {
        size_t end = rest.find('\n', start);
        out += rest.substr(start + 4, end - start - 4 + 1);
        start = end + 1;
    }
    return out;
}

/// The dump (without ranges) of one expression, parsed as `return <expr>` in a kernel.
inline std::string expr_dump(const std::string& expr) {
    auto r = parse_text("@tack.kernel\ndef k():\n    return " + expr + "\n");
    if (!r.errors.empty()) return "ERROR: " + r.errors[0].message;
    const auto* ret = r.module.functions.at(0)->body.at(0)->as<Return>();
    return dump(*ret->value, nullptr);
}

/// The first syntax error as "line:col: message", or "" when none.
inline std::string first_error(const std::string& text) {
    auto r = parse_text(text);
    if (r.errors.empty()) return "";
    const auto& e = r.errors[0];
    return std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": " + e.message;
}

}  // namespace tack::frontend::test
