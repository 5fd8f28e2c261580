#include "frontend/unicode.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tack::frontend {

namespace {

struct CodeRange {
    char32_t first, last;
};
struct CombiningRange {
    char32_t first, last;
    uint8_t ccc;
};
struct Decomposition {
    char32_t cp;
    uint16_t offset;
    uint8_t length;
};
struct Composition {
    char32_t first, second, composite;
};

#include "frontend/unicode_tables.inc"

// Hangul syllables decompose and compose arithmetically (Unicode 3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount,
                   kSCount = kLCount * kNCount;

template <std::size_t N>
bool in_ranges(const CodeRange (&table)[N], char32_t cp) {
    auto it = std::upper_bound(std::begin(table), std::end(table), cp,
                               [](char32_t c, const CodeRange& r) { return c < r.first; });
    return it != std::begin(table) && cp <= (it - 1)->last;
}

uint8_t combining_class(char32_t cp) {
    auto it = std::upper_bound(std::begin(kCombining), std::end(kCombining), cp,
                               [](char32_t c, const CombiningRange& r) { return c < r.first; });
    return it != std::begin(kCombining) && cp <= (it - 1)->last ? (it - 1)->ccc : 0;
}

void decompose(char32_t cp, std::vector<char32_t>& out) {
    if (cp >= kSBase && cp < kSBase + kSCount) {
        char32_t s = cp - kSBase;
        out.push_back(kLBase + s / kNCount);
        out.push_back(kVBase + (s % kNCount) / kTCount);
        if (s % kTCount) out.push_back(kTBase + s % kTCount);
        return;
    }
    auto it = std::lower_bound(std::begin(kDecompose), std::end(kDecompose), cp,
                               [](const Decomposition& d, char32_t c) { return d.cp < c; });
    if (it == std::end(kDecompose) || it->cp != cp) {
        out.push_back(cp);
        return;
    }
    out.insert(out.end(), kDecomposePool + it->offset, kDecomposePool + it->offset + it->length);
}

// 0 when the pair has no primary composite.
char32_t compose(char32_t a, char32_t b) {
    if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
        return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
    if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase &&
        b < kTBase + kTCount)
        return a + (b - kTBase);
    auto it = std::lower_bound(std::begin(kCompose), std::end(kCompose), std::pair{a, b},
                               [](const Composition& c, std::pair<char32_t, char32_t> k) {
                                   return c.first < k.first ||
                                          (c.first == k.first && c.second < k.second);
                               });
    return it != std::end(kCompose) && it->first == a && it->second == b ? it->composite : 0;
}

// Canonical ordering (stable sort of each run of non-starters by class), then canonical
// composition (Unicode 3.11): a character combines with the last starter unless a character
// between them has a class >= its own (blocked).
void reorder_and_compose(std::vector<char32_t>& s) {
    for (std::size_t i = 0; i < s.size();) {
        if (combining_class(s[i]) == 0) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < s.size() && combining_class(s[j]) != 0)
            ++j;
        std::stable_sort(s.begin() + long(i), s.begin() + long(j), [](char32_t a, char32_t b) {
            return combining_class(a) < combining_class(b);
        });
        i = j;
    }
    if (s.empty()) return;
    std::size_t starter = 0, out = 1;
    int last_class = combining_class(s[0]) ? 256 : 0;  // a leading mark composes with nothing
    for (std::size_t i = 1; i < s.size(); ++i) {
        char32_t c = s[i];
        int cls = combining_class(c);
        char32_t composite = compose(s[starter], c);
        if (composite && (last_class < cls || last_class == 0)) {
            s[starter] = composite;
            continue;
        }
        if (cls == 0) starter = out;
        last_class = cls;
        s[out++] = c;
    }
    s.resize(out);
}

void encode_utf8(char32_t cp, std::string& out) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

bool is_ascii_start(char32_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

}  // namespace

char32_t decode_utf8(std::string_view text, std::size_t i, std::size_t& len) {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    unsigned char c = b(i);
    len = 1;
    if (c < 0x80) return c;
    int n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (n == 0 || i + std::size_t(n) > text.size()) return 0xFFFD;
    char32_t cp = c & (0x7F >> n);
    for (int k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) return 0xFFFD;
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are malformed.
    static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0xFFFD;
    len = std::size_t(n);
    return cp;
}

std::size_t invalid_identifier_char(std::string_view word) {
    for (std::size_t i = 0, len = 0; i < word.size(); i += len) {
        char32_t cp = decode_utf8(word, i, len);
        bool ok = cp < 0x80 ? (is_ascii_start(cp) || (i > 0 && cp >= '0' && cp <= '9'))
                            : cp != 0xFFFD &&
                                  (i == 0 ? in_ranges(kXidStart, cp) : in_ranges(kXidContinue, cp));
        if (!ok) return i;
    }
    return std::string_view::npos;
}

std::string nfkc_identifier(std::string_view word) {
    if (std::all_of(word.begin(), word.end(), [](char c) { return (c & 0x80) == 0; }))
        return std::string(word);
    std::vector<char32_t> cps;
    for (std::size_t i = 0, len = 0; i < word.size(); i += len)
        decompose(decode_utf8(word, i, len), cps);
    reorder_and_compose(cps);
    std::string out;
    for (char32_t cp : cps)
        encode_utf8(cp, out);
    return out;
}

}  // namespace tack::frontend
