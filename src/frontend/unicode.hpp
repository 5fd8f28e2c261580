#pragma once
// Identifiers as Python reads them (PEP 3131; CONTRACT A10): a name is XID_Start (or '_')
// followed by XID_Continue characters, and two spellings are one name when their NFKC forms
// agree ('ﬁ' and 'fi', 'ℌ' and 'H'). The tables are generated from Python's own unicodedata
// (scripts/gen_unicode_tables.py), so no ICU is needed and Tack agrees with the Python that
// generated them.

#include <cstddef>
#include <string>
#include <string_view>

namespace tack::frontend {

/// Byte offset of the first character of `word` that cannot appear in a Python identifier at
/// its place (or of malformed UTF-8); npos when `word` is a valid identifier.
std::size_t invalid_identifier_char(std::string_view word);

/// The NFKC form of a valid identifier (returned unchanged when it is ASCII).
std::string nfkc_identifier(std::string_view word);

/// Decodes the UTF-8 character at `text[i]`; sets `len` to its byte length (1 for a malformed
/// byte, which decodes as U+FFFD).
char32_t decode_utf8(std::string_view text, std::size_t i, std::size_t& len);

}  // namespace tack::frontend
