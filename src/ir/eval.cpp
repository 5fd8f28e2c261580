#include "ir/eval.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "diag/diagnostic.hpp"
#include "ir/visitor.hpp"

namespace tack::ir {
namespace {

uint64_t mask_of(ScalarType t) {
    int n = tack::bits(t);
    return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
}

uint64_t wrap(ScalarType t, uint64_t v) {
    return v & mask_of(t);
}

int64_t sign_extend(ScalarType t, uint64_t bits) {
    int n = tack::bits(t);
    if (n >= 64) return static_cast<int64_t>(bits);
    uint64_t sign = uint64_t{1} << (n - 1);
    return static_cast<int64_t>((bits ^ sign) - sign);
}

Value make_int(ScalarType t, uint64_t v) {
    return Value::of_int(t, v);
}

// --- integers ---------------------------------------------------------------------------------

// Floor division and modulo with the DECISIONS for the cases the contract leaves open:
// x // 0 == x % 0 == 0, MIN // -1 == MIN, MIN % -1 == 0.
Value int_floor_divmod(ScalarType t, const Value& a, const Value& b, bool want_div) {
    if (b.bits == 0) return make_int(t, 0);
    if (!is_signed(t)) return make_int(t, want_div ? a.bits / b.bits : a.bits % b.bits);
    int64_t x = a.as_signed(), y = b.as_signed();
    if (y == -1) return make_int(t, want_div ? 0 - a.bits : 0);  // wraps MIN to MIN
    int64_t q = x / y, r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) {
        q -= 1;
        r += y;
    }
    return make_int(t, static_cast<uint64_t>(want_div ? q : r));
}

// Square-and-multiply over the exponent's bits in its own width (a negative exponent's bit
// pattern is used as is), wrapping at the base's width.
Value int_pow(ScalarType t, const Value& a, const Value& e) {
    uint64_t result = 1, base = a.bits, exp = e.bits;
    while (exp != 0) {
        if (exp & 1) result = wrap(t, result * base);
        base = wrap(t, base * base);
        exp >>= 1;
    }
    return make_int(t, result);
}

Value int_shift(BinaryOp op, ScalarType t, const Value& a, const Value& b) {
    unsigned count = static_cast<unsigned>(b.bits % static_cast<uint64_t>(tack::bits(t)));
    if (op == BinaryOp::Shl) return make_int(t, a.bits << count);
    if (is_signed(t)) return make_int(t, static_cast<uint64_t>(a.as_signed() >> count));
    return make_int(t, a.bits >> count);
}

bool int_less(ScalarType t, const Value& a, const Value& b) {
    return is_signed(t) ? a.as_signed() < b.as_signed() : a.bits < b.bits;
}

Value int_binary(BinaryOp op, const Value& a, const Value& b) {
    ScalarType t = a.type;
    switch (op) {
        case BinaryOp::Add:
            return make_int(t, a.bits + b.bits);
        case BinaryOp::Sub:
            return make_int(t, a.bits - b.bits);
        case BinaryOp::Mul:
            return make_int(t, a.bits * b.bits);
        case BinaryOp::FloorDiv:
            return int_floor_divmod(t, a, b, true);
        case BinaryOp::Mod:
            return int_floor_divmod(t, a, b, false);
        case BinaryOp::Pow:
            return int_pow(t, a, b);
        case BinaryOp::Shl:
        case BinaryOp::Shr:
            return int_shift(op, t, a, b);
        case BinaryOp::BitAnd:
            return make_int(t, a.bits & b.bits);
        case BinaryOp::BitOr:
            return make_int(t, a.bits | b.bits);
        case BinaryOp::BitXor:
            return make_int(t, a.bits ^ b.bits);
        case BinaryOp::Min:
            return int_less(t, b, a) ? b : a;
        case BinaryOp::Max:
            return int_less(t, a, b) ? b : a;
        case BinaryOp::Div:
            break;
    }
    throw diag::InternalError("internal error: eval_binary: integer " + to_string(op));
}

// --- floats -----------------------------------------------------------------------------------

template <class T>
FloatDivMod<T> divmod_impl(T vx, T wx) {
    // CPython Objects/floatobject.c float_divmod, computed entirely in T.
    T mod = std::fmod(vx, wx);
    T div = (vx - mod) / wx;
    if (mod != 0) {
        if ((wx < 0) != (mod < 0)) {
            mod += wx;
            div -= T(1);
        }
    } else {
        mod = std::copysign(T(0), wx);
    }
    T floordiv;
    if (div != 0) {
        floordiv = std::floor(div);
        if (div - floordiv > T(0.5)) floordiv += T(1);
    } else {
        floordiv = std::copysign(T(0), vx / wx);
    }
    return {floordiv, mod};
}

// NaN rules of B22: exactly one NaN returns the other operand.
template <class T>
T float_min_max(bool is_max, T a, T b) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    return is_max ? (a < b ? b : a) : (b < a ? b : a);
}

