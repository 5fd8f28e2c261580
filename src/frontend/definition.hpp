#pragma once
// Where a function definition ends in a source file: the Python package captures a kernel's
// source by reading its file from the definition's first line (code.co_firstlineno) and asks
// this for the block's extent, which `inspect.getsourcelines` would otherwise find with
// Python's tokenize module (importing `inspect` costs ~11 ms, most of a first @tack.kernel).

#include <cstddef>
#include <string_view>

namespace tack::frontend {

/// The number of lines of the definition `text` starts with: its decorators, the `def` line and
/// the body, through its last statement and the comment lines after it that are indented at
/// least as deep as the body (inspect.getblock's extent). The definition may be indented (a
/// method, a nested function); whatever follows it is never examined beyond its first token.
/// 0 when `text` does not start with a (decorated) `def` or `async def`.
size_t definition_lines(std::string_view text);

}  // namespace tack::frontend
