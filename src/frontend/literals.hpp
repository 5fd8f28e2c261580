#pragma once
// Values of literal tokens, decoded from their spelling.

#include <cstdint>
#include <string>
#include <string_view>

namespace tack::frontend {

struct IntValue {
    uint64_t value = 0;
    bool overflow = false;  // the literal is >= 2^64
};

/// An integer spelling as the lexer accepted it: decimal, 0x/0o/0b, with underscores.
IntValue int_literal_value(std::string_view spelling);

/// The correctly rounded double of a float spelling (underscores allowed), independent of the
/// process locale. Out-of-range spellings give inf or the nearest subnormal/zero, as Python.
double float_literal_value(std::string_view spelling);

/// The decoded contents of a string token (prefix and quotes removed, escapes processed unless
/// raw). \N{...} escapes are kept verbatim: no kernel string needs character names.
std::string string_literal_value(std::string_view spelling);

}  // namespace tack::frontend
