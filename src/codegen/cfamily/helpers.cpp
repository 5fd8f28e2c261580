#include "codegen/cfamily/helpers.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace tack::codegen::cfamily::detail {

std::string fill(std::string_view pattern,
                 std::initializer_list<std::pair<std::string_view, std::string_view>> subs) {
    std::string out;
    out.reserve(pattern.size() + 64);
    size_t i = 0;
    while (i < pattern.size()) {
        size_t close = pattern[i] == '{' ? pattern.find('}', i) : std::string_view::npos;
        bool replaced = false;
        if (close != std::string_view::npos) {
            std::string_view key = pattern.substr(i + 1, close - i - 1);
            for (const auto& [k, v] : subs) {
                if (k != key) continue;
                out += v;
                i = close + 1;
                replaced = true;
                break;
            }
        }
        if (!replaced) out += pattern[i++];
    }
    return out;
}

std::string math_name(const Dialect& d, std::string_view base, DType t) {
    std::string name(base == "abs" ? "fabs" : base);
    if (t == DType::f32 && d.f32_math_suffix) name += 'f';
    return name;
}

std::string_view unsigned_carrier(const Dialect& d, DType t) {
    return d.type[static_cast<int>(bits(t) <= 32 ? DType::u32 : DType::u64)];
}

namespace {

std::string_view tname(const Dialect& d, DType t) {
    return d.type[static_cast<int>(t)];
}

int64_t sign_extend(uint64_t bits_value, int width) {
    if (width == 64) return static_cast<int64_t>(bits_value);
    uint64_t sign = uint64_t{1} << (width - 1);
    uint64_t v = bits_value & ((sign << 1) - 1);
    return static_cast<int64_t>((v ^ sign) - sign);
}

std::string signed_literal(const Dialect& d, DType t, int64_t s) {
    std::string suffix(t == DType::i64 ? d.i64_suffix : "");
    std::string text;
    if (s == INT64_MIN) {
        text = "(-9223372036854775807" + suffix + " - 1" + suffix + ")";
    } else if (t == DType::i32 && s == INT32_MIN) {
        text = "(-2147483647 - 1)";
    } else {
        text = std::to_string(s < 0 ? -s : s) + suffix;
        if (s < 0) text = "(-" + text + ")";
    }
    if (bits(t) < 32) text = "((" + std::string(tname(d, t)) + ")" + text + ")";
    return text;
}

}  // namespace

std::string int_literal(const Dialect& d, DType t, uint64_t value) {
    if (is_signed(t)) return signed_literal(d, t, sign_extend(value, bits(t)));
    std::string text = std::to_string(value) + (t == DType::u64 ? std::string(d.u64_suffix) : "u");
    if (bits(t) < 32) text = "((" + std::string(tname(d, t)) + ")" + text + ")";
    return text;
}

std::string float_literal(const Dialect& d, DType t, double v) {
    bool f32 = t == DType::f32;
    if (std::isnan(v) || std::isinf(v)) {
        const char* bits32 = std::isnan(v) ? "0x7fc00000u" : v > 0 ? "0x7f800000u" : "0xff800000u";
        std::string bits64 = std::string(std::isnan(v) ? "0x7ff8000000000000"
                                         : v > 0       ? "0x7ff0000000000000"
                                                       : "0xfff0000000000000") +
                             std::string(d.u64_suffix);
        return fill(f32 ? d.as_f32 : d.as_f64, {{"x", f32 ? bits32 : bits64}});
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, f32 ? "%.9g" : "%.17g", v);
    std::string text = buf;
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    if (f32) text += 'f';
    if (std::signbit(v)) text = "(" + text + ")";
    return text;
}

