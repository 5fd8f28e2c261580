#include "diag/diagnostic.hpp"

#include <algorithm>

namespace tack::diag {

int Diagnostic::line() const {
    return file ? file->line_of(range.begin) : 0;
}
int Diagnostic::column() const {
    return file ? file->column_of(range.begin) : 0;
}

std::string at_position(const SourceFile& file, SourceRange range) {
    return "at line " + std::to_string(file.line_of(range.begin)) + ", column " +
           std::to_string(file.column_of(range.begin));
}

namespace {

// Caret line under `line_text` for the part of `range` on that line. The dedent offset is
// re-applied as leading spaces so the caret lines up with the user's file.
std::string caret_line(const SourceFile& file, SourceRange range, int local_line) {
    std::string_view text = file.line_text(local_line);
    int first_col = file.column_of(range.begin) - file.col_offset();  // 1-based within text
    uint32_t line_end_offset = range.begin + static_cast<uint32_t>(text.size());
    uint32_t end = std::min(range.end, line_end_offset);
    int width = 1;
    if (end > range.begin) {
        int last_col = file.column_of(end) - file.col_offset();
        width = std::max(1, last_col - first_col);
    }
    std::string out(static_cast<size_t>(first_col - 1), ' ');
    out += '^';
    out.append(static_cast<size_t>(width - 1), '~');
    return out;
}

// The source line as shown under a message: C0 controls (tab aside) and DEL become their
// Unicode control pictures (U+2400 + c, U+2421), one code point each so the caret stays
// aligned, and a NUL byte can never cut the rendered text short (issue 12).
std::string printable_line(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char ch : text) {
        auto c = static_cast<unsigned char>(ch);
        if ((c < 0x20 && c != '\t') || c == 0x7F) {
            unsigned cp = c == 0x7F ? 0x2421 : 0x2400 + c;
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += ch;
        }
    }
    return out;
}

}  // namespace

std::string Diagnostic::render() const {
    if (!file) return std::string(error_kind_name(kind)) + ": " + message + "\n";
    std::string out = file->path() + ":" + std::to_string(line()) + ":" + std::to_string(column()) +
                      ": " + error_kind_name(kind) + ": " + message + "\n";
    int local_line = file->local_line_of(range.begin);
    std::string indent(static_cast<size_t>(file->col_offset()), ' ');
    out += "    " + indent + printable_line(file->line_text(local_line)) + "\n";
    out += "    " + indent + caret_line(*file, range, local_line) + "\n";
    return out;
}

static std::string render_all(const std::vector<Diagnostic>& diags) {
    return diags.empty() ? std::string("compile error") : diags.front().render();
}

CompileError::CompileError(std::vector<Diagnostic> diags)
    : std::runtime_error(render_all(diags)), diags_(std::move(diags)) {}

void raise(ErrorKind kind, std::string message, SourceFilePtr file, SourceRange range) {
    throw CompileError(Diagnostic{kind, std::move(message), std::move(file), range});
}

}  // namespace tack::diag
