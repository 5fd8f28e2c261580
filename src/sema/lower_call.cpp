// Calls: resolution (CONTRACT A22) and the intrinsics of builtins::find (math, casts, min/max,
// GLSL helpers, atomics, allocations, workgroup primitives, print, len, select). @tack.func
// inlining lives in lower_inline.cpp.
#include <algorithm>
#include <functional>

#include "sema/lower_context.hpp"

namespace tack::sema::lower {

namespace {

const std::map<std::string, ir::MathFn>& math_fns() {
    static const std::map<std::string, ir::MathFn> kFns = {
#define TACK_X(e, n, a) {#n, ir::MathFn::e},
        TACK_IR_MATH(TACK_X)
#undef TACK_X
    };
    return kFns;
}

ir::ExprPtr lit(DType t, double v, SourceRange r) {
    if (is_float(t)) return ir::FloatImm::make(t, v, r);
    return ir::IntImm::make(t, static_cast<uint64_t>(static_cast<int64_t>(v)), r);
}

}  // namespace

std::string Lowerer::dotted(const ast::Expr& e) const {
    if (const auto* n = e.as<ast::Name>()) return n->id;
    if (const auto* a = e.as<ast::Attribute>()) {
        std::string base = dotted(*a->value);
        return base.empty() ? "" : base + "." + a->attr;
    }
    return "";
}

Resolution Lowerer::resolve_callee(const ast::Call& e) const {
    std::string n = dotted(*e.func);
    std::string root = n.substr(0, n.find('.'));
    if (n.empty() || scope_->names.count(root) || scope_->assigned.count(root)) {
        Resolution r;
        r.kind = Resolution::Kind::Other;
        return r;
    }
    return scope_->env->resolve(n);
}

const builtins::Builtin* Lowerer::intrinsic_of(const ast::Call& e) const {
    Resolution r = resolve_callee(e);
    if (r.kind == Resolution::Kind::Intrinsic) return builtins::find(r.intrinsic);
    std::string n = dotted(*e.func);
    if (r.kind == Resolution::Kind::Unbound && n.find('.') == std::string::npos) {
        return builtins::find(n);
    }
    return nullptr;
}

void Lowerer::check_arity(const ast::Call& e, const builtins::Signature& s) const {
    if (s.accepts(e.args.size())) return;
    type_error(std::string(s.name) + "() " + builtins::arity_error(s, e.args.size()), e.range);
}

DType Lowerer::float_result(const std::vector<ir::ExprPtr>& args) const {
    for (const auto& a : args) {
        if (a->type == f64) return f64;
    }
    return f32;
}

// ---- dispatch -------------------------------------------------------------------------------

Val Lowerer::lower_call(const ast::Call& e, ir::Block& out, Hint hint, bool want_value) {
    if (!e.keywords.empty()) {
        fail(ErrorKind::UnsupportedSyntax, "keyword arguments are not supported", e.range);
    }
    std::string n = dotted(*e.func);
    if (auto results = inline_callee(e, out)) {
        if (!want_value) return {};
        if (results->empty()) type_error("'" + n + "' returns no value", e.range);
        if (results->size() != 1) {
            type_error("'" + n + "' returns " + std::to_string(results->size()) +
                           " values; unpack them into one target each",
                       e.range);
        }
        return (*results)[0];
    }
    if (const builtins::Builtin* b = intrinsic_of(e)) {
        check_arity(e, b->signature);
        Val v = lower_intrinsic(*b, e, out, hint, want_value);
        if (want_value && v.empty()) {
            fail(ErrorKind::UnsupportedSyntax, std::string(b->name) + "() has no value", e.range);
        }
        return v;
    }
    // A method of a vector or matrix value: `v.dot(w)`, `a[i].inverse()`, `(a - b).norm()`.
    if (const auto* attr = e.func->as<ast::Attribute>()) {
        if (const Binding* a = array_binding(*attr->value); a && a->is(Type::Kind::Texture)) {
            if (attr->attr != "sample") {
                fail(ErrorKind::UnsupportedSyntax,
                     "a texture has one method, " +
                         builtins::call_form(builtins::find_method("sample")->signature) +
                         ", not '" + attr->attr + "'",
                     e.range);
            }
            return lower_sample(e, *a, out);
        }
        std::string root = n.substr(0, n.find('.'));
        auto base = constant_of(*attr->value);
        bool on_constant = base && base->kind == Constant::Kind::Tuple;
        if (n.empty() || scope_->names.count(root) || scope_->assigned.count(root) || on_constant) {
            return lower_method(e, *attr, out, hint);
        }
    }
    fail(ErrorKind::UnsupportedSyntax,
         "call to '" + (n.empty() ? std::string("<expression>") : n) +
             "' is not a statically bound @tack.func or a supported kernel intrinsic",
         e.range);
}

std::optional<std::vector<Val>> Lowerer::inline_callee(const ast::Call& e, ir::Block& out) {
    // A template's method or function attribute: cfg.step(x), self.helper(y) (A24, A25).
    if (const auto* attr = e.func->as<ast::Attribute>()) {
        if (auto self = template_of(*attr->value)) {
            const TemplateMember* m = member_of(*attr);
            bool method = m->kind == TemplateMember::Kind::Method;
            if (!method && m->kind != TemplateMember::Kind::Func) {
                const char* what = m->kind == TemplateMember::Kind::Field      ? "a field"
                                   : m->kind == TemplateMember::Kind::Template ? "a template"
                                                                               : "a number";
                fail(ErrorKind::ValueError,
                     "template class '" + template_info(self->template_id()).class_name +
                         "': attribute '" + attr->attr + "' is " + what +
                         ", not a @tack.func; a kernel calls only @tack.func methods and "
                         "function attributes of a template",
                     e.range);
            }
            return inline_call(e, m->func, out, method ? &*self : nullptr);
        }
    }
    Resolution res = resolve_callee(e);
    if (res.kind == Resolution::Kind::Func) return inline_call(e, res.func, out);
    return std::nullopt;
}

std::vector<Val> Lowerer::lower_call_multi(const ast::Call& e, ir::Block& out) {
    if (auto results = inline_callee(e, out)) return *results;
    return {lower_call(e, out, std::nullopt)};
}

Val Lowerer::lower_intrinsic(const builtins::Builtin& b, const ast::Call& e, ir::Block& out,
                             Hint hint, bool want_value) {
    using C = builtins::Category;
    std::string name(b.name);
    Hint h = is_weak(e) ? hint : std::nullopt;
    switch (b.category) {
        case C::Math:
            return lower_math(e, name, out, h);
        case C::MinMax:
            return lower_minmax(e, name, out, h);
        case C::Helper:
            return lower_helper(e, name, out, h);
        case C::Cast:
            return lower_cast(e, name, out);
        case C::Atomic:
            return lower_atomic(e, name, out, want_value);
        case C::Workgroup: {
            ir::ExprPtr v = lower_workgroup(e, name, out);
            return v ? Val::of(v) : Val{};
        }
        case C::Print:
            lower_print(e, out);
            return {};
        case C::Len:
            return Val::of(lower_len(e));
        case C::Select:
            return lower_select(e, out, h);
        case C::Construct:
            return lower_constructor(e, name, out, h);
        case C::Truth:
            return lower_any_all(e, name, out);
        case C::Alloc:
            fail(ErrorKind::UnsupportedSyntax, name + "() must be assigned to a name", e.range);
        case C::Range:
            fail(ErrorKind::UnsupportedSyntax, name + "() is only supported as a for loop iterable",
                 e.range);
        case C::Constant:
            fail(ErrorKind::UnsupportedSyntax, "tack.constant() is only supported at module level",
                 e.range);
    }
    fail(ErrorKind::UnsupportedSyntax, "unsupported intrinsic " + name, e.range);
}

static std::vector<const ast::Expr*> arg_ptrs(const ast::Call& e) {
    std::vector<const ast::Expr*> v;
    for (const auto& a : e.args)
        v.push_back(a.get());
    return v;
}

// ---- math, min/max, casts (B7, B19) -----------------------------------------------------------

Val Lowerer::lower_math(const ast::Call& e, const std::string& name, ir::Block& out, Hint hint) {
    auto it = math_fns().find(name);
    if (it == math_fns().end()) {
        fail(ErrorKind::UnsupportedSyntax, "math function '" + name + "' is not supported",
             e.range);
    }
    auto vals = lower_values(arg_ptrs(e), out, hint);
    Shape shape = common_shape(vals, out, e.range, name + "()");  // per component (A29)
    Val res{shape, {}};
    for (int k = 0; k < shape.count(); ++k) {
        std::vector<ir::ExprPtr> args;
        for (const auto& v : vals)
            args.push_back(v.c[size_t(k)]);
        bool ints = std::all_of(args.begin(), args.end(),
                                [](const ir::ExprPtr& a) { return is_integer(a->type); });
        if (name == "abs" && ints) {
            res.c.push_back(ir::Call::make(ir::MathFn::Abs, args, e.range));
        } else if (name == "pow" && ints) {
            res.c.push_back(arith(ast::BinaryOp::Pow, args[0], args[1], e.range));
        } else {
            DType t = float_result(args);
            for (auto& a : args)
                a = convert(a, t);
            res.c.push_back(ir::Call::make(it->second, std::move(args), e.range));
        }
    }
    return res;
}

Val Lowerer::lower_minmax(const ast::Call& e, const std::string& name, ir::Block& out, Hint hint) {
    auto vals = lower_values(arg_ptrs(e), out, hint);
    Shape shape = common_shape(vals, out, e.range, name + "()");
    auto op = name == "min" ? ir::BinaryOp::Min : ir::BinaryOp::Max;
    Val res{shape, {}};
    for (int k = 0; k < shape.count(); ++k) {
        DType t = vals[0].c[size_t(k)]->type;
        for (const auto& v : vals)
            t = promote_or_fail(t, v.c[size_t(k)]->type, e.range);
        ir::ExprPtr acc = convert(vals[0].c[size_t(k)], t);
        for (size_t j = 1; j < vals.size(); ++j)
            acc = ir::Binary::make(op, acc, convert(vals[j].c[size_t(k)], t), e.range);
        res.c.push_back(acc);
    }
    return res;
}

Val Lowerer::lower_cast(const ast::Call& e, const std::string& name, ir::Block& out) {
    DType to = name == "int" ? i32 : name == "float" ? f32 : *dtype_from_name(name);
    // B4: the operand of tack.f32/tack.f64 adopts that type; int(2.5) evaluates it as f32.
    Val v = lower_value(*e.args[0], out, is_float(to) ? Hint(to) : std::nullopt);
    return convert(std::move(v), to);
}

// ---- GLSL helpers (A42), expanded with their GLSL definitions ---------------------------------

namespace {

struct HelperCtx {
    Lowerer& l;
    ir::Block& out;
    SourceRange r;
    DType t;
    ir::ExprPtr c(double v) const { return lit(t, v, r); }
    ir::ExprPtr bin(ir::BinaryOp op, ir::ExprPtr a, ir::ExprPtr b) const {
        return ir::Binary::make(op, std::move(a), std::move(b), r);
    }
    ir::ExprPtr clamp(ir::ExprPtr x, ir::ExprPtr lo, ir::ExprPtr hi) const {
        return bin(ir::BinaryOp::Min, bin(ir::BinaryOp::Max, std::move(x), std::move(lo)),
                   std::move(hi));
    }
    ir::ExprPtr keep(ir::ExprPtr e) const { return l.materialize(std::move(e), out); }
};

using HelperFn = std::function<ir::ExprPtr(const HelperCtx&, std::vector<ir::ExprPtr>&)>;
using B = ir::BinaryOp;

struct HelperRow {
    bool float_only;  // false: integer arguments keep their promoted type (clamp, sign)
    HelperFn fn;
};

const std::map<std::string, HelperRow>& helpers() {
    static const std::map<std::string, HelperRow> kRows = {
        {"fract",
         {true,
          [](const HelperCtx& h, auto& a) {
              ir::ExprPtr x = h.keep(a[0]);
              return h.bin(B::Sub, x, ir::Call::make(ir::MathFn::Floor, {x}, h.r));
          }}},
        {"mix",
         {true,
          [](const HelperCtx& h, auto& a) {
              ir::ExprPtr w = h.keep(a[2]);
              return h.bin(B::Add, h.bin(B::Mul, a[0], h.bin(B::Sub, h.c(1), w)),
                           h.bin(B::Mul, a[1], w));
          }}},
        {"clamp", {false, [](const HelperCtx& h, auto& a) { return h.clamp(a[0], a[1], a[2]); }}},
        {"saturate",
         {true, [](const HelperCtx& h, auto& a) { return h.clamp(a[0], h.c(0), h.c(1)); }}},
        {"smoothstep",
         {true,
          [](const HelperCtx& h, auto& a) {
              ir::ExprPtr e0 = h.keep(a[0]);
              ir::ExprPtr q = h.bin(B::Div, h.bin(B::Sub, a[2], e0), h.bin(B::Sub, a[1], e0));
              ir::ExprPtr t = h.keep(h.clamp(q, h.c(0), h.c(1)));
              return h.bin(B::Mul, h.bin(B::Mul, t, t),
                           h.bin(B::Sub, h.c(3), h.bin(B::Mul, h.c(2), t)));
          }}},
        {"step",
         {true,
          [](const HelperCtx& h, auto& a) {
              ir::ExprPtr lt = ir::Compare::make(ir::CompareOp::Lt, a[1], a[0], h.r);
              return ir::Select::make(lt, h.c(0), h.c(1), h.r);
          }}},
        {"sign",
         {false,
          [](const HelperCtx& h, auto& a) {
              ir::ExprPtr x = h.keep(a[0]);
              ir::ExprPtr neg = ir::Select::make(
                  ir::Compare::make(ir::CompareOp::Lt, x, h.c(0), h.r), h.c(-1), h.c(0), h.r);
              return ir::Select::make(ir::Compare::make(ir::CompareOp::Gt, x, h.c(0), h.r), h.c(1),
                                      neg, h.r);
          }}},
        {"length",
         {true, [](const HelperCtx& h,
                   auto& a) { return ir::Call::make(ir::MathFn::Abs, {a[0]}, h.r); }}},
        {"distance",
         {true,
          [](const HelperCtx& h, auto& a) {
              return ir::Call::make(ir::MathFn::Abs, {h.bin(B::Sub, a[0], a[1])}, h.r);
          }}},
        {"normalize",
         {true,
          [](const HelperCtx& h, auto& a) {
              ir::ExprPtr x = h.keep(a[0]);
              return h.bin(B::Div, x, ir::Call::make(ir::MathFn::Abs, {x}, h.r));
          }}},
    };
    return kRows;
}

}  // namespace

Val Lowerer::lower_helper(const ast::Call& e, const std::string& name, ir::Block& out, Hint hint) {
    auto it = helpers().find(name);
    if (it == helpers().end()) {
        fail(ErrorKind::UnsupportedSyntax, "helper '" + name + "' is not supported", e.range);
    }
    auto vals = lower_values(arg_ptrs(e), out, hint);
    // length, distance and normalize of vectors are the Euclidean forms (A42).
    bool geometric = name == "length" || name == "distance" || name == "normalize";
    if (geometric && !vals[0].shape.is_scalar()) {
        Val v = vals[0];
        if (name == "distance") {
            v = zip(vals[0], vals[1], out, e.range, "distance()",
                    [&](ir::ExprPtr a, ir::ExprPtr b) {
                        return arith(ast::BinaryOp::Sub, a, b, e.range);
                    });
        }
        v = keep(convert(v, float_result(v.c)), out);
        ir::ExprPtr n = ir::Call::make(ir::MathFn::Sqrt, {dot(v, v, e.range)}, e.range);
        if (name != "normalize") return Val::of(n);
        n = materialize(n, out);
        return map(v, [&](ir::ExprPtr x) { return arith(ast::BinaryOp::Div, x, n, e.range); });
    }
    Shape shape = common_shape(vals, out, e.range, name + "()");
    Val res{shape, {}};
    for (int k = 0; k < shape.count(); ++k) {
        std::vector<ir::ExprPtr> args;
        for (const auto& v : vals)
            args.push_back(v.c[size_t(k)]);
        DType t = args[0]->type;
        for (const auto& a : args)
            t = promote_or_fail(t, a->type, e.range);
        if (it->second.float_only) t = float_result(args);
        for (auto& a : args)
            a = convert(a, t);
        HelperCtx ctx{*this, out, e.range, t};
        res.c.push_back(it->second.fn(ctx, args));
    }
    return res;
}

// ---- atomics (A38, G6) ------------------------------------------------------------------------

Val Lowerer::lower_atomic(const ast::Call& e, const std::string& name, ir::Block& out,
                          bool want_value) {
    const Binding* target = array_binding(*e.args[0]);
    if (!target || target->buffer->kind != ir::BufferKind::Param) {
        type_error(name + "() requires a global field parameter target", e.args[0]->range);
    }
    const Binding& t = *target;
    ir::BufferPtr b = t.buffer;
    std::vector<const ast::Expr*> operands;
    if (const auto* tu = e.args[1]->as<ast::Tuple>()) {
        for (const auto& x : tu->elts)
            operands.push_back(x.get());
    } else {
        operands.push_back(e.args[1].get());
    }
    operands.push_back(e.args[2].get());
    auto vals = lower_values(operands, out, is_float(b->elem) ? Hint(b->elem) : std::nullopt);
    Val value = vals.back();
    vals.pop_back();
    std::vector<ir::ExprPtr> idx;
    if (vals.size() == 1 && vals[0].shape.is_vector()) {
        idx = vals[0].c;  // A34: an integer vector supplies one index per dimension
    } else {
        for (size_t k = 0; k < vals.size(); ++k)
            idx.push_back(scalar_of(vals[k], operands[k]->range));
    }
    ir::ExprPtr index = flat_index(t, std::move(idx), e.range);
    static const std::map<std::string, ir::AtomicOp> kOps = {{"atomic_add", ir::AtomicOp::Add},
                                                             {"atomic_min", ir::AtomicOp::Min},
                                                             {"atomic_max", ir::AtomicOp::Max}};
    int count = t.shape().count();
    Val result{value.shape, {}};
    auto one = [&](ir::ExprPtr at, ir::ExprPtr v) {
        ir::VarPtr old = want_value ? temp(b->elem, e.range) : nullptr;
        out.push_back(ir::Atomic::make(kOps.at(name), b, at, convert(v, b->elem), old, e.range));
        if (old) result.c.push_back(ir::VarRef::make(old, e.range));
    };
    if (value.shape.is_scalar()) {
        // On a vector or matrix field a scalar value addresses one component by its flat
        // index into the storage (A38).
        one(index, value.c[0]);
    } else {
        if (value.shape != t.shape()) {
            fail(ErrorKind::UnsupportedSyntax,
                 name + "() combines a " + value.shape.text() + " value and a field of " +
                     t.shape().text() + " elements",
                 e.range);
        }
        // One atomic per component; the index and the value are evaluated first (A38).
        value = keep(value, out);
        ir::ExprPtr base =
            materialize(ir::Binary::make(ir::BinaryOp::Mul, index,
                                         ir::IntImm::make_i64(count, e.range), e.range),
                        out);
        for (int k = 0; k < count; ++k) {
            ir::ExprPtr at = k ? ir::Binary::make(ir::BinaryOp::Add, base,
                                                  ir::IntImm::make_i64(k, e.range), e.range)
                               : base;
            one(at, value.c[size_t(k)]);
        }
    }
    if (!want_value) return {};
    return result;
}

// ---- workgroups, print, len, select, allocations ----------------------------------------------

ir::ExprPtr Lowerer::lower_workgroup(const ast::Call& e, const std::string& name, ir::Block& out) {
    if (name == "barrier") {
        out.push_back(ir::Barrier::make(e.range));
        return nullptr;
    }
    if (name == "thread_id") return ir::ThreadId::make(e.range);
    static const std::map<std::string, ir::ReduceOp> kOps = {{"block_sum", ir::ReduceOp::Sum},
                                                             {"block_min", ir::ReduceOp::Min},
                                                             {"block_max", ir::ReduceOp::Max}};
    auto it = kOps.find(name);
    if (it == kOps.end()) fail(ErrorKind::UnsupportedSyntax, "unsupported " + name, e.range);
    ir::ExprPtr v = lower_expr(*e.args[0], out, f32);
    if (v->type != f32) type_error(name + " requires f32 input; use an explicit f32 cast", e.range);
    ir::VarPtr result = temp(f32, e.range);
    out.push_back(ir::BlockReduce::make(it->second, result, v, e.range));
    return ir::VarRef::make(result, e.range);
}

void Lowerer::lower_print(const ast::Call& e, ir::Block& out) {
    std::vector<const ast::Expr*> values;
    for (const auto& a : e.args) {
        if (!a->as<ast::StrLit>()) values.push_back(a.get());
    }
    auto vals = lower_values(values, out);
    std::vector<std::variant<std::string, ir::ExprPtr>> parts;
    size_t next = 0;
    for (const auto& a : e.args) {
        if (const auto* s = a->as<ast::StrLit>()) {
            parts.emplace_back(s->value);
            continue;
        }
        for (const auto& c : vals[next].c)  // a vector prints its components
            parts.emplace_back(c);
        ++next;
    }
    out.push_back(ir::Print::make(std::move(parts), e.range));
}

ir::ExprPtr Lowerer::lower_len(const ast::Call& e) {
    const Binding& a = array_of(*e.args[0], "len()");
    int elem_rank = a.shape().rank();
    if (a.buffer->rank == elem_rank) {
        type_error("len() of a single vector or matrix field (it has no dimensions)", e.range);
    }
    return array_extent(a.buffer, 0, e.range);
}

Val Lowerer::lower_select(const ast::Call& e, ir::Block& out, Hint hint) {
    auto v = lower_values(arg_ptrs(e), out, hint);
    Val mask = v[0];
    std::vector<Val> arms = {v[1], v[2]};
    Shape shape;
    if (mask.shape.is_scalar()) {
        // A scalar mask picks whole values (A31).
        shape = common_shape(arms, out, e.range, "tack.select()");
        if (shape.count() > 1) mask = keep(mask, out);
        mask = broadcast(mask, shape, out);
    } else {
        std::vector<Val> all = {mask, arms[0], arms[1]};
        shape = common_shape(all, out, e.range, "tack.select()");
        mask = all[0];
        arms = {all[1], all[2]};
    }
    Val res{shape, {}};
    for (int k = 0; k < shape.count(); ++k) {
        ir::ExprPtr a = arms[0].c[size_t(k)], b = arms[1].c[size_t(k)];
        join_arms(&a, &b, e.range);
        res.c.push_back(ir::Select::make(mask.c[size_t(k)], a, b, e.range));
    }
    return res;
}

ir::BufferPtr Lowerer::lower_alloc(const ast::Call& e, const std::string& name,
                                   const std::string& var, ir::Block& out) {
    check_arity(e, builtins::find(name)->signature);
    bool like = name.ends_with("_like");
    std::optional<DType> elem =
        like ? array_of(*e.args[0], name.c_str()).buffer->elem : dtype_of(*e.args[0]);
    if (!elem) type_error(name + "() needs a dtype such as tack.f32", e.args[0]->range);
    auto size = static_int(*e.args[1]);
    if (!size || *size <= 0 || *size > kMaxLocalArrayElements) {
        type_error(alloc_size_message(name), e.args[1]->range);
    }
    bool shared = name.starts_with("shared");
    auto b = std::make_shared<const ir::Buffer>(
        ir::Buffer{var, *elem, 1, shared ? ir::BufferKind::Shared : ir::BufferKind::Local, -1,
                   static_cast<int64_t>(*size), next_var_id_++, e.range});
    out.push_back(ir::AllocArray::make(b, e.range));
    return b;
}

}  // namespace tack::sema::lower
