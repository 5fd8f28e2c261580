"""Capturing a kernel's source for the core. Decoration only reads and parses it; a function
whose source cannot be read raises RuntimeError at decoration, with the OSError as its cause
(docs/spec/contract.md#a1).

The core parses one dedented definition and maps positions back to the user's file with a line
and a column offset. The only edit made to the text is on the decorator lines: the first
becomes `@tack.kernel` / `@tack.func` (the spelling the user chose, say `@tk.kernel`, means
nothing to a parser that sees no imports) and the rest become blank, so every other line and
column is the user's own.
"""

import os
import sys
import types

from . import _tack


class Captured:
    __slots__ = ("text", "path", "line_offset", "col_offset")

    def __init__(self, text, path, line_offset, col_offset):
        self.text, self.path = text, path
        self.line_offset, self.col_offset = line_offset, col_offset


def _is_def_line(line):
    stripped = line.lstrip()
    return stripped.startswith("def ") or stripped.startswith("async def ")


# Per file: ((mtime_ns, size), UTF-8 text with universal newlines, byte offset of each line).
# Every definition of a module reads the file once between them; a few files are kept.
_files = {}
_MAX_FILES = 16


def _file_text(path):
    """(data, line starts) of a plain UTF-8 file, or None where inspect has to decide (no such
    file, an encoding declaration, not UTF-8)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (st.st_mtime_ns, st.st_size)
    hit = _files.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    found = None
    if not any(b"coding" in line for line in data.split(b"\n", 2)[:2]):  # PEP 263
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            # Universal newlines and a newline after the last line, as linecache reads it.
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            if data and not data.endswith(b"\n"):
                data += b"\n"
            starts = [0]
            at = data.find(b"\n")
            while at >= 0:
                starts.append(at + 1)
                at = data.find(b"\n", at + 1)
            found = (data, starts)  # starts[-1] == len(data): one entry past the last line
    if len(_files) >= _MAX_FILES:
        _files.pop(next(iter(_files)))
    _files[path] = (key, found)
    return found


def _read_definition(fn):
    """(lines, first line) as inspect.getsourcelines gives them, for a function defined in a
    plain UTF-8 file, without importing inspect (11 ms, most of a first @tack.kernel); None
    where inspect has to decide: a wrapper (functools.wraps), no such file, an encoding
    declaration, text that linecache holds for a file that is not on disk (IPython cells), a
    line number out of range."""
    if hasattr(fn, "__wrapped__"):
        return None  # inspect follows __wrapped__ to the function the wrapper stands for
    path = fn.__code__.co_filename
    linecache = sys.modules.get("linecache")
    if linecache is not None:
        entry = linecache.cache.get(path)
        if entry is not None and (len(entry) != 4 or entry[1] is None):
            return None
    found = _file_text(path)
    if found is None:
        return None
    data, starts = found
    first = fn.__code__.co_firstlineno
    if not 1 <= first < len(starts):
        return None
    count = _tack._definition_lines_at(data, starts[first - 1])
    if not count:
        return None
    end = starts[min(first - 1 + count, len(starts) - 1)]
    text = data[starts[first - 1]:end].decode("utf-8")
    return [line + "\n" for line in text.split("\n")[:-1]], first  # each ends with "\n"


def capture(fn, kind):
    """`kind` is "kernel" or "func". TypeError for non-functions, RuntimeError (chaining the
    OSError) when the source cannot be read."""
    if not isinstance(fn, types.FunctionType) or fn.__name__ == "<lambda>":
        raise TypeError(
            f"@tack.{kind} needs a function defined with def, got "
            f"{'a lambda' if isinstance(fn, types.LambdaType) else type(fn).__name__}"
        )
    found = _read_definition(fn)
    if found is not None:
        lines, first_line = found
        path = os.path.abspath(fn.__code__.co_filename)
    else:
        import inspect

        try:
            lines, first_line = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            noun = "kernel" if kind == "kernel" else "device function"
            raise RuntimeError(
                f"Cannot read the source of {noun} '{fn.__name__}' (@tack.{kind}): {e}. "
                "Kernels and device functions must be defined in a file (not exec() or an "
                "interactive prompt)."
            ) from e
        path = os.path.abspath(inspect.getsourcefile(fn) or fn.__code__.co_filename)
    first = lines[0]
    indent = first[: len(first) - len(first.lstrip())]
    body = [line[len(indent) :] if line.startswith(indent) else line.lstrip(" \t")
            for line in lines]
    def_at = next((i for i, line in enumerate(body) if _is_def_line(line)), 0)
    decorator = f"@tack.{kind}\n"
    line_offset = first_line - 1
    if def_at == 0:
        body.insert(0, decorator)
        line_offset -= 1
    else:
        body[0] = decorator
        for i in range(1, def_at):
            body[i] = "\n"
    text = "".join(line if line.endswith("\n") else line + "\n" for line in body)
    return Captured(text, path, line_offset, len(indent))
