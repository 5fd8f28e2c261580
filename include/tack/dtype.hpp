#pragma once
// The ten Tack scalar types. One enum serves the public API, the IR and every code
// generator.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace tack {

enum class DType : uint8_t { i8, u8, i16, u16, i32, u32, i64, u64, f32, f64 };
inline constexpr int kNumDTypes = 10;

inline constexpr DType i8 = DType::i8;
inline constexpr DType u8 = DType::u8;
inline constexpr DType i16 = DType::i16;
inline constexpr DType u16 = DType::u16;
inline constexpr DType i32 = DType::i32;
inline constexpr DType u32 = DType::u32;
inline constexpr DType i64 = DType::i64;
inline constexpr DType u64 = DType::u64;
inline constexpr DType f32 = DType::f32;
inline constexpr DType f64 = DType::f64;

struct DTypeInfo {
    const char* name;  // "f32"
    int bits;
    bool is_float;
    bool is_signed;  // floats are signed
};

inline constexpr DTypeInfo kDTypeInfo[kNumDTypes] = {
    {"i8", 8, false, true},    {"u8", 8, false, false},   {"i16", 16, false, true},
    {"u16", 16, false, false}, {"i32", 32, false, true},  {"u32", 32, false, false},
    {"i64", 64, false, true},  {"u64", 64, false, false}, {"f32", 32, true, true},
    {"f64", 64, true, true},
};

constexpr const DTypeInfo& info(DType t) {
    return kDTypeInfo[static_cast<int>(t)];
}
constexpr const char* name(DType t) {
    return info(t).name;
}
constexpr int bits(DType t) {
    return info(t).bits;
}
constexpr int size_bytes(DType t) {
    return info(t).bits / 8;
}
constexpr bool is_float(DType t) {
    return info(t).is_float;
}
constexpr bool is_integer(DType t) {
    return !info(t).is_float;
}
constexpr bool is_signed(DType t) {
    return info(t).is_signed;
}

/// "f32" -> DType::f32; also accepts NumPy spellings ("float32", "int8", ...).
std::optional<DType> dtype_from_name(std::string_view name);

/// Binary promotion (docs/language.md). nullopt for a signed type with u64 (the caller raises
/// "use an explicit integer cast").
std::optional<DType> promote(DType a, DType b);

/// A set of dtypes (a backend's supported_dtypes, supported_atomic_dtypes). A bit per DType.
class DTypeSet {
  public:
    constexpr DTypeSet() = default;
    constexpr DTypeSet(std::initializer_list<DType> types) {
        for (DType t : types)
            bits_ |= bit(t);
    }
    static constexpr DTypeSet all() { return from_bits((1u << kNumDTypes) - 1); }
    static constexpr DTypeSet from_bits(uint16_t bits) {
        DTypeSet s;
        s.bits_ = bits;
        return s;
    }
    constexpr bool contains(DType t) const { return (bits_ & bit(t)) != 0; }
    constexpr DTypeSet operator&(DTypeSet o) const { return from_bits(bits_ & o.bits_); }
    constexpr DTypeSet operator|(DTypeSet o) const { return from_bits(bits_ | o.bits_); }
    constexpr DTypeSet without(DType t) const { return from_bits(bits_ & ~bit(t)); }
    constexpr bool operator==(const DTypeSet&) const = default;
    constexpr uint16_t bits() const { return bits_; }
    constexpr bool empty() const { return bits_ == 0; }

  private:
    static constexpr uint16_t bit(DType t) { return uint16_t(1u << static_cast<int>(t)); }
    uint16_t bits_ = 0;
};

/// "i8, u8, ..., f64" in DType order (for error messages).
std::string to_string(DTypeSet set);

}  // namespace tack