namespace {

constexpr std::string_view kWrap =
    "{H} {T} tack_{op}_{t}({T} a, {T} b) { return ({T})(({U})a {sym} ({U})b); }\n";
constexpr std::string_view kNeg = "{H} {T} tack_neg_{t}({T} a) { return ({T})(0u - ({U})a); }\n";
constexpr std::string_view kAbs =
    "{H} {T} tack_abs_{t}({T} a) { return a < 0 ? ({T})(0u - ({U})a) : a; }\n";
constexpr std::string_view kMin = "{H} {T} tack_min_{t}({T} a, {T} b) { return b < a ? b : a; }\n";
constexpr std::string_view kMax = "{H} {T} tack_max_{t}({T} a, {T} b) { return b > a ? b : a; }\n";

// Floors toward -inf; divisor 0 gives 0; MIN // -1 wraps to MIN by negating in the carrier.
// q - 1 cannot overflow: it only happens when the signs differ, so q <= 0 and |q| < |MIN|.
constexpr std::string_view kFloorDivSigned =
    "{H} {T} tack_floordiv_{t}({T} a, {T} b) {\n"
    "    if (b == 0) return 0;\n"
    "    if (b == -1) return ({T})(0u - ({U})a);\n"
    "    {T} q = a / b, r = a % b;\n"
    "    if (r != 0 && ((r < 0) != (b < 0))) q = q - 1;\n"
    "    return q;\n"
    "}\n";
constexpr std::string_view kModSigned =
    "{H} {T} tack_mod_{t}({T} a, {T} b) {\n"
    "    if (b == 0 || b == -1) return 0;\n"
    "    {T} r = a % b;\n"
    "    if (r != 0 && ((r < 0) != (b < 0))) r = r + b;\n"
    "    return r;\n"
    "}\n";
constexpr std::string_view kFloorDivUnsigned =
    "{H} {T} tack_floordiv_{t}({T} a, {T} b) { return b == 0 ? 0 : a / b; }\n";
constexpr std::string_view kModUnsigned =
    "{H} {T} tack_mod_{t}({T} a, {T} b) { return b == 0 ? 0 : a % b; }\n";
// Square-and-multiply over the exponent's bits: at most 64 steps, exact modulo 2^N.
constexpr std::string_view kPow =
    "{H} {T} tack_pow_{t}({T} a, {U64} e) {\n"
    "    {U} base = ({U})a, r = 1u;\n"
    "    while (e != 0u) {\n"
    "        if ((e & 1u) != 0u) r = r * base;\n"
    "        base = base * base;\n"
    "        e >>= 1;\n"
    "    }\n"
    "    return ({T})r;\n"
    "}\n";
constexpr std::string_view kShl =
    "{H} {T} tack_shl_{t}({T} a, {U32} c) { return ({T})(({U})a << (c & {mask}u)); }\n";
constexpr std::string_view kShr =
    "{H} {T} tack_shr_{t}({T} a, {U32} c) { return ({T})(({C})a >> (c & {mask}u)); }\n";

struct IntOpInfo {
    const char* name;
    const char* sym;
};
constexpr IntOpInfo kIntOps[] = {
    {"add", "+"}, {"sub", "-"}, {"mul", "*"}, {"neg", ""}, {"floordiv", ""}, {"mod", ""},
    {"pow", ""},  {"shl", ""},  {"shr", ""},  {"abs", ""}, {"min", ""},      {"max", ""},
};

std::string_view int_pattern(IntOp op, DType t) {
    bool s = is_signed(t);
    switch (op) {
        case IntOp::Add:
        case IntOp::Sub:
        case IntOp::Mul:
            return kWrap;
        case IntOp::Neg:
            return kNeg;
        case IntOp::FloorDiv:
            return s ? kFloorDivSigned : kFloorDivUnsigned;
        case IntOp::Mod:
            return s ? kModSigned : kModUnsigned;
        case IntOp::Pow:
            return kPow;
        case IntOp::Shl:
            return kShl;
        case IntOp::Shr:
            return kShr;
        case IntOp::Abs:
            return kAbs;
        case IntOp::Min:
            return kMin;
        case IntOp::Max:
            return kMax;
    }
    return kWrap;
}

}  // namespace

