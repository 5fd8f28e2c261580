#include "runtime/gpu/result.hpp"

#include <cmath>
#include <cstring>

#include "diag/diagnostic.hpp"

namespace tack::runtime::gpu {

namespace {

using ir::Value;

Value from_bits(DType t, std::uint64_t bits) {
    if (t == DType::f32) {
        float f;
        auto b = static_cast<std::uint32_t>(bits);
        std::memcpy(&f, &b, 4);
        return Value::of_float(t, f);
    }
    if (t == DType::f64) {
        double d;
        std::memcpy(&d, &bits, 8);
        return Value::of_float(t, d);
    }
    return Value::of_int(t, bits);
}

std::uint64_t to_bits(const Value& v) {
    if (v.type == DType::f32) {
        float f = static_cast<float>(v.f);
        std::uint32_t b;
        std::memcpy(&b, &f, 4);
        return b;
    }
    if (v.type == DType::f64) {
        std::uint64_t b;
        std::memcpy(&b, &v.f, 8);
        return b;
    }
    return v.bits;
}

// The libm routine of each math builtin eval_call declines, in T.
template <class T>
T libm(ir::MathFn fn, T a, T b) {
    using F = ir::MathFn;
    switch (fn) {
        case F::Sin:
            return std::sin(a);
        case F::Cos:
            return std::cos(a);
        case F::Tan:
            return std::tan(a);
        case F::Asin:
            return std::asin(a);
        case F::Acos:
            return std::acos(a);
        case F::Atan:
            return std::atan(a);
        case F::Atan2:
            return std::atan2(a, b);
        case F::Sinh:
            return std::sinh(a);
        case F::Cosh:
            return std::cosh(a);
        case F::Tanh:
            return std::tanh(a);
        case F::Exp:
            return std::exp(a);
        case F::Exp2:
            return std::exp2(a);
        case F::Log:
            return std::log(a);
        case F::Log2:
            return std::log2(a);
        case F::Log10:
            return std::log10(a);
        case F::Round:
            return std::nearbyint(a);
        case F::Pow:
            return std::pow(a, b);
        default:
            break;
    }
    throw diag::InternalError(std::string("no host routine for ") + ir::to_string(fn));
}

class Evaluator {
  public:
    explicit Evaluator(const ResultInputs& in) : in_(in) {}

    Value eval(const ir::ExprPtr& e) {
        if (auto c = ir::constant_value(e)) return *c;
        if (auto v = e->as<ir::VarRef>()) return var(*v->var);
        if (auto l = e->as<ir::Load>()) return load(*l);
        if (auto c = e->as<ir::Cast>()) return ir::eval_cast(c->type, eval(c->value));
        if (auto u = e->as<ir::Unary>()) return ir::eval_unary(u->op, eval(u->a));
        if (auto b = e->as<ir::Binary>()) return binary(*b);
        if (auto c = e->as<ir::Compare>()) return ir::eval_compare(c->op, eval(c->a), eval(c->b));
        if (auto l = e->as<ir::Logical>()) {
            Value a = eval(l->a);
            bool decided = l->op == ir::LogicalOp::And ? !a.truthy() : a.truthy();
            if (decided) return Value::of_int(DType::i32, a.truthy() ? 1 : 0);
            return ir::eval_logical(l->op, a, eval(l->b));
        }
        if (auto s = e->as<ir::Select>()) return eval(s->cond).truthy() ? eval(s->a) : eval(s->b);
        if (auto c = e->as<ir::Call>()) return call(*c);
        throw diag::InternalError("a kernel result cannot use this expression on the host");
    }

  private:
    Value var(const ir::Var& v) {
        const auto& params = in_.kernel->params;
        for (std::size_t i = 0; i < params.size(); ++i)
            if (params[i].scalar.get() == &v) return from_bits(v.type, in_.slots[i]);
        throw diag::InternalError("the kernel result reads '" + v.name +
                                  "', which is not a scalar parameter");
    }

    Value load(const ir::Load& l) {
        std::int64_t index = eval(l.index).as_signed();
        std::size_t size = size_bytes(l.buffer->elem);
        std::uint64_t bits = 0;
        in_.read(l.buffer->param_index, static_cast<std::size_t>(index) * size, &bits, size);
        return from_bits(l.buffer->elem, bits);
    }

    Value binary(const ir::Binary& b) {
        Value x = eval(b.a), y = eval(b.b);
        if (auto r = ir::eval_binary(b.op, x, y)) return *r;
        return math(ir::MathFn::Pow, b.type, x, y);  // float pow, the one declined binary
    }

    Value call(const ir::Call& c) {
        std::vector<Value> args;
        for (const auto& a : c.args)
            args.push_back(eval(a));
        if (auto r = ir::eval_call(c.fn, args)) return *r;
        return math(c.fn, c.type, args[0], args.size() > 1 ? args[1] : args[0]);
    }

    static Value math(ir::MathFn fn, DType t, const Value& a, const Value& b) {
        if (t == DType::f32)
            return Value::of_float(
                t, libm<float>(fn, static_cast<float>(a.f), static_cast<float>(b.f)));
        return Value::of_float(t, libm<double>(fn, a.f, b.f));
    }

    const ResultInputs& in_;
};

}  // namespace

void evaluate_result(const ResultInputs& in, void* out) {
    std::uint64_t bits = to_bits(Evaluator(in).eval(in.kernel->result));
    std::memcpy(out, &bits, 8);
}

}  // namespace tack::runtime::gpu
