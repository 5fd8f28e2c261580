#pragma once
// A builtin's signature, written once per row of the table (builtins.cpp) in Python's syntax
//
//     clamp(x: Value, lo: Value, hi: Value) -> Value
//     range(start: Int, stop: Int = ..., step: Int = 1) -> Range
//     max(a: Value, b: Value, *rest: Value) -> Value
//
// and parsed when the table is compiled. A parameter with a default is optional, and the
// optional ones follow the required ones; a `*name` parameter comes last and takes any number
// of arguments. The argument counts validation and lowering check are derived from it, the
// docs tables print the text, and the Python stubs are the text with the types spelled for
// Python (scripts/gen_stubs.py). A malformed text or an unknown type is not a constant
// expression, so a bad row fails the build; at run time parse_signature throws
// std::invalid_argument.

#include <array>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string_view>

namespace tack::builtins {

// The types a signature names, and what each is in a kernel (docs/language.md, docs/vectors.md).
// Where a parameter is a Value, vector and matrix arguments apply the builtin per component
// with scalars broadcast (CONTRACT A29).
// clang-format off
#define TACK_BUILTIN_TYPES(X)                                                    \
    X(Any, "any value, or a string label")                                       \
    X(Value, "a scalar, vector or matrix: per component, scalars broadcast")     \
    X(Scalar, "an integer or float scalar")                                      \
    X(Int, "an integer scalar")                                                  \
    X(Float, "a float scalar")                                                   \
    X(Bool, "a truth value")                                                     \
    X(Mask, "a comparison's result: a truth value per component")                \
    X(Vector, "a vector of up to 4 components")                                  \
    X(Matrix, "a matrix of up to 4 x 4")                                         \
    X(Index, "an integer, a tuple of integers or an integer vector: one per dimension") \
    X(Extent, "a size, or a (start, end) pair")                                  \
    X(Field, "a field parameter of the kernel")                                  \
    X(Array, "a field, or a local or shared array")                              \
    X(DType, "a dtype such as tack.f32")                                         \
    X(List, "a list literal: the components, or the rows of components")       \
    X(Range, "the indices of a for loop")                                        \
    X(None, "no value: a statement")
// clang-format on

enum class Type {
#define TACK_X(name, meaning) name,
    TACK_BUILTIN_TYPES(TACK_X)
#undef TACK_X
};

namespace detail {
struct TypeRow {
    Type type;
    std::string_view name;
    std::string_view meaning;
};
inline constexpr TypeRow kTypes[] = {
#define TACK_X(name, meaning) {Type::name, #name, meaning},
    TACK_BUILTIN_TYPES(TACK_X)
#undef TACK_X
};
}  // namespace detail

constexpr std::span<const detail::TypeRow> types() {
    return detail::kTypes;
}
constexpr std::string_view to_string(Type t) {
    return detail::kTypes[static_cast<int>(t)].name;
}

struct Param {
    std::string_view name;
    Type type = Type::Any;
    bool optional = false;           // `name: T = default`
    bool variadic = false;           // `*name: T`: the last parameter, any number of arguments
    std::string_view default_value;  // the default's text when optional: "1", "..."
};

inline constexpr int kMaxParams = 4;

struct Signature {
    std::string_view text;  // as written in the row: what the docs and messages show
    std::string_view name;  // "clamp", "Matrix.identity"
    std::array<Param, kMaxParams> params{};
    int param_count = 0;
    Type result = Type::None;

    constexpr std::span<const Param> parameters() const {
        return {params.data(), static_cast<size_t>(param_count)};
    }
    /// The arguments a call must pass: the parameters without a default or a `*`.
    constexpr int min_args() const {
        int n = 0;
        for (const Param& p : parameters())
            n += !p.optional && !p.variadic;
        return n;
    }
    /// The most arguments a call may pass; -1 when the last parameter is variadic.
    constexpr int max_args() const {
        if (param_count > 0 && params[param_count - 1].variadic) return -1;
        return param_count;
    }
    /// Whether a call may pass `n` arguments.
    constexpr bool accepts(std::size_t n) const {
        int hi = max_args();
        return n >= static_cast<std::size_t>(min_args()) &&
               (hi < 0 || n <= static_cast<std::size_t>(hi));
    }
};

namespace detail {

constexpr std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    return s;
}

constexpr bool is_identifier(std::string_view s, bool dotted) {
    if (s.empty() || (s.front() >= '0' && s.front() <= '9') || s.front() == '.' || s.back() == '.')
        return false;
    for (char c : s) {
        bool word =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (!word && !(dotted && c == '.')) return false;
    }
    return true;
}

constexpr Type type_named(std::string_view name) {
    for (const TypeRow& row : kTypes) {
        if (row.name == name) return row.type;
    }
    throw std::invalid_argument("builtin signature: unknown type");
}

constexpr Param parse_param(std::string_view item) {
    Param p;
    if (item.starts_with('*')) {
        p.variadic = true;
        item.remove_prefix(1);
    }
    size_t colon = item.find(':');
    if (colon == std::string_view::npos)
        throw std::invalid_argument("builtin signature: a parameter needs `name: Type`");
    p.name = trim(item.substr(0, colon));
    if (!is_identifier(p.name, false))
        throw std::invalid_argument("builtin signature: a parameter's name is not an identifier");
    std::string_view rest = item.substr(colon + 1);
    size_t eq = rest.find('=');
    p.type = type_named(trim(rest.substr(0, eq)));
    if (eq != std::string_view::npos) {
        p.default_value = trim(rest.substr(eq + 1));
        if (p.default_value.empty())
            throw std::invalid_argument("builtin signature: `=` without a default");
        p.optional = true;
    }
    if (p.optional && p.variadic)
        throw std::invalid_argument("builtin signature: a `*` parameter has no default");
    return p;
}

}  // namespace detail

/// `name(p: T, q: T = default, *rest: T) -> R`. A default is one token (`...`, `1`): the
/// parameters are split at commas.
constexpr Signature parse_signature(std::string_view text) {
    Signature s;
    s.text = text;
    size_t open = text.find('(');
    size_t close = text.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open)
        throw std::invalid_argument("builtin signature: no parameter list");
    s.name = text.substr(0, open);
    if (!detail::is_identifier(s.name, true))
        throw std::invalid_argument("builtin signature: the name is not an identifier");
    std::string_view arrow = detail::trim(text.substr(close + 1));
    if (!arrow.starts_with("->")) throw std::invalid_argument("builtin signature: no `-> Result`");
    s.result = detail::type_named(detail::trim(arrow.substr(2)));
    std::string_view list = detail::trim(text.substr(open + 1, close - open - 1));
    bool seen_optional = false;
    while (!list.empty()) {
        size_t comma = list.find(',');
        std::string_view item = detail::trim(list.substr(0, comma));
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        if (comma != std::string_view::npos && detail::trim(list).empty())
            throw std::invalid_argument("builtin signature: a trailing comma");
        if (s.param_count == kMaxParams)
            throw std::invalid_argument("builtin signature: more than kMaxParams parameters");
        if (s.param_count > 0 && s.params[s.param_count - 1].variadic)
            throw std::invalid_argument("builtin signature: a parameter after the `*` one");
        Param p = detail::parse_param(item);
        if (seen_optional && !p.optional && !p.variadic)
            throw std::invalid_argument(
                "builtin signature: a required parameter after an optional");
        seen_optional = seen_optional || p.optional;
        s.params[s.param_count++] = p;
    }
    return s;
}

}  // namespace tack::builtins