Helper int_helper(const Dialect& d, IntOp op, DType t) {
    const IntOpInfo& info = kIntOps[static_cast<int>(op)];
    // Shr shifts in the signed carrier for signed types (arithmetic), else the unsigned one.
    std::string_view shr_carrier =
        is_signed(t) ? tname(d, bits(t) <= 32 ? DType::i32 : DType::i64) : unsigned_carrier(d, t);
    std::string mask = std::to_string(bits(t) - 1);
    std::string name = std::string("tack_") + info.name + "_" + tack::name(t);
    const bool narrow =
        is_signed(t) && ((op == IntOp::Neg && bits(t) < 32) || (op == IntOp::Abs && bits(t) < 64));
    std::string_view decl =
        narrow && !d.narrow_neg_abs_decl.empty() ? d.narrow_neg_abs_decl : d.helper_decl;
    std::string text = fill(int_pattern(op, t), {{"H", decl},
                                                 {"T", tname(d, t)},
                                                 {"U", unsigned_carrier(d, t)},
                                                 {"U32", tname(d, DType::u32)},
                                                 {"U64", tname(d, DType::u64)},
                                                 {"C", shr_carrier},
                                                 {"op", info.name},
                                                 {"sym", info.sym},
                                                 {"mask", mask},
                                                 {"t", tack::name(t)}});
    return {name, text};
}

Helper loop_add64_helper(const Dialect& d, DType t) {
    return {"tack_loop_add_" + std::string(tack::name(t)),
            fill(kWrap, {{"H", d.loop_add64_decl},
                         {"T", tname(d, t)},
                         {"U", unsigned_carrier(d, t)},
                         {"op", "loop_add"},
                         {"sym", "+"},
                         {"t", tack::name(t)}})};
}

namespace {

// CPython's float_divmod (Objects/floatobject.c): fmod, move the remainder to the divisor's
// sign, rebuild the quotient and snap it to the nearest integral value. floor(a / b) is wrong
// (0.5 // 0.1 must be 4.0).
constexpr std::string_view kFloatMod =
    "{H} {F} tack_mod_{f}({F} a, {F} b) {\n"
    "    {F} m = {fmod}(a, b);\n"
    "    if (m != 0) {\n"
    "        if ((b < 0) != (m < 0)) m += b;\n"
    "    } else {\n"
    "        m = {copysign}(({F})0, b);\n"
    "    }\n"
    "    return m;\n"
    "}\n";
constexpr std::string_view kFloatFloorDiv =
    "{H} {F} tack_floordiv_{f}({F} a, {F} b) {\n"
    "    {F} m = {fmod}(a, b);\n"
    "    {F} q = (a - m) / b;\n"
    "    if (m != 0 && ((b < 0) != (m < 0))) q -= 1;\n"
    "    if (q == 0) return {copysign}(({F})0, a / b);\n"
    "    {F} fq = {floor}(q);\n"
    "    if (q - fq > ({F})0.5) fq += 1;\n"
    "    return fq;\n"
    "}\n";

}  // namespace

Helper float_divmod_helper(const Dialect& d, bool floordiv, DType f) {
    std::string name = std::string(floordiv ? "tack_floordiv_" : "tack_mod_") + tack::name(f);
    std::string fmod_name = math_name(d, "fmod", f);
    std::string copysign_name = math_name(d, "copysign", f);
    std::string floor_name = math_name(d, "floor", f);
    return {name, fill(floordiv ? kFloatFloorDiv : kFloatMod, {{"H", d.helper_decl},
                                                               {"F", tname(d, f)},
                                                               {"f", tack::name(f)},
                                                               {"fmod", fmod_name},
                                                               {"copysign", copysign_name},
                                                               {"floor", floor_name}})};
}

Helper float_to_int_helper(const Dialect& d, DType to, DType from) {
    // The bounds are powers of two, exact in both float types: x <= -2^(N-1) saturates to MIN
    // (its truncation is MIN or below), x >= 2^(N-1) (2^N unsigned) to MAX; in between the
    // truncated value is representable, so the C cast is defined.
    int n = bits(to);
    int hi_exp = is_signed(to) ? n - 1 : n;
    std::string fs = from == DType::f32 ? "f" : "";
    std::string hi = "0x1p" + std::to_string(hi_exp) + fs;
    std::string lo = is_signed(to) ? "-0x1p" + std::to_string(n - 1) + fs : "0";
    uint64_t max_bits = is_signed(to) ? (uint64_t{1} << (n - 1)) - 1
                        : n == 64     ? ~uint64_t{0}
                                      : (uint64_t{1} << n) - 1;
    uint64_t min_bits = is_signed(to) ? uint64_t{1} << (n - 1) : 0;
    std::string name = std::string("tack_cvt_") + tack::name(to) + "_" + tack::name(from);
    std::string text = fill(
        "{H} {T} {name}({F} x) {\n"
        "    if (x != x) return 0;\n"
        "    if (x <= {lo}) return {min};\n"
        "    if (x >= {hi}) return {max};\n"
        "    return ({T})x;\n"
        "}\n",
        {{"H", d.helper_decl},
         {"T", tname(d, to)},
         {"F", tname(d, from)},
         {"name", name},
         {"lo", lo},
         {"hi", hi},
         {"min", int_literal(d, to, min_bits)},
         {"max", int_literal(d, to, max_bits)}});
    return {name, text};
}

