#include "diag/source.hpp"

#include <algorithm>

namespace tack::diag {

SourceFile::SourceFile(std::string path, std::string text, int line_offset, int col_offset)
    : path_(std::move(path)),
      text_(std::move(text)),
      line_offset_(line_offset),
      col_offset_(col_offset) {
    line_starts_.push_back(0);
    for (uint32_t i = 0; i < text_.size(); ++i) {
        if (text_[i] == '\n') line_starts_.push_back(i + 1);
    }
}

int SourceFile::local_line_of(uint32_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    return static_cast<int>(it - line_starts_.begin()) - 1;
}

int SourceFile::line_of(uint32_t offset) const {
    return local_line_of(offset) + 1 + line_offset_;
}

int SourceFile::column_of(uint32_t offset) const {
    int line = local_line_of(offset);
    uint32_t start = line_starts_[line];
    uint32_t end = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
    int col = 0;
    for (uint32_t i = start; i < end; ++i) {
        // Count code points: skip UTF-8 continuation bytes.
        if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++col;
    }
    return col + 1 + col_offset_;
}

std::string_view SourceFile::line_text(int local_line) const {
    if (local_line < 0 || local_line >= static_cast<int>(line_starts_.size())) return {};
    uint32_t start = line_starts_[local_line];
    uint32_t end = local_line + 1 < static_cast<int>(line_starts_.size())
                       ? line_starts_[local_line + 1]
                       : static_cast<uint32_t>(text_.size());
    while (end > start && (text_[end - 1] == '\n' || text_[end - 1] == '\r'))
        --end;
    return std::string_view(text_).substr(start, end - start);
}

}  // namespace tack::diag