template <class T>
std::optional<T> float_binary_in(BinaryOp op, T a, T b) {
    switch (op) {
        case BinaryOp::Add:
            return a + b;
        case BinaryOp::Sub:
            return a - b;
        case BinaryOp::Mul:
            return a * b;
        case BinaryOp::Div:
            return a / b;
        case BinaryOp::FloorDiv:
            return divmod_impl(a, b).div;
        case BinaryOp::Mod:
            return divmod_impl(a, b).mod;
        case BinaryOp::Min:
            return float_min_max(false, a, b);
        case BinaryOp::Max:
            return float_min_max(true, a, b);
        default:
            return std::nullopt;  // Pow: libm; bit operations: not on floats
    }
}

std::optional<Value> float_binary(BinaryOp op, const Value& a, const Value& b) {
    if (a.type == DType::f32) {
        auto r = float_binary_in<float>(op, static_cast<float>(a.f), static_cast<float>(b.f));
        if (!r) return std::nullopt;
        return Value::of_float(DType::f32, *r);
    }
    auto r = float_binary_in<double>(op, a.f, b.f);
    if (!r) return std::nullopt;
    return Value::of_float(DType::f64, *r);
}

template <class T>
bool compare_in(CompareOp op, T a, T b) {
    switch (op) {
        case CompareOp::Eq:
            return a == b;
        case CompareOp::Ne:
            return a != b;  // unordered: NaN != NaN
        case CompareOp::Lt:
            return a < b;
        case CompareOp::Le:
            return a <= b;
        case CompareOp::Gt:
            return a > b;
        case CompareOp::Ge:
            return a >= b;
    }
    return false;
}

// --- casts ------------------------------------------------------------------------------------

uint64_t float_to_int(ScalarType to, double v) {
    if (std::isnan(v)) return 0;
    double t = std::trunc(v);
    int n = tack::bits(to);
    if (is_signed(to)) {
        double lo = -std::ldexp(1.0, n - 1), hi = std::ldexp(1.0, n - 1);  // hi is exclusive
        if (t <= lo) return wrap(to, uint64_t{1} << (n - 1));
        if (t >= hi) return wrap(to, (uint64_t{1} << (n - 1)) - 1);
        return wrap(to, static_cast<uint64_t>(static_cast<int64_t>(t)));
    }
    double hi = std::ldexp(1.0, n);
    if (t <= 0) return 0;
    if (t >= hi) return mask_of(to);
    return static_cast<uint64_t>(t);
}

Value int_to_float(ScalarType to, const Value& v) {
    // Convert straight to the destination type: i64 -> f32 through double would round twice.
    bool s = is_signed(v.type);
    if (to == DType::f32) {
        float f = s ? static_cast<float>(v.as_signed()) : static_cast<float>(v.bits);
        return Value::of_float(to, f);
    }
    double d = s ? static_cast<double>(v.as_signed()) : static_cast<double>(v.bits);
    return Value::of_float(to, d);
}