Helper block_extremum_helper(const Dialect& d, bool is_min) {
    // NaN propagates (a + b is NaN when either is); a zero tie picks -0.0 for min and +0.0 for
    // max whatever the lane order, so the result does not depend on the tree's shape.
    std::string name = is_min ? "tack_block_min_f32" : "tack_block_max_f32";
    std::string sign_a = fill(d.as_u32, {{"x", "a"}}) + " >> 31";
    std::string text = fill(
        "{H} float {name}(float a, float b) {\n"
        "    if (a != a || b != b) return a + b;\n"
        "    if (a == b) return ({sign_a}) != 0u ? {tie_neg} : {tie_pos};\n"
        "    return b {cmp} a ? b : a;\n"
        "}\n",
        {{"H", d.helper_decl},
         {"name", name},
         {"sign_a", sign_a},
         {"tie_neg", is_min ? "a" : "b"},
         {"tie_pos", is_min ? "b" : "a"},
         {"cmp", is_min ? "<" : ">"}});
    return {name, text};
}

Helper table_index_helper(const Dialect& d) {
    std::string text = fill(
        "{H} {i64} tack_table_index({i64} i, {i64} n) {\n"
        "    return ({u64})i < ({u64})n ? i : n - 1;\n"
        "}\n",
        {{"H", d.helper_decl},
         {"i64", d.type[static_cast<int>(DType::i64)]},
         {"u64", d.type[static_cast<int>(DType::u64)]}});
    return {"tack_table_index", text};
}

Helper atomic_cas_helper(const Dialect& d, AtomicKind op, DType t) {
    static constexpr const char* kOpName[] = {"add", "min", "max"};
    bool wide = bits(t) == 64;
    std::string_view u = tname(d, wide ? DType::u64 : DType::u32);
    std::string ts(tname(d, t)), us(u);
    std::string to_bits =
        is_float(t) ? fill(wide ? d.as_u64 : d.as_u32, {{"x", "next"}}) : "(" + us + ")next";
    std::string from_bits =
        is_float(t) ? fill(wide ? d.as_f64 : d.as_f32, {{"x", "old"}}) : "(" + ts + ")old";
    std::string early = op == AtomicKind::Min   ? "        if (!(v < cur)) return cur;\n"
                        : op == AtomicKind::Max ? "        if (!(v > cur)) return cur;\n"
                                                : "";
    // Integer adds wrap in the unsigned carrier (signed overflow is undefined in C).
    std::string next = op != AtomicKind::Add ? "v"
                       : is_float(t)         ? "cur + v"
                                             : "(" + ts + ")((" + us + ")cur + (" + us + ")v)";
    std::string name =
        std::string("tack_atomic_") + kOpName[static_cast<int>(op)] + "_" + tack::name(t);
    std::string cas = fill(wide ? d.cas64 : d.cas32, {{"p", "p"}, {"old", "old"}, {"new", "bits"}});
    std::string text = fill(
        "{H} {T} {name}({G}{T}* p, {T} v) {\n"
        "    {U} old = {load};\n"
        "    for (;;) {\n"
        "        {T} cur = {from};\n"
        "{early}"
        "        {T} next = {next};\n"
        "        {U} bits = {to};\n"
        "        {U} prev = {cas};\n"
        "        if (prev == old) return cur;\n"
        "        old = prev;\n"
        "    }\n"
        "}\n",
        {{"H", d.helper_decl},
         {"T", ts},
         {"U", us},
         {"G", d.global_qual},
         {"name", name},
         {"load", fill(wide ? d.load64 : d.load32, {{"p", "p"}})},
         {"from", from_bits},
         {"early", early},
         {"next", next},
         {"to", to_bits},
         {"cas", cas}});
    return {name, text};
}

}  // namespace tack::codegen::cfamily::detail
