// Vectors and matrices (CONTRACT A28-A33): constructors, broadcasting, the matrix product,
// methods, components and assignable places. Nothing here reaches the IR as a vector: every
// value is a list of scalar component expressions (row-major), so each operation equals the
// per-component scalar operations under the B rules.
#include <algorithm>

#include "ir/printer.hpp"
#include "sema/lower_context.hpp"

namespace tack::sema::lower {

namespace {

constexpr int kMaxMatrix = kMaxMatrixExtent;
constexpr int kMaxVector = kMaxVectorComponents;

ir::ExprPtr i64_imm(int64_t v, SourceRange r) {
    return ir::IntImm::make_i64(v, r);
}

ir::ExprPtr bin(ir::BinaryOp op, ir::ExprPtr a, ir::ExprPtr b, SourceRange r) {
    return ir::Binary::make(op, std::move(a), std::move(b), r);
}

ir::ExprPtr plus(ir::ExprPtr base, int k, SourceRange r) {
    if (k == 0) return base;
    if (const auto* imm = base->as<ir::IntImm>()) return i64_imm(imm->as_signed() + k, r);
    return bin(ir::BinaryOp::Add, std::move(base), i64_imm(k, r), r);
}

// "combines a 2-vector and 3-vector": the two shapes in a fixed order, so the message does not
// depend on which operand came first.
std::string shape_pair(const Shape& a, const Shape& b) {
    std::string x = a.text(), y = b.text();
    if (y < x) std::swap(x, y);
    return "a " + x + " and " + y;
}

// The runtime choice among `c` by `sel` (i64, evaluated once): out of range reads the last (A32).
ir::ExprPtr choose(const ir::ExprPtr& sel, const std::vector<ir::ExprPtr>& c, SourceRange r) {
    ir::ExprPtr acc = c.back();
    for (size_t k = c.size() - 1; k-- > 0;) {
        ir::ExprPtr is_k = ir::Compare::make(ir::CompareOp::Eq, sel, i64_imm(int64_t(k), r), r);
        acc = ir::Select::make(is_k, c[k], acc, r);
    }
    return acc;
}

}  // namespace

// ---- construction -----------------------------------------------------------------------------

Val Lowerer::convert(Val v, DType to) const {
    for (auto& c : v.c)
        c = convert(c, to);
    return v;
}

Val Lowerer::keep(Val v, ir::Block& out) {
    for (auto& c : v.c)
        c = materialize(c, out);
    return v;
}

Val Lowerer::map(const Val& a, const std::function<ir::ExprPtr(ir::ExprPtr)>& f) const {
    Val out{a.shape, {}};
    for (const auto& c : a.c)
        out.c.push_back(f(c));
    return out;
}

Val Lowerer::broadcast(const Val& v, Shape to, ir::Block& out) {
    if (v.shape == to) return v;
    ir::ExprPtr s = to.count() > 1 ? materialize(v.c.at(0), out) : v.c.at(0);
    return Val{to, std::vector<ir::ExprPtr>(static_cast<size_t>(to.count()), s)};
}

Shape Lowerer::common_shape(std::vector<Val>& vals, ir::Block& out, SourceRange r,
                            const std::string& verb) {
    Shape s;
    for (const auto& v : vals) {
        if (v.shape.is_scalar()) continue;
        if (s.is_scalar()) {
            s = v.shape;
        } else if (s != v.shape) {
            fail(ErrorKind::UnsupportedSyntax, verb + " combines " + shape_pair(s, v.shape), r);
        }
    }
    for (auto& v : vals)
        v = broadcast(v, s, out);
    return s;
}

Val Lowerer::zip(const Val& a, const Val& b, ir::Block& out, SourceRange r, const std::string& verb,
                 const std::function<ir::ExprPtr(ir::ExprPtr, ir::ExprPtr)>& f) {
    std::vector<Val> v = {a, b};
    Shape s = common_shape(v, out, r, verb);
    Val res{s, {}};
    for (size_t k = 0; k < v[0].c.size(); ++k)
        res.c.push_back(f(v[0].c[k], v[1].c[k]));
    return res;
}

Val Lowerer::lower_list(const std::vector<const ast::Expr*>& elts, ir::Block& out, Hint hint,
                        SourceRange r, const char* what) {
    if (elts.empty()) fail(ErrorKind::UnsupportedSyntax, std::string(what) + " is empty", r);
    std::vector<Val> vals = lower_values(elts, out, hint);
    Val res;
    if (vals[0].shape.is_scalar()) {
        for (size_t k = 0; k < vals.size(); ++k) {
            if (!vals[k].shape.is_scalar()) {
                fail(ErrorKind::UnsupportedSyntax,
                     std::string(what) + " mixes scalars and " + vals[k].shape.text() + "s",
                     elts[k]->range);
            }
            res.c.push_back(vals[k].c[0]);
        }
        if (res.c.size() > kMaxVector) {
            fail(ErrorKind::UnsupportedSyntax,
                 std::string(what) + " has " + std::to_string(res.c.size()) +
                     " components; vectors have at most " + std::to_string(kMaxVector),
                 r);
        }
        res.shape = Shape{static_cast<int>(res.c.size()), 0};
    } else {
        // Rows: lists or vectors of one length (A28: Matrix([[...]]) and Matrix([u, v])).
        int cols = vals[0].shape.rows;
        for (size_t k = 0; k < vals.size(); ++k) {
            if (!vals[k].shape.is_vector()) {
                fail(ErrorKind::UnsupportedSyntax,
                     std::string(what) + " needs scalars or rows, got a " + vals[k].shape.text(),
                     elts[k]->range);
            }
            if (vals[k].shape.rows != cols) {
                fail(ErrorKind::UnsupportedSyntax,
                     std::string(what) + " has rows of different lengths", r);
            }
            res.c.insert(res.c.end(), vals[k].c.begin(), vals[k].c.end());
        }
        int rows = static_cast<int>(vals.size());
        if (rows > kMaxMatrix || cols > kMaxMatrix) {
            fail(ErrorKind::UnsupportedSyntax,
                 std::string(what) + " is " + std::to_string(rows) + "x" + std::to_string(cols) +
                     "; matrices are at most 4x4",
                 r);
        }
        res.shape = Shape{rows, cols};
    }
    DType t = res.c[0]->type;
    for (const auto& c : res.c)
        t = promote_or_fail(t, c->type, r);
    return convert(res, t);
}

Val Lowerer::constant_value(const Constant& c, Hint hint, SourceRange r) const {
    if (c.kind != Constant::Kind::Tuple) return Val::of(constant_expr(c, hint, r));
    if (c.cols > kMaxMatrix || (c.cols && c.rows > kMaxMatrix)) {
        fail(ErrorKind::UnsupportedSyntax,
             "the constant is a " + Shape{c.rows, c.cols}.text() +
                 ", larger than 4x4 (matrices are at most 4x4; a table of values is a vector "
                 "constant)",
             r);
    }
    Val v{Shape{c.rows, c.cols}, {}};
    for (const Constant& item : c.items)
        v.c.push_back(constant_expr(item, hint, r));
    DType t = v.c[0]->type;
    for (const auto& x : v.c)
        t = promote_or_fail(t, x->type, r);
    return convert(v, t);
}

Val Lowerer::lower_constructor(const ast::Call& e, const std::string& name, ir::Block& out,
                               Hint hint) {
    if (name == "Matrix.identity") {
        auto n = static_int(*e.args[0]);
        if (!n || *n < 1 || *n > kMaxMatrix) {
            type_error("Matrix.identity(n) needs an integer literal n from 1 to 4",
                       e.args[0]->range);
        }
        int k = static_cast<int>(*n);
        DType t = (hint && is_float(*hint)) ? *hint : f32;
        Val v{Shape{k, k}, {}};
        for (int i = 0; i < k * k; ++i)
            v.c.push_back(ir::FloatImm::make(t, i % (k + 1) == 0 ? 1.0 : 0.0, e.range));
        return v;
    }
    const ast::Expr& arg = *e.args[0];
    std::vector<const ast::Expr*> elts;
    if (const auto* l = arg.as<ast::List>()) {
        for (const auto& x : l->elts)
            elts.push_back(x.get());
    } else if (const auto* t = arg.as<ast::Tuple>()) {
        for (const auto& x : t->elts)
            elts.push_back(x.get());
    } else {
        Val v = lower_value(arg, out, hint);  // tack.Vector(v): a copy of a vector value
        if (name == "Vector" ? !v.shape.is_vector() : !v.shape.is_matrix()) {
            type_error("tack." + name + "() takes a list, got a " + v.shape.text(), arg.range);
        }
        return v;
    }
    std::string what = "tack." + name + "([...])";
    Val v = lower_list(elts, out, hint, e.range, what.c_str());
    if (name == "Vector" && !v.shape.is_vector()) {
        fail(ErrorKind::UnsupportedSyntax, what + " needs scalars; use tack.Matrix for rows",
             e.range);
    }
    if (name == "Matrix" && !v.shape.is_matrix()) {
        fail(ErrorKind::UnsupportedSyntax,
             what + " needs rows: tack.Matrix([[a, b], [c, d]]) or tack.Matrix([u, v])", e.range);
    }
    return v;
}

// ---- products and reductions ------------------------------------------------------------------

ir::ExprPtr Lowerer::sum_of(const std::vector<ir::ExprPtr>& terms, SourceRange r) const {
    ir::ExprPtr acc = terms.at(0);
    for (size_t k = 1; k < terms.size(); ++k)
        acc = bin(ir::BinaryOp::Add, acc, terms[k], r);  // index order (A29)
    return acc;
}

ir::ExprPtr Lowerer::dot(const Val& a, const Val& b, SourceRange r) const {
    std::vector<ir::ExprPtr> terms;
    for (size_t k = 0; k < a.c.size(); ++k)
        terms.push_back(arith(ast::BinaryOp::Mul, a.c[k], b.c[k], r));
    return sum_of(terms, r);
}

Val Lowerer::matmul(Val a, Val b, ir::Block& out, SourceRange r) {
    if (a.shape.is_scalar() || b.shape.is_scalar()) {
        fail(ErrorKind::UnsupportedSyntax,
             "operator @ multiplies matrices and vectors, not a " +
                 (a.shape.is_scalar() ? b.shape : a.shape).text() +
                 " and a scalar; use '*' to scale by a scalar",
             r);
    }
    // A vector on the right is a column, on the left a row (A29).
    int ar = a.shape.is_vector() ? 1 : a.shape.rows,
        ac = a.shape.is_vector() ? a.shape.rows : a.shape.cols;
    int br = b.shape.rows, bc = b.shape.is_vector() ? 1 : b.shape.cols;
    if (ac != br) {
        fail(ErrorKind::UnsupportedSyntax,
             "operator @ multiplies a " + a.shape.text() + " by a " + b.shape.text() +
                 ": the inner sizes differ (" + std::to_string(ac) + " and " + std::to_string(br) +
                 ")",
             r);
    }
    a = keep(std::move(a), out);
    b = keep(std::move(b), out);
    Val res;
    for (int i = 0; i < ar; ++i) {
        for (int j = 0; j < bc; ++j) {
            std::vector<ir::ExprPtr> terms;
            for (int k = 0; k < ac; ++k) {
                terms.push_back(
                    arith(ast::BinaryOp::Mul, a.c[size_t(i * ac + k)], b.c[size_t(k * bc + j)], r));
            }
            res.c.push_back(sum_of(terms, r));
        }
    }
    if (a.shape.is_vector() && b.shape.is_vector())
        res.shape = {};
    else if (a.shape.is_vector())
        res.shape = Shape{bc, 0};
    else if (b.shape.is_vector())
        res.shape = Shape{ar, 0};
    else
        res.shape = Shape{ar, bc};
    return res;
}

// ---- methods (A30) ------------------------------------------------------------------------------

namespace {

struct MethodCtx {
    Lowerer& l;
    const ast::Call& e;
    const std::string& name;
    Val v;                  // the receiver, components materialized
    std::vector<Val> args;  // materialized
    ir::Block& out;
    SourceRange r() const { return e.range; }
    [[noreturn]] void bad(const std::string& why) const {
        l.fail(ErrorKind::UnsupportedSyntax, name + "() " + why, e.range);
    }
    void need_vector() const {
        if (!v.shape.is_vector()) bad("needs a vector, not a " + v.shape.text());
    }
    void need_matrix() const {
        if (!v.shape.is_matrix()) bad("needs a matrix, not a " + v.shape.text());
    }
    const Val& same_shape_arg() const {
        if (args[0].shape != v.shape) {
            bad("needs a " + v.shape.text() + " argument, got a " + args[0].shape.text());
        }
        return args[0];
    }
    ir::ExprPtr floats(ir::ExprPtr x) const {
        return is_float(x->type) ? x : l.convert(std::move(x), DType::f32);
    }
    ir::ExprPtr norm_sqr() const { return l.dot(v, v, r()); }
    ir::ExprPtr norm() const {
        ir::ExprPtr s = floats(norm_sqr());
        if (!args.empty()) s = l.arith(ast::BinaryOp::Add, s, l.scalar_of(args[0], r()), r());
        return ir::Call::make(ir::MathFn::Sqrt, {l.convert(s, l.float_result({s}))}, r());
    }
    ir::ExprPtr entry(int i, int j) const { return v.c[size_t(i * v.shape.cols + j)]; }
    ir::ExprPtr mul(ir::ExprPtr a, ir::ExprPtr b) const {
        return l.arith(ast::BinaryOp::Mul, std::move(a), std::move(b), r());
    }
    ir::ExprPtr sub(ir::ExprPtr a, ir::ExprPtr b) const {
        return l.arith(ast::BinaryOp::Sub, std::move(a), std::move(b), r());
    }
    // The cofactor of entry (i, j) of a 2x2 or 3x3 matrix.
    ir::ExprPtr cofactor(int i, int j) const {
        int n = v.shape.rows;
        if (n == 2) {
            ir::ExprPtr m = entry(1 - i, 1 - j);
            return (i + j) % 2 ? l.unary(ast::UnaryOp::Neg, m, r()) : m;
        }
        int r0 = (i + 1) % 3, r1 = (i + 2) % 3, c0 = (j + 1) % 3, c1 = (j + 2) % 3;
        // The cyclic order of rows and columns gives the sign of the 3x3 cofactor directly.
        return sub(mul(entry(r0, c0), entry(r1, c1)), mul(entry(r0, c1), entry(r1, c0)));
    }
    ir::ExprPtr determinant() const {
        int n = v.shape.rows;
        if (!v.shape.is_matrix() || n != v.shape.cols || n < 2 || n > 3) {
            bad("needs a 2x2 or 3x3 matrix, not a " + v.shape.text());
        }
        if (n == 2) return sub(mul(entry(0, 0), entry(1, 1)), mul(entry(0, 1), entry(1, 0)));
        std::vector<ir::ExprPtr> terms;
        for (int j = 0; j < 3; ++j)
            terms.push_back(mul(entry(0, j), cofactor(0, j)));
        return l.sum_of(terms, r());
    }
};

using MethodFn = Val (*)(MethodCtx&);

Val fold(MethodCtx& m, ir::BinaryOp op) {
    ir::ExprPtr acc = m.v.c[0];
    for (size_t k = 1; k < m.v.c.size(); ++k)
        acc = bin(op, acc, m.v.c[k], m.r());
    return Val::of(acc);
}

// The semantics of each method of builtins::methods() (which holds arity and receiver).
const std::map<std::string_view, MethodFn>& method_impls() {
    static const std::map<std::string_view, MethodFn> kImpls = {
        {"norm", [](MethodCtx& m) { return Val::of(m.norm()); }},
        {"norm_sqr", [](MethodCtx& m) { return Val::of(m.norm_sqr()); }},
        {"sum", [](MethodCtx& m) { return Val::of(m.l.sum_of(m.v.c, m.r())); }},
        {"min", [](MethodCtx& m) { return fold(m, ir::BinaryOp::Min); }},
        {"max", [](MethodCtx& m) { return fold(m, ir::BinaryOp::Max); }},
        {"dot",
         [](MethodCtx& m) {
             m.need_vector();
             return Val::of(m.l.dot(m.v, m.same_shape_arg(), m.r()));
         }},
        {"cross",
         [](MethodCtx& m) {
             m.need_vector();
             const Val& w = m.same_shape_arg();
             if (m.v.shape.rows != 3) m.bad("needs 3-vectors, not a " + m.v.shape.text());
             auto c = [&](int i, int j) {
                 return m.sub(m.mul(m.v.c[size_t(i)], w.c[size_t(j)]),
                              m.mul(m.v.c[size_t(j)], w.c[size_t(i)]));
             };
             return Val{Shape{3, 0}, {c(1, 2), c(2, 0), c(0, 1)}};
         }},
        {"normalized",
         [](MethodCtx& m) {
             m.need_vector();
             // normalized(eps) divides by norm() + eps (A30).
             std::vector<Val> none;
             MethodCtx plain{m.l, m.e, m.name, m.v, none, m.out};
             ir::ExprPtr n = plain.norm();
             if (!m.args.empty())
                 n = m.l.arith(ast::BinaryOp::Add, n, m.l.scalar_of(m.args[0], m.r()), m.r());
             n = m.l.materialize(n, m.out);
             return m.l.map(
                 m.v, [&](ir::ExprPtr x) { return m.l.arith(ast::BinaryOp::Div, x, n, m.r()); });
         }},
        {"outer_product",
         [](MethodCtx& m) {
             m.need_vector();
             const Val& w = m.args[0];
             if (!w.shape.is_vector()) m.bad("needs a vector argument, got a " + w.shape.text());
             if (m.v.shape.rows > 4 || w.shape.rows > 4) m.bad("gives at most a 4x4 matrix");
             Val res{Shape{m.v.shape.rows, w.shape.rows}, {}};
             for (const auto& a : m.v.c)
                 for (const auto& b : w.c)
                     res.c.push_back(m.mul(a, b));
             return res;
         }},
        {"transpose",
         [](MethodCtx& m) {
             m.need_matrix();
             Val res{Shape{m.v.shape.cols, m.v.shape.rows}, {}};
             for (int j = 0; j < m.v.shape.cols; ++j)
                 for (int i = 0; i < m.v.shape.rows; ++i)
                     res.c.push_back(m.entry(i, j));
             return res;
         }},
        {"trace",
         [](MethodCtx& m) {
             m.need_matrix();
             if (m.v.shape.rows != m.v.shape.cols)
                 m.bad("needs a square matrix, not a " + m.v.shape.text());
             std::vector<ir::ExprPtr> d;
             for (int i = 0; i < m.v.shape.rows; ++i)
                 d.push_back(m.entry(i, i));
             return Val::of(m.l.sum_of(d, m.r()));
         }},
        {"determinant", [](MethodCtx& m) { return Val::of(m.determinant()); }},
        {"inverse",
         [](MethodCtx& m) {
             int n = m.v.shape.rows;
             if (!m.v.shape.is_matrix() || n != m.v.shape.cols) {
                 m.bad("needs a square matrix, not a " + m.v.shape.text());
             }
             if (n < 2 || n > 3) m.bad("needs a 2x2 or 3x3 matrix, not a " + m.v.shape.text());
             // The adjugate divided by the determinant, unchecked (A30).
             ir::ExprPtr det = m.l.materialize(m.floats(m.determinant()), m.out);
             Val res{m.v.shape, {}};
             for (int i = 0; i < n; ++i)
                 for (int j = 0; j < n; ++j)
                     res.c.push_back(
                         m.l.arith(ast::BinaryOp::Div, m.floats(m.cofactor(j, i)), det, m.r()));
             return res;
         }},
    };
    return kImpls;
}

}  // namespace

Val Lowerer::lower_method(const ast::Call& e, const ast::Attribute& callee, ir::Block& out,
                          Hint hint) {
    const std::string& name = callee.attr;
    const builtins::Method* method = builtins::find_method(name);
    auto it = method_impls().find(name);
    if (method && method->receiver == builtins::Receiver::Texture) {
        fail(ErrorKind::UnsupportedSyntax,
             name + "() is a texture method; '" + dotted(*callee.value) + "' is not a texture",
             e.range);
    }
    if (!method || it == method_impls().end()) {
        fail(ErrorKind::UnsupportedSyntax,
             "call to '" + (dotted(*e.func).empty() ? "<expression>." + name : dotted(*e.func)) +
                 "' is not a statically bound @tack.func, a supported kernel intrinsic or a "
                 "vector or matrix method",
             e.range);
    }
    Val v = lower_value(*callee.value, out, hint);
    if (v.shape.is_scalar()) {
        fail(ErrorKind::UnsupportedSyntax,
             "method " + name + "() needs a vector or matrix, not a scalar", e.range);
    }
    std::vector<const ast::Expr*> es;
    for (const auto& a : e.args)
        es.push_back(a.get());
    std::vector<Val> args = lower_values(es, out, is_float(v.type()) ? Hint(v.type()) : hint);
    MethodCtx m{*this, e, name, keep(std::move(v), out), {}, out};
    for (auto& a : args)
        m.args.push_back(keep(std::move(a), out));
    check_arity(e, method->signature);
    if (method->receiver == builtins::Receiver::Vector) m.need_vector();
    if (method->receiver == builtins::Receiver::Matrix) m.need_matrix();
    return it->second(m);
}

// ---- components (A32) ---------------------------------------------------------------------------

namespace {

// Static or runtime component selection over a shape: the flat component index, either known
// (`fixed`) or an i64 expression evaluated once (`sel`).
struct Selection {
    std::optional<int> fixed;
    ir::ExprPtr sel;
};

}  // namespace

static Selection select_component(Lowerer& l, const Shape& shape, const ast::Subscript& s,
                                  ir::Block& out, const std::string& what) {
    auto es = l.index_list(s);
    int want = shape.is_matrix() ? 2 : 1;
    if (static_cast<int>(es.size()) != want) {
        if (shape.is_matrix()) {
            l.fail(ErrorKind::UnsupportedSyntax,
                   what + ": an entry of a " + shape.text() + " needs a row and a column: m[i, j]",
                   s.range);
        }
        l.fail(ErrorKind::UnsupportedSyntax,
               what + ": a " + shape.text() + " takes one component index", s.range);
    }
    int extents[2] = {shape.rows, shape.is_matrix() ? shape.cols : 1};
    std::vector<std::optional<int>> fixed;
    bool all_fixed = true;
    for (size_t d = 0; d < es.size(); ++d) {
        auto k = l.static_int(*es[d]);
        if (k) {
            __int128 v = *k < 0 ? *k + extents[d] : *k;
            if (v < 0 || v >= extents[d]) {
                l.type_error("index " + std::to_string(static_cast<long long>(*k)) +
                                 " is out of range for a " + shape.text(),
                             es[d]->range);
            }
            fixed.push_back(static_cast<int>(v));
        } else {
            fixed.push_back(std::nullopt);
            all_fixed = false;
        }
    }
    Selection out_sel;
    if (all_fixed) {
        out_sel.fixed = want == 2 ? *fixed[0] * extents[1] + *fixed[1] : *fixed[0];
        return out_sel;
    }
    std::vector<ir::ExprPtr> idx;
    for (size_t d = 0; d < es.size(); ++d) {
        if (fixed[d]) {
            idx.push_back(ir::IntImm::make_i64(*fixed[d], es[d]->range));
            continue;
        }
        ir::ExprPtr x = l.lower_expr(*es[d], out);
        if (!is_integer(x->type)) {
            l.type_error(std::string("a component index must be an integer, got ") + name(x->type),
                         es[d]->range);
        }
        idx.push_back(l.convert(x, DType::i64));
    }
    ir::ExprPtr flat = idx[0];
    if (want == 2) {
        // An out-of-range column must not land in the next row: it selects nothing (reads the
        // last entry), like any other out-of-range index.
        ir::ExprPtr col_ok = ir::Compare::make(
            ir::CompareOp::Lt, ir::Cast::make(DType::u64, idx[1], s.range),
            ir::IntImm::make(DType::u64, static_cast<uint64_t>(extents[1]), s.range), s.range);
        flat =
            bin(ir::BinaryOp::Add,
                bin(ir::BinaryOp::Mul, idx[0], ir::IntImm::make_i64(extents[1], s.range), s.range),
                idx[1], s.range);
        flat = ir::Select::make(col_ok, flat, ir::IntImm::make_i64(-1, s.range), s.range);
    }
    out_sel.sel = l.materialize(flat, out);
    return out_sel;
}

ir::TablePtr Lowerer::table_for(const Val& v) {
    std::string key = name(v.type());
    for (const auto& c : v.c)
        key += " " + ir::print(c);
    auto& t = tables_[key];
    if (!t)
        t = std::make_shared<const ir::Table>(
            ir::Table{v.type(), v.c, static_cast<int>(tables_.size()) - 1});
    return t;
}

Val Lowerer::component(const Val& v, const ast::Subscript& s, ir::Block& out, bool as_table) {
    Selection sel = select_component(*this, v.shape, s, out, "indexing a " + v.shape.text());
    if (sel.fixed) return Val::of(v.c[size_t(*sel.fixed)]);
    bool immediates = std::all_of(v.c.begin(), v.c.end(), [](const ir::ExprPtr& c) {
        return c->as<ir::IntImm>() || c->as<ir::FloatImm>();
    });
    if (as_table && immediates) return Val::of(ir::TableLoad::make(table_for(v), sel.sel, s.range));
    return Val::of(choose(sel.sel, v.c, s.range));
}

Val Lowerer::named_component(const Val& v, const std::string& attr, SourceRange r) const {
    static const std::string kNames = "xyzw";
    size_t k = attr.size() == 1 ? kNames.find(attr[0]) : std::string::npos;
    if (v.shape.is_matrix() && k != std::string::npos) {
        fail(ErrorKind::UnsupportedSyntax,
             "'" + attr + "' names a component of a vector; a matrix entry is m[i, j]", r);
    }
    if (v.shape.is_scalar()) {
        fail(ErrorKind::UnsupportedSyntax, "attribute '" + attr + "' of a scalar value", r);
    }
    if (k == std::string::npos || v.shape.is_matrix()) {
        fail(ErrorKind::UnsupportedSyntax,
             "a " + v.shape.text() + " has no attribute '" + attr + "' (components: .x .y .z .w)",
             r);
    }
    if (static_cast<int>(k) >= v.shape.rows) {
        fail(ErrorKind::UnsupportedSyntax, "'" + attr + "' is out of range for a " + v.shape.text(),
             r);
    }
    return Val::of(v.c[k]);
}

// ---- places (assignment targets, field elements)
// -------------------------------------------------

Place Lowerer::place_of(const ast::Expr& target, ir::Block& out) {
    if (const auto* n = target.as<ast::Name>()) {
        auto it = scope_->names.find(n->id);
        if (it == scope_->names.end() ||
            (!it->second.is(Type::Kind::Scalar) && !it->second.has_components())) {
            fail(ErrorKind::NameError, "name '" + n->id + "' is not defined here", target.range);
        }
        const Binding& b = it->second;
        Place p;
        p.what = "'" + n->id + "'";
        p.key = b.key;
        p.shape = b.shape();
        p.vars = b.has_components() ? b.vars : std::vector<ir::VarPtr>{b.var};
        for (int k = 0; k < p.shape.count(); ++k)
            p.comps.push_back(k);
        return p;
    }
    if (const auto* s = target.as<ast::Subscript>()) {
        if (const auto* attr = s->value->as<ast::Attribute>(); attr && attr->attr == "shape") {
            if (array_binding(*attr->value)) {
                fail(ErrorKind::UnsupportedSyntax, "cannot assign to a shape", target.range);
            }
        }
        if (const Binding* a = array_binding(*s->value)) {
            if (a->is(Type::Kind::Texture)) {
                fail(ErrorKind::UnsupportedSyntax,
                     "a texture is a snapshot, read with tex.sample(u, v, w); it is not indexed "
                     "or written (write its field and call tex.update())",
                     target.range);
            }
            ir::ExprPtr flat = flat_index(*a, field_indices(*s, out), s->range);
            int count = a->shape().count();
            Place p;
            p.what = "field '" + a->buffer->name + "'";
            p.shape = a->shape();
            p.buffer = a->buffer;
            if (count > 1) flat = bin(ir::BinaryOp::Mul, flat, i64_imm(count, s->range), s->range);
            // The index is evaluated once, whatever reads and writes the place (B25).
            p.base = count > 1 || has_load(*flat) ? materialize(flat, out) : flat;
            for (int k = 0; k < count; ++k)
                p.comps.push_back(k);
            return p;
        }
        return narrow(place_of(*s->value, out), *s, out);
    }
    if (const auto* a = target.as<ast::Attribute>()) {
        Place p = place_of(*a->value, out);
        if (p.sel || p.shape.is_scalar()) {
            fail(ErrorKind::UnsupportedSyntax, "attribute '" + a->attr + "' of a scalar value",
                 target.range);
        }
        Val probe{p.shape, std::vector<ir::ExprPtr>(size_t(p.shape.count()), i64_imm(0, a->range))};
        named_component(probe, a->attr, target.range);  // the shape checks and their messages
        static const std::string kNames = "xyzw";
        int k = static_cast<int>(kNames.find(a->attr[0]));
        p.comps = {p.comps[size_t(k)]};
        p.shape = {};
        return p;
    }
    fail(ErrorKind::UnsupportedSyntax, "unsupported assignment target", target.range);
}

Place Lowerer::narrow(Place p, const ast::Subscript& s, ir::Block& out) {
    if (p.sel || p.shape.is_scalar()) {
        type_error(
            "subscript of a scalar value (only fields, arrays, vectors and matrices can be "
            "indexed)",
            s.range);
    }
    Selection sel = select_component(*this, p.shape, s, out, "indexing " + p.what);
    p.shape = {};
    if (sel.fixed) {
        p.comps = {p.comps[size_t(*sel.fixed)]};
    } else {
        p.sel = sel.sel;
    }
    return p;
}

Val Lowerer::read(const Place& p, SourceRange r) const {
    std::vector<ir::ExprPtr> c;
    for (int k : p.comps) {
        if (p.buffer) {
            c.push_back(ir::Load::make(p.buffer, plus(p.base, k, r), r));
        } else {
            c.push_back(ir::VarRef::make(p.vars[size_t(k)], r));
        }
    }
    if (p.sel) return Val::of(choose(p.sel, c, r));
    return Val{p.shape, std::move(c)};
}

void Lowerer::write(const Place& p, Val v, ir::Block& out, SourceRange r) {
    if (v.shape != p.shape) {
        if (!v.shape.is_scalar()) {
            std::string into = p.buffer ? "into a field of " + p.shape.text() + " elements"
                                        : "into " + p.what + ", a " + p.shape.text();
            fail(ErrorKind::UnsupportedSyntax,
                 "the assignment stores a " + v.shape.text() + " " + into, r);
        }
        v = broadcast(v, p.shape, out);  // A33: a scalar sets every component
    }
    // A33: every component of the value is evaluated before any is stored.
    if (v.c.size() > 1) {
        for (auto& c : v.c) {
            if (!c->as<ir::IntImm>() && !c->as<ir::FloatImm>()) c = spill(c, out);
        }
    }
    auto store = [&](int comp, ir::ExprPtr x, ir::Block& to) {
        if (p.buffer) {
            to.push_back(
                ir::Store::make(p.buffer, plus(p.base, comp, r), convert(x, p.buffer->elem), r));
            return;
        }
        const ir::VarPtr& var = p.vars[size_t(comp)];
        if (!p.key.empty()) {
            types_.record(p.key, {std::optional<DType>(x->type), r, scope_->file, scope_->prefix});
        }
        to.push_back(ir::Assign::make(var, convert(x, var->type), r));
    };
    if (!p.sel) {
        for (size_t k = 0; k < p.comps.size(); ++k)
            store(p.comps[k], v.c[k], out);
        return;
    }
    // A runtime component: out of range writes nothing (A32).
    ir::ExprPtr x = materialize(v.c[0], out);
    for (size_t k = 0; k < p.comps.size(); ++k) {
        ir::ExprPtr is_k = ir::Compare::make(ir::CompareOp::Eq, p.sel, i64_imm(int64_t(k), r), r);
        ir::Block then;
        store(p.comps[k], x, then);
        out.push_back(ir::If::make(is_k, std::move(then), {}, r));
    }
}

// ---- any / all (A31)
// ------------------------------------------------------------------------------

Val Lowerer::lower_any_all(const ast::Call& e, const std::string& name, ir::Block& out) {
    Val v = lower_value(*e.args[0], out);
    if (v.shape.is_scalar()) {
        fail(ErrorKind::UnsupportedSyntax,
             name + "() of a scalar: a scalar is already a truth value (use it directly)", e.range);
    }
    auto op = name == "any" ? ir::BinaryOp::BitOr : ir::BinaryOp::BitAnd;
    ir::ExprPtr acc = truth(v.c[0]);
    for (size_t k = 1; k < v.c.size(); ++k)
        acc = bin(op, acc, truth(v.c[k]), e.range);
    return Val::of(acc);
}

}  // namespace tack::sema::lower
