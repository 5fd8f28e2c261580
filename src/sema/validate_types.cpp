// The type rules validation can apply without argument types (validate.hpp): a literal's and
// an explicit cast's type are the source's, so an operator over two of them is checked here with
// lowering's rule (tack/dtype.hpp promote) and message, and a local array's size that reads a
// parameter can never be the constant lowering needs. Anything else waits for lowering.
#include <optional>

#include "sema/validate.hpp"

namespace tack::sema {

using namespace frontend;

namespace {

constexpr const char* kOpSpelling[] = {"+",  "-",  "*", "/", "//", "%", "**",
                                       "<<", ">>", "&", "|", "^",  "@"};
static_assert(std::size(kOpSpelling) == static_cast<size_t>(BinaryOp::MatMul) + 1);

// Whether lowering joins the two operand types with promote(): not a shift (the count may have
// any integer type), not `/` or `**` of two integers (B15 converts both to f32; B16 keeps the
// base's type), not `@` (matrices).
bool promotes(BinaryOp op, DType a, DType b) {
    bool ints = is_integer(a) && is_integer(b);
    if (op == BinaryOp::LShift || op == BinaryOp::RShift || op == BinaryOp::MatMul) return false;
    return !(ints && (op == BinaryOp::Div || op == BinaryOp::Pow));
}

// Lowering's static_int over the source alone: a value when every leaf is an integer literal, Never
// when no binding of the names could make it one, Unknown when a name may be a constant.
enum class Fold { Value, Never, Unknown };

Fold fold_size(const Expr& e, const FunctionNames& names, std::optional<__int128>& out) {
    if (const auto* i = e.as<IntLit>()) {
        if (i->overflow) return Fold::Never;
        out = static_cast<__int128>(i->value);
        return Fold::Value;
    }
    if (const auto* n = e.as<Name>()) return names.binds(n->id) ? Fold::Never : Fold::Unknown;
    if (e.as<Attribute>()) return Fold::Unknown;  // a module or template constant, perhaps
    if (const auto* u = e.as<Unary>()) {
        if (u->op != UnaryOp::Neg && u->op != UnaryOp::Pos) return Fold::Never;
        Fold f = fold_size(*u->operand, names, out);
        if (f == Fold::Value && u->op == UnaryOp::Neg) out = -*out;
        return f;
    }
    const auto* b = e.as<Binary>();
    if (!b) return Fold::Never;  // calls, loads, floats, lists never fold
    std::optional<__int128> l, r;
    Fold fl = fold_size(*b->lhs, names, l), fr = fold_size(*b->rhs, names, r);
    bool folds = b->op == BinaryOp::Add || b->op == BinaryOp::Sub || b->op == BinaryOp::Mul ||
                 b->op == BinaryOp::FloorDiv;
    if (!folds || fl == Fold::Never || fr == Fold::Never) return Fold::Never;
    if (fl == Fold::Unknown || fr == Fold::Unknown) return Fold::Unknown;
    switch (b->op) {
        case BinaryOp::Add:
            out = *l + *r;
            break;
        case BinaryOp::Sub:
            out = *l - *r;
            break;
        case BinaryOp::Mul:
            out = *l * *r;
            break;
        default:
            if (*r <= 0 || *l < 0) return Fold::Never;
            out = *l / *r;
    }
    return Fold::Value;
}

}  // namespace

bool integer_only(BinaryOp op) {
    return op == BinaryOp::LShift || op == BinaryOp::RShift || op == BinaryOp::BitAnd ||
           op == BinaryOp::BitOr || op == BinaryOp::BitXor;
}

const char* operator_spelling(BinaryOp op) {
    return kOpSpelling[static_cast<int>(op)];
}

std::string no_common_type_message(DType a, DType b) {
    return std::string("operands of types ") + name(a) + " and " + name(b) +
           " have no common type; use an explicit integer cast";
}

std::string integer_operands_message(BinaryOp op, DType a, DType b) {
    return std::string("operator ") + operator_spelling(op) + " requires integer operands, got " +
           name(a) + " and " + name(b);
}

std::string unpack_message(size_t values, size_t targets) {
    return "cannot unpack " + std::to_string(values) + " value(s) into " + std::to_string(targets) +
           " target(s)";
}

std::string alloc_size_message(std::string_view builtin) {
    return std::string(builtin) + "() size must be a positive integer literal or constant";
}

std::optional<StaticType> static_type(const Expr& e, const FunctionNames& names,
                                      const Environment& env) {
    if (const auto* i = e.as<IntLit>()) {
        if (i->overflow) return std::nullopt;
        return StaticType{DType::i32, true};
    }
    if (e.as<FloatLit>()) return StaticType{DType::f32, true};  // the default float type
    if (const auto* u = e.as<Unary>()) {
        if (u->op != UnaryOp::Neg && u->op != UnaryOp::Pos) return std::nullopt;
        return static_type(*u->operand, names, env);
    }
    const auto* c = e.as<Call>();
    if (!c || c->args.size() != 1 || !c->keywords.empty()) return std::nullopt;
    Callee callee = resolve_callee(*c->func, names, env);
    if (callee.kind != Callee::Kind::Builtin) return std::nullopt;
    const builtins::Builtin& b = *callee.builtin;
    if (b.category != builtins::Category::Cast) return std::nullopt;
    // int() and float() follow the kernel's types (f64 kernels); tack.i64() and its kind do not.
    std::optional<DType> t = dtype_from_name(b.name);
    if (!t || b.name == "int" || b.name == "float") return std::nullopt;
    return StaticType{*t, false};
}

std::optional<std::string> binary_type_error(BinaryOp op, StaticType a, StaticType b) {
    if (integer_only(op) && (is_float(a.type) || is_float(b.type)))
        return integer_operands_message(op, a.type, b.type);
    if (a.weak || b.weak || !promotes(op, a.type, b.type)) return std::nullopt;
    if (promote(a.type, b.type)) return std::nullopt;
    return no_common_type_message(a.type, b.type);
}

bool never_static_size(const Expr& e, const FunctionNames& names) {
    std::optional<__int128> v;
    switch (fold_size(e, names, v)) {
        case Fold::Never:
            return true;
        case Fold::Unknown:
            return false;
        case Fold::Value:
            break;
    }
    return *v <= 0 || *v > kMaxLocalArrayElements;
}

}  // namespace tack::sema
