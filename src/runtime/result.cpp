#include "runtime/result.hpp"

#include <cmath>
#include <cstring>

#include "diag/diagnostic.hpp"
#include "tack/tack.hpp"

namespace tack::runtime {

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
        if (auto d = e->as<ir::ArrayDim>(); d && checks())
            return Value::of_i64(in_.checks->extent(*d->buffer, d->dim));
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
        const ir::Buffer& b = *l.buffer;
        std::size_t size = size_bytes(b.elem);
        std::int64_t index = checks() ? checked_index(l) : eval(l.index).as_signed();
        auto count = static_cast<std::int64_t>(in_.buffers[b.param_index]->nbytes() / size);
        if (index < 0 || index >= count) {
            if (checks()) violation(l, passes::CheckSite::Kind::Read, false, {index});
            out_of_bounds(b, index, count, l.range);
        }
        std::uint64_t bits = 0;
        in_.read(b.param_index, static_cast<std::size_t>(index) * size, &bits, size);
        return from_bits(b.elem, bits);
    }

    // Debug mode: each subscript of a field's own axes within its extent, as the kernel's
    // checks do (a vector field's components: its storage, flat).
    std::int64_t checked_index(const ir::Load& l) {
        const ir::Buffer& b = *l.buffer;
        auto subs = b.elem_rank == 0 ? ir::split_flat_index(l.index, b, b.rank) : std::nullopt;
        if (!subs) return eval(l.index).as_signed();
        std::vector<std::int64_t> values;
        for (const auto& e : *subs)
            values.push_back(eval(e).as_signed());
        std::int64_t flat = 0;
        bool inside = true;
        for (std::size_t d = 0; d < values.size(); ++d) {
            std::int64_t extent = in_.checks->extent(b, static_cast<int>(d));
            inside = inside && values[d] >= 0 && values[d] < extent;
            flat = flat * extent + values[d];
        }
        if (!inside) violation(l, passes::CheckSite::Kind::Read, true, values);
        return flat;
    }

    [[noreturn]] void violation(const ir::Load& l, passes::CheckSite::Kind kind, bool per_axis,
                                std::vector<std::int64_t> values) {
        passes::CheckSite site{kind,     in_.kernel->file, l.range,
                               l.buffer, per_axis,         static_cast<int>(values.size())};
        raise(site, values);
    }

    [[noreturn]] void raise(const passes::CheckSite& site, std::span<const std::int64_t> values) {
        in_.checks->violation(site, values);
        throw diag::InternalError("a result check did not raise its violation");
    }

    [[noreturn]] void out_of_bounds(const ir::Buffer& b, std::int64_t index, std::int64_t count,
                                    ir::SourceRange range) {
        std::string message = "Kernel '" + in_.kernel->name + "': out-of-bounds read of '" +
                              b.name + "' in the return expression: flat index " +
                              std::to_string(index) + " is outside its " + std::to_string(count) +
                              " elements";
        diag::Diagnostic d{diag::ErrorKind::Index, message, in_.kernel->file, range};
        std::string path = in_.kernel->file ? in_.kernel->file->path() : "";
        throw KernelIndexError(message, path, d.line(), d.column(), d.render());
    }

    bool checks() const { return in_.checks != nullptr; }

    Value binary(const ir::Binary& b) {
        Value x = eval(b.a), y = eval(b.b);
        bool division = b.op == ir::BinaryOp::FloorDiv || b.op == ir::BinaryOp::Mod;
        if (checks() && division && !x.is_float() && y.bits == 0) {
            using Kind = passes::CheckSite::Kind;
            passes::CheckSite site{b.op == ir::BinaryOp::Mod ? Kind::Mod : Kind::FloorDiv,
                                   in_.kernel->file,
                                   b.range,
                                   nullptr,
                                   false,
                                   1,
                                   b.type};
            std::int64_t dividend = x.as_signed();
            raise(site, {&dividend, 1});
        }
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

ir::Value evaluate(const ResultInputs& in, const ir::ExprPtr& e) {
    return Evaluator(in).eval(e);
}

void evaluate_result(const ResultInputs& in, void* out) {
    std::uint64_t bits = to_bits(Evaluator(in).eval(in.kernel->result));
    std::memcpy(out, &bits, 8);
}

}  // namespace tack::runtime
