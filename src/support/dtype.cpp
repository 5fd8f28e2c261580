#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "tack/dtype.hpp"

namespace tack {

std::optional<DType> dtype_from_name(std::string_view name) {
    static constexpr std::pair<std::string_view, DType> kNames[] = {
        {"i8", i8},      {"u8", u8},     {"i16", i16},    {"u16", u16},     {"i32", i32},
        {"u32", u32},    {"i64", i64},   {"u64", u64},    {"f32", f32},     {"f64", f64},
        {"int8", i8},    {"uint8", u8},  {"int16", i16},  {"uint16", u16},  {"int32", i32},
        {"uint32", u32}, {"int64", i64}, {"uint64", u64}, {"float32", f32}, {"float64", f64},
    };
    for (const auto& [n, t] : kNames) {
        if (n == name) return t;
    }
    return std::nullopt;
}

std::optional<DType> promote(DType a, DType b) {
    if (a == b) return a;
    if (is_float(a) || is_float(b)) return (a == f64 || b == f64) ? f64 : f32;
    if (is_signed(a) == is_signed(b)) return bits(a) >= bits(b) ? a : b;
    DType s = is_signed(a) ? a : b;
    DType u = is_signed(a) ? b : a;
    int need = std::max(bits(s), bits(u) + 1);
    for (DType t : {i8, i16, i32, i64}) {
        if (bits(t) >= need) return t;
    }
    return std::nullopt;  // signed with u64
}

std::string to_string(DTypeSet set) {
    std::string out;
    for (int i = 0; i < kNumDTypes; ++i) {
        auto t = static_cast<DType>(i);
        if (set.contains(t)) out += (out.empty() ? "" : ", ") + std::string(name(t));
    }
    return out;
}

}  // namespace tack