template <class T>
std::optional<T> exact_math_in(MathFn fn, const std::vector<T>& x) {
    switch (fn) {
        case MathFn::Sqrt:
            return std::sqrt(x[0]);
        case MathFn::Floor:
            return std::floor(x[0]);
        case MathFn::Ceil:
            return std::ceil(x[0]);
        case MathFn::Trunc:
            return std::trunc(x[0]);
        case MathFn::Abs:
            return std::fabs(x[0]);
        case MathFn::Fmod:
            return std::fmod(x[0], x[1]);
        case MathFn::Copysign:
            return std::copysign(x[0], x[1]);
        default:
            return std::nullopt;
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Value Value::of_int(ScalarType t, uint64_t value_mod_2_64) {
    TACK_ASSERT(tack::is_integer(t), "Value::of_int on a float type");
    Value v;
    v.type = t;
    v.bits = wrap(t, value_mod_2_64);
    return v;
}

Value Value::of_float(ScalarType t, double x) {
    TACK_ASSERT(tack::is_float(t), "Value::of_float on an integer type");
    Value v;
    v.type = t;
    v.f = t == DType::f32 ? static_cast<double>(static_cast<float>(x)) : x;
    return v;
}

int64_t Value::as_signed() const {
    return is_signed(type) ? sign_extend(type, bits) : static_cast<int64_t>(bits);
}

bool Value::truthy() const {
    return is_float() ? f != 0 || std::isnan(f) : bits != 0;
}

bool Value::operator==(const Value& o) const {
    if (type != o.type) return false;
    if (!is_float()) return bits == o.bits;
    return std::memcmp(&f, &o.f, sizeof f) == 0 || (std::isnan(f) && std::isnan(o.f));
}

FloatDivMod<double> float_divmod(double a, double b) {
    return divmod_impl(a, b);
}
FloatDivMod<float> float_divmod(float a, float b) {
    return divmod_impl(a, b);
}

Value eval_unary(UnaryOp op, const Value& a) {
    switch (op) {
        case UnaryOp::Not:
            return make_int(DType::i32, a.truthy() ? 0 : 1);
        case UnaryOp::Neg:
            return a.is_float() ? Value::of_float(a.type, -a.f) : make_int(a.type, 0 - a.bits);
        case UnaryOp::BitNot:
            TACK_ASSERT(!a.is_float(), "eval_unary: bitnot on a float");
            return make_int(a.type, ~a.bits);
    }
    throw diag::InternalError("internal error: eval_unary: bad op");
}

std::optional<Value> eval_binary(BinaryOp op, const Value& a, const Value& b) {
    if (a.is_float()) {
        TACK_ASSERT(a.type == b.type, "eval_binary: float operand types differ");
        return float_binary(op, a, b);
    }
    TACK_ASSERT(!b.is_float(), "eval_binary: float right operand of an integer op");
    bool any_rhs = op == BinaryOp::Shl || op == BinaryOp::Shr || op == BinaryOp::Pow;
    TACK_ASSERT(any_rhs || a.type == b.type, "eval_binary: integer operand types differ");
    return int_binary(op, a, b);
}

Value eval_compare(CompareOp op, const Value& a, const Value& b) {
    TACK_ASSERT(a.type == b.type, "eval_compare: operand types differ");
    bool r;
    if (a.type == DType::f32) {
        r = compare_in(op, static_cast<float>(a.f), static_cast<float>(b.f));
    } else if (a.is_float()) {
        r = compare_in(op, a.f, b.f);
    } else if (is_signed(a.type)) {
        r = compare_in(op, a.as_signed(), b.as_signed());
    } else {
        r = compare_in(op, a.bits, b.bits);
    }
    return make_int(DType::i32, r ? 1 : 0);
}

Value eval_logical(LogicalOp op, const Value& a, const Value& b) {
    bool r = op == LogicalOp::And ? a.truthy() && b.truthy() : a.truthy() || b.truthy();
    return make_int(DType::i32, r ? 1 : 0);
}

Value eval_cast(ScalarType to, const Value& v) {
    if (v.is_float()) {
        if (tack::is_float(to)) return Value::of_float(to, v.f);
        return make_int(to, float_to_int(to, v.f));
    }
    if (tack::is_float(to)) return int_to_float(to, v);
    return make_int(to, static_cast<uint64_t>(v.as_signed()));  // widen by source signedness
}

std::optional<Value> eval_call(MathFn fn, const std::vector<Value>& args) {
    TACK_ASSERT(static_cast<int>(args.size()) == arity(fn), "eval_call: wrong arity");
    ScalarType t = args[0].type;
    if (!tack::is_float(t)) {
        if (fn != MathFn::Abs) return std::nullopt;
        const Value& a = args[0];
        return is_signed(t) && a.as_signed() < 0 ? make_int(t, 0 - a.bits) : a;
    }
    if (t == DType::f32) {
        std::vector<float> x;
        for (const auto& a : args)
            x.push_back(static_cast<float>(a.f));
        auto r = exact_math_in<float>(fn, x);
        if (!r) return std::nullopt;
        return Value::of_float(t, *r);
    }
    std::vector<double> x;
    for (const auto& a : args)
        x.push_back(a.f);
    auto r = exact_math_in<double>(fn, x);
    if (!r) return std::nullopt;
    return Value::of_float(t, *r);
}

std::optional<Value> constant_value(const ExprPtr& e) {
    if (!e) return std::nullopt;
    if (auto* i = e->as<IntImm>()) return Value::of_int(i->type, i->bits);
    if (auto* f = e->as<FloatImm>()) return Value::of_float(f->type, f->value);
    return std::nullopt;
}

ExprPtr make_constant(const Value& v, SourceRange r) {
    if (v.is_float()) return FloatImm::make(v.type, v.f, r);
    return IntImm::make(v.type, v.bits, r);
}

namespace {

class HostEval {
  public:
    HostEval(const VarValueFn& var, const DimValueFn& dim) : var_(var), dim_(dim) {}

    Value operator()(const ExprPtr& e) {
        TACK_ASSERT(e != nullptr, "eval_expr: null expression");
        return dispatch(*e, [this](const auto* n) { return eval(n); });
    }

  private:
    const VarValueFn& var_;
    const DimValueFn& dim_;

    [[noreturn]] static Value unsupported(const char* what) {
        throw diag::InternalError(std::string("internal error: eval_expr: cannot evaluate ") +
                                  what + " on the host");
    }
    static Value need(std::optional<Value> v, const char* what) {
        return v ? *v : unsupported(what);
    }

    Value eval(const IntImm* n) { return Value::of_int(n->type, n->bits); }
    Value eval(const FloatImm* n) { return Value::of_float(n->type, n->value); }
    Value eval(const VarRef* n) {
        Value v = var_(*n->var);
        TACK_ASSERT(v.type == n->type,
                    "eval_expr: variable '" + n->var->name + "' has a wrong type");
        return v;
    }
    Value eval(const ArrayDim* n) { return Value::of_i64(dim_(*n->buffer, n->dim)); }
    Value eval(const Cast* n) { return eval_cast(n->type, (*this)(n->value)); }
    Value eval(const Unary* n) { return eval_unary(n->op, (*this)(n->a)); }
    Value eval(const Binary* n) {
        return need(eval_binary(n->op, (*this)(n->a), (*this)(n->b)), "float pow");
    }
    Value eval(const Compare* n) { return eval_compare(n->op, (*this)(n->a), (*this)(n->b)); }
    Value eval(const Logical* n) {
        Value a = (*this)(n->a);
        if ((n->op == LogicalOp::And) != a.truthy()) {
            return Value::of_int(DType::i32, a.truthy() ? 1 : 0);
        }
        return eval_logical(n->op, a, (*this)(n->b));
    }
    Value eval(const Select* n) { return (*this)((*this)(n->cond).truthy() ? n->a : n->b); }
    Value eval(const Call* n) {
        std::vector<Value> args;
        for (const auto& a : n->args)
            args.push_back((*this)(a));
        return need(eval_call(n->fn, args), to_string(n->fn));
    }
    Value eval(const Load*) { unsupported("a load"); }
    Value eval(const TableLoad* n) {
        Value i = (*this)(n->index);
        const auto& values = n->table->values;
        uint64_t k = std::min<uint64_t>(i.bits, values.size() - 1);  // i64 bits: negative is huge
        return (*this)(values[static_cast<size_t>(k)]);
    }
    Value eval(const ThreadId*) { unsupported("thread_id"); }
    Value eval(const TexSample*) { unsupported("a texture sample"); }
};

}  // namespace

Value eval_expr(const ExprPtr& e, const VarValueFn& var, const DimValueFn& dim) {
    return HostEval(var, dim)(e);
}

}  // namespace tack::ir
