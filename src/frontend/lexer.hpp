#pragma once
// Python tokenizer: INDENT/DEDENT from an indentation stack (a tab advances to the next multiple
// of 8), NEWLINE per logical line (brackets and backslashes join physical lines), comments and
// blank lines dropped. Never throws: text it cannot read becomes a Tok::Error token, so host
// code the parser only skips can never fail the module.

#include <string>
#include <string_view>
#include <vector>

#include "frontend/token.hpp"

namespace tack::frontend {

/// Tokenizes all of `src`. The result always ends with Tok::EndMarker, preceded by a NEWLINE
/// closing the last logical line and the DEDENTs that close open blocks.
std::vector<Token> lex(std::string_view src);

/// The message for an Error token (Python's wording where Python has one).
std::string lex_error_message(const Token& tok, std::string_view src);

}  // namespace tack::frontend
