#include "driver/launch_plan.hpp"

#include <cstring>
#include <string>

#include "diag/diagnostic.hpp"
#include "ir/eval.hpp"
#include "ir/visitor.hpp"

namespace tack::driver {

namespace {

ir::Value param_value(const CallValues& call, const ir::Var* var) {
    const auto& params = call.kernel->params;
    for (size_t i = 0; i < params.size(); ++i) {
        if (params[i].scalar.get() != var) continue;
        const Scalar& s = call.args[i].scalar;
        if (s.dtype == DType::f32) {
            float f;
            auto b32 = static_cast<uint32_t>(s.bits);
            std::memcpy(&f, &b32, 4);
            return ir::Value::of_float(DType::f32, f);
        }
        if (s.dtype == DType::f64) {
            double d;
            std::memcpy(&d, &s.bits, 8);
            return ir::Value::of_float(DType::f64, d);
        }
        return ir::Value::of_int(s.dtype, s.bits);
    }
    throw diag::InternalError("internal error: loop range reads '" + var->name +
                              "', which is not a scalar parameter");
}

ir::Value eval(const CallValues& call, const ir::ExprPtr& e);

struct Evaluator {
    const CallValues& call;

    ir::Value operator()(const ir::IntImm* n) const { return ir::Value::of_int(n->type, n->bits); }
    ir::Value operator()(const ir::FloatImm* n) const {
        return ir::Value::of_float(n->type, n->value);
    }
    ir::Value operator()(const ir::VarRef* n) const { return param_value(call, n->var.get()); }
    ir::Value operator()(const ir::ArrayDim* n) const {
        const Array* a = call.args[static_cast<size_t>(n->buffer->param_index)].array;
        return ir::Value::of_i64(a->shape()[n->dim]);
    }
    ir::Value operator()(const ir::Cast* n) const {
        return ir::eval_cast(n->type, eval(call, n->value));
    }
    ir::Value operator()(const ir::Unary* n) const {
        return ir::eval_unary(n->op, eval(call, n->a));
    }
    ir::Value operator()(const ir::Binary* n) const {
        auto r = ir::eval_binary(n->op, eval(call, n->a), eval(call, n->b));
        if (!r) unsupported("float power");
        return *r;
    }
    ir::Value operator()(const ir::Compare* n) const {
        return ir::eval_compare(n->op, eval(call, n->a), eval(call, n->b));
    }
    ir::Value operator()(const ir::Logical* n) const {
        ir::Value a = eval(call, n->a);
        bool decided = n->op == ir::LogicalOp::And ? !a.truthy() : a.truthy();
        if (decided) return ir::Value::of_int(DType::i32, a.truthy() ? 1 : 0);
        return ir::eval_logical(n->op, a, eval(call, n->b));
    }
    ir::Value operator()(const ir::Select* n) const {
        return eval(call, n->cond).truthy() ? eval(call, n->a) : eval(call, n->b);
    }
    ir::Value operator()(const ir::Call* n) const {
        std::vector<ir::Value> args;
        for (const auto& a : n->args)
            args.push_back(eval(call, a));
        auto r = ir::eval_call(n->fn, args);
        if (!r) unsupported(ir::to_string(n->fn));
        return *r;
    }
    ir::Value operator()(const ir::Load*) const { unsupported("an array load"); }
    ir::Value operator()(const ir::TableLoad*) const { unsupported("a table load"); }
    ir::Value operator()(const ir::ThreadId*) const { unsupported("thread_id()"); }
    ir::Value operator()(const ir::TexSample*) const { unsupported("a texture sample"); }

    [[noreturn]] static void unsupported(const std::string& what) {
        throw diag::InternalError("internal error: the parallel loop's range uses " + what +
                                  ", which the host cannot evaluate");
    }
};

ir::Value eval(const CallValues& call, const ir::ExprPtr& e) {
    return ir::dispatch(*e, Evaluator{call});
}

// Trip count of start, start+step, ... < end, exactly (the IR's For rule, DECISIONS: a step
// <= 0 runs nothing).
__int128 trip_count(int64_t start, int64_t end, int64_t step) {
    if (step <= 0 || end <= start) return 0;
    __int128 span = static_cast<__int128>(end) - start;
    return (span + step - 1) / step;
}

// The product of the dims' trip counts, `trips(i)` for dim i, evaluated in order up to the
// first empty one (a later dim's bounds are never read then).
template <class Trips>
int64_t flat_count(const CallValues& call, size_t dims, Trips trips) {
    __int128 total = 1;
    for (size_t i = 0; i < dims; ++i) {
        __int128 n = trips(i);
        if (n == 0) return 0;
        total *= n;
        if (total > INT64_MAX) {
            throw ValueError("Kernel '" + call.kernel->name +
                             "': the parallel loop has more than 2^63 - 1 iterations");
        }
    }
    return static_cast<int64_t>(total);
}

}  // namespace

std::optional<LaunchPlan::Term> LaunchPlan::term(const ir::Kernel& kernel, const ir::ExprPtr& e) {
    if (e->type != DType::i64) return std::nullopt;  // a cast in between: let eval do it
    if (const auto* imm = dynamic_cast<const ir::IntImm*>(e.get())) {
        return Term{Term::Kind::Constant, ir::Value::of_int(imm->type, imm->bits).as_signed()};
    }
    if (const auto* dim = dynamic_cast<const ir::ArrayDim*>(e.get())) {
        return Term{Term::Kind::Extent, dim->buffer->param_index, dim->dim};
    }
    // An integer scalar parameter, directly (i64) or widened by the IR's cast.
    const ir::Expr* inner = e.get();
    if (const auto* cast = dynamic_cast<const ir::Cast*>(inner)) inner = cast->value.get();
    const auto* ref = dynamic_cast<const ir::VarRef*>(inner);
    if (!ref || is_float(ref->type)) return std::nullopt;
    for (size_t i = 0; i < kernel.params.size(); ++i) {
        if (kernel.params[i].scalar.get() == ref->var.get()) {
            return Term{Term::Kind::Scalar, int64_t(i), 0, ref->type};
        }
    }
    return std::nullopt;
}

LaunchPlan::LaunchPlan(const ir::Kernel& kernel) {
    for (const auto& d : kernel.dims) {
        auto start = term(kernel, d.start), end = term(kernel, d.end), step = term(kernel, d.step);
        if (!start || !end || !step) {
            dims_.clear();
            return;
        }
        dims_.push_back({*start, *end, *step});
    }
    direct_ = true;
}

int64_t LaunchPlan::value(const Term& t, const CallValues& call) {
    switch (t.kind) {
        case Term::Kind::Constant:
            return t.value;
        case Term::Kind::Extent:
            return call.args[size_t(t.value)].array->shape()[t.dim];
        case Term::Kind::Scalar:
            break;
    }
    const Scalar& s = call.args[size_t(t.value)].scalar;
    return ir::eval_cast(DType::i64, ir::Value::of_int(t.dtype, s.bits)).as_signed();
}

int64_t LaunchPlan::count(const CallValues& call) const {
    if (!direct_) return launch_count(call);
    return flat_count(call, dims_.size(), [&](size_t i) {
        const Dim& d = dims_[i];
        return trip_count(value(d.start, call), value(d.end, call), value(d.step, call));
    });
}

int64_t launch_count(const CallValues& call) {
    const auto& dims = call.kernel->dims;
    return flat_count(call, dims.size(), [&](size_t i) {
        return trip_count(eval(call, dims[i].start).as_signed(),
                          eval(call, dims[i].end).as_signed(),
                          eval(call, dims[i].step).as_signed());
    });
}

}  // namespace tack::driver
