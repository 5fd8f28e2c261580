#pragma once
// Source text and positions. Every AST and IR node carries a SourceRange so that every user
// error can name file, line and column and draw a caret under the offending text.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tack::diag {

/// One source text. `line_offset` and `col_offset` map positions in `text` back to the user's
/// file when `text` is a dedented excerpt (Python hands us `inspect.getsource` of one function):
/// absolute line = local line + line_offset, absolute column = local column + col_offset on
/// every line (dedent removes the same indentation from every line).
class SourceFile {
  public:
    SourceFile(std::string path, std::string text, int line_offset = 0, int col_offset = 0);

    const std::string& path() const { return path_; }
    const std::string& text() const { return text_; }
    int line_offset() const { return line_offset_; }
    int col_offset() const { return col_offset_; }

    /// 1-based line and column (columns count UTF-8 code points) of a byte offset, in the
    /// coordinates of the user's file (offsets applied).
    int line_of(uint32_t offset) const;
    int column_of(uint32_t offset) const;
    /// The text of a local (0-based) line without its newline.
    std::string_view line_text(int local_line) const;
    int local_line_of(uint32_t offset) const;

  private:
    std::string path_;
    std::string text_;
    int line_offset_;
    int col_offset_;
    std::vector<uint32_t> line_starts_;
};

using SourceFilePtr = std::shared_ptr<const SourceFile>;

/// A half-open byte range [begin, end) in one SourceFile.
struct SourceRange {
    uint32_t begin = 0;
    uint32_t end = 0;
    bool valid() const { return end >= begin && !(begin == 0 && end == 0); }
    static SourceRange cover(SourceRange a, SourceRange b) {
        return {a.begin < b.begin ? a.begin : b.begin, a.end > b.end ? a.end : b.end};
    }
};

}  // namespace tack::diag
