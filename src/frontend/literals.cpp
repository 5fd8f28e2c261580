#include "frontend/literals.hpp"

#include "support/platform.hpp"

#include <charconv>
#include <cmath>

namespace tack::frontend {

namespace {

int digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 99;
}

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

/// Reads up to `max` digits of `base` at s[i]; returns the count read.
size_t read_digits(std::string_view s, size_t i, size_t max, int base, uint32_t& value) {
    size_t k = 0;
    value = 0;
    while (k < max && i + k < s.size() && digit_value(s[i + k]) < base) {
        value = value * base + static_cast<uint32_t>(digit_value(s[i + k]));
        ++k;
    }
    return k;
}

char simple_escape(char c) {
    switch (c) {
        case 'n':
            return '\n';
        case 't':
            return '\t';
        case 'r':
            return '\r';
        case 'a':
            return '\a';
        case 'b':
            return '\b';
        case 'f':
            return '\f';
        case 'v':
            return '\v';
        case '\\':
            return '\\';
        case '\'':
            return '\'';
        case '"':
            return '"';
        default:
            return 0;
    }
}

/// Decodes one escape starting at body[i] == '\\'; returns the index after it.
size_t decode_escape(std::string_view body, size_t i, bool bytes, std::string& out) {
    if (i + 1 >= body.size()) {
        out += '\\';
        return i + 1;
    }
    char c = body[i + 1];
    if (char e = simple_escape(c)) {
        out += e;
        return i + 2;
    }
    if (c == '\n') return i + 2;
    if (c == '\r') return (i + 2 < body.size() && body[i + 2] == '\n') ? i + 3 : i + 2;
    uint32_t v = 0;
    if (c >= '0' && c <= '7') {
        size_t k = read_digits(body, i + 1, 3, 8, v);
        if (bytes)
            out += static_cast<char>(v & 0xFF);
        else
            append_utf8(out, v);
        return i + 1 + k;
    }
    size_t want = c == 'x' ? 2 : (!bytes && c == 'u') ? 4 : (!bytes && c == 'U') ? 8 : 0;
    if (want != 0 && read_digits(body, i + 2, want, 16, v) == want) {
        if (bytes || v > 0x10FFFF)
            out += static_cast<char>(v & 0xFF);
        else
            append_utf8(out, v);
        return i + 2 + want;
    }
    // Unknown escapes (and \N{...}) stay as written, as Python keeps unknown ones.
    out += '\\';
    return i + 1;
}

}  // namespace

IntValue int_literal_value(std::string_view s) {
    int base = 10;
    size_t i = 0;
    if (s.size() > 1 && s[0] == '0') {
        char p = static_cast<char>(s[1] | 0x20);
        base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 10;
        if (base != 10) i = 2;
    }
    IntValue r;
    for (; i < s.size(); ++i) {
        if (s[i] == '_') continue;
        auto d = static_cast<uint64_t>(digit_value(s[i]));
        if (d >= static_cast<uint64_t>(base)) break;
        if (r.value > (UINT64_MAX - d) / static_cast<uint64_t>(base)) r.overflow = true;
        r.value = r.value * static_cast<uint64_t>(base) + d;
    }
    if (r.overflow) r.value = UINT64_MAX;
    return r;
}

double float_literal_value(std::string_view s) {
    char buf[128];
    std::string heap;
    char* p = buf;
    if (s.size() >= sizeof(buf)) {
        heap.resize(s.size() + 1);
        p = heap.data();
    }
    size_t n = 0;
    for (char c : s) {
        if (c != '_' && c != 'j' && c != 'J') p[n++] = c;
    }
    p[n] = '\0';
    double value = 0;
    bool out_of_range = false;
    support::platform::parse_double({p, n}, &value, &out_of_range);
    if (out_of_range) {
        // The value is unset when the result rounds to zero or infinity; Python gives 0.0 or
        // inf. (Correctly rounded, whatever the process locale: platform.hpp.)
        std::string_view sv(p, n);
        size_t e = sv.find_first_of("eE");
        bool negative_exp = e != std::string_view::npos && e + 1 < n && p[e + 1] == '-';
        value = negative_exp ? 0.0 : HUGE_VAL;
    }
    return value;
}

std::string string_literal_value(std::string_view s) {
    size_t q = s.find_first_of("'\"");
    if (q == std::string_view::npos) return {};
    bool raw = false;
    bool bytes = false;
    for (size_t i = 0; i < q; ++i) {
        char c = static_cast<char>(s[i] | 0x20);
        raw |= c == 'r';
        bytes |= c == 'b';
    }
    size_t quote_len = (s.size() >= q + 6 && s[q + 1] == s[q] && s[q + 2] == s[q]) ? 3 : 1;
    if (s.size() < q + 2 * quote_len) return {};
    std::string_view body = s.substr(q + quote_len, s.size() - q - 2 * quote_len);
    std::string out;
    out.reserve(body.size());
    for (size_t i = 0; i < body.size();) {
        if (body[i] != '\\' || raw) {
            out += body[i++];
            continue;
        }
        i = decode_escape(body, i, bytes, out);
    }
    return out;
}

}  // namespace tack::frontend
