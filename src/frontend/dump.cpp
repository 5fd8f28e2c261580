// dump(): one node per line, two spaces of indentation per level, children in Python's AST
// field order, ranges as `@line:col-line:col` (end is exclusive). Block fields (body, orelse,
// decorators, params, returns) get a label line. The format is byte-stable: tests and
// `tackc inspect --mode ast` compare it as text.

#include <charconv>
#include <cstdio>

#include "frontend/parser.hpp"

namespace tack::frontend {

namespace {

constexpr const char* kExprNames[] = {
#define TACK_X(n) #n,
    TACK_AST_EXPRS(TACK_X)
#undef TACK_X
};
constexpr const char* kStmtNames[] = {
#define TACK_X(n) #n,
    TACK_AST_STMTS(TACK_X)
#undef TACK_X
};

std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (u < 0x20 || u == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\x%02x", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string shortest(double v) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), v);
    return std::string(buf, r.ptr);
}

class Dumper {
  public:
    Dumper(const diag::SourceFile* file, bool ranges) : file_(file), ranges_(ranges && file) {}

    void function(const FunctionDef& fn, int depth);
    void stmt(const Stmt& s, int depth);
    void expr(const Expr& e, int depth);
    std::string take() { return std::move(out_); }

  private:
    void line(int depth, std::string_view text, SourceRange r, bool with_range = true);
    void label(int depth, const char* name) { line(depth, name, {}, false); }
    void block(int depth, const char* name, const StmtList& body) {
        if (body.empty()) return;
        label(depth, name);
        for (const auto& s : body)
            stmt(*s, depth + 1);
    }
    std::string expr_head(const Expr& e) const;
    void expr_children(const Expr& e, int depth);

    const diag::SourceFile* file_;
    bool ranges_;
    std::string out_;
};

void Dumper::line(int depth, std::string_view text, SourceRange r, bool with_range) {
    out_.append(static_cast<size_t>(depth) * 2, ' ');
    out_ += text;
    if (ranges_ && with_range) {
        out_ += " @" + std::to_string(file_->line_of(r.begin)) + ":" +
                std::to_string(file_->column_of(r.begin)) + "-" +
                std::to_string(file_->line_of(r.end)) + ":" +
                std::to_string(file_->column_of(r.end));
    }
    out_ += '\n';
}

std::string Dumper::expr_head(const Expr& e) const {
    std::string head = kExprNames[static_cast<int>(e.kind)];
    switch (e.kind) {
        case ExprKind::Name:
            return head + " " + e.as<Name>()->id;
        case ExprKind::IntLit: {
            auto* i = e.as<IntLit>();
            return head + " " + (i->overflow ? std::string("overflow") : std::to_string(i->value));
        }
        case ExprKind::FloatLit: {
            auto* f = e.as<FloatLit>();
            return head + " " + f->spelling + " (" + shortest(f->value) + ")";
        }
        case ExprKind::StrLit:
            return head + " " + quoted(e.as<StrLit>()->value);
        case ExprKind::BoolLit:
            return head + (e.as<BoolLit>()->value ? " True" : " False");
        case ExprKind::Unary:
            return head + " " + to_string(e.as<Unary>()->op);
        case ExprKind::Binary:
            return head + " " + to_string(e.as<Binary>()->op);
        case ExprKind::BoolOp:
            return head + (e.as<BoolOp>()->op == BoolOpKind::And ? " And" : " Or");
        case ExprKind::Compare:
            for (CompareOp op : e.as<Compare>()->ops)
                head += std::string(" ") + to_string(op);
            return head;
        case ExprKind::Attribute:
            return head + " ." + e.as<Attribute>()->attr;
        case ExprKind::Unsupported:
            return head + " " + e.as<Unsupported>()->what;
        default:
            return head;
    }
}

void Dumper::expr(const Expr& e, int depth) {
    line(depth, expr_head(e), e.range);
    expr_children(e, depth + 1);
}

void Dumper::expr_children(const Expr& e, int d) {
    switch (e.kind) {
        case ExprKind::Unary:
            return expr(*e.as<Unary>()->operand, d);
        case ExprKind::Binary:
            expr(*e.as<Binary>()->lhs, d);
            return expr(*e.as<Binary>()->rhs, d);
        case ExprKind::BoolOp:
            for (const auto& v : e.as<BoolOp>()->values)
                expr(*v, d);
            return;
        case ExprKind::Compare:
            for (const auto& v : e.as<Compare>()->operands)
                expr(*v, d);
            return;
        case ExprKind::IfExp: {
            auto* i = e.as<IfExp>();
            expr(*i->cond, d);
            expr(*i->then_value, d);
            return expr(*i->else_value, d);
        }
        case ExprKind::Call: {
            auto* c = e.as<Call>();
            expr(*c->func, d);
            for (const auto& a : c->args)
                expr(*a, d);
            for (const auto& k : c->keywords) {
                line(d, "keyword " + (k.name.empty() ? std::string("**") : k.name), k.range);
                expr(*k.value, d + 1);
            }
            return;
        }
        case ExprKind::Attribute:
            return expr(*e.as<Attribute>()->value, d);
        case ExprKind::Subscript:
            expr(*e.as<Subscript>()->value, d);
            for (const auto& i : e.as<Subscript>()->indices)
                expr(*i, d);
            return;
        case ExprKind::Tuple:
            for (const auto& v : e.as<Tuple>()->elts)
                expr(*v, d);
            return;
        case ExprKind::List:
            for (const auto& v : e.as<List>()->elts)
                expr(*v, d);
            return;
        default:
            return;
    }
}

void Dumper::stmt(const Stmt& s, int d) {
    std::string head = kStmtNames[static_cast<int>(s.kind)];
    switch (s.kind) {
        case StmtKind::ExprStmt:
            line(d, head, s.range);
            return expr(*s.as<ExprStmt>()->value, d + 1);
        case StmtKind::Assign:
            line(d, head, s.range);
            for (const auto& t : s.as<Assign>()->targets)
                expr(*t, d + 1);
            return expr(*s.as<Assign>()->value, d + 1);
        case StmtKind::AugAssign:
            line(d, head + " " + to_string(s.as<AugAssign>()->op), s.range);
            expr(*s.as<AugAssign>()->target, d + 1);
            return expr(*s.as<AugAssign>()->value, d + 1);
        case StmtKind::AnnAssign: {
            auto* a = s.as<AnnAssign>();
            line(d, head, s.range);
            expr(*a->target, d + 1);
            expr(*a->annotation, d + 1);
            if (a->value) expr(*a->value, d + 1);
            return;
        }
        case StmtKind::If:
            line(d, head, s.range);
            expr(*s.as<If>()->cond, d + 1);
            block(d + 1, "body", s.as<If>()->body);
            return block(d + 1, "orelse", s.as<If>()->orelse);
        case StmtKind::For:
            line(d, head, s.range);
            expr(*s.as<For>()->target, d + 1);
            expr(*s.as<For>()->iter, d + 1);
            block(d + 1, "body", s.as<For>()->body);
            return block(d + 1, "orelse", s.as<For>()->orelse);
        case StmtKind::While:
            line(d, head, s.range);
            expr(*s.as<While>()->cond, d + 1);
            block(d + 1, "body", s.as<While>()->body);
            return block(d + 1, "orelse", s.as<While>()->orelse);
        case StmtKind::Return:
            line(d, head, s.range);
            if (s.as<Return>()->value) expr(*s.as<Return>()->value, d + 1);
            return;
        case StmtKind::FunctionDef:
            return function(*s.as<FunctionDef>(), d);
        case StmtKind::UnsupportedStmt:
            return line(d, head + " " + s.as<UnsupportedStmt>()->what, s.range);
        default:
            return line(d, head, s.range);
    }
}

void Dumper::function(const FunctionDef& fn, int d) {
    static constexpr const char* kKinds[] = {"kernel", "func", "other"};
    std::string head = "FunctionDef " + fn.name + " " + kKinds[static_cast<int>(fn.def_kind)];
    if (fn.is_async) head += " async";
    line(d, head, fn.range);
    if (!fn.decorators.empty()) {
        label(d + 1, "decorators");
        for (const auto& e : fn.decorators)
            expr(*e, d + 2);
    }
    if (!fn.params.empty()) label(d + 1, "params");
    for (const auto& p : fn.params) {
        std::string text = "Param " + p.name;
        if (!p.rejected_form.empty()) text += " rejected=" + p.rejected_form;
        line(d + 2, text, p.range);
        if (p.annotation) expr(*p.annotation, d + 3);
    }
    if (fn.returns) {
        label(d + 1, "returns");
        expr(*fn.returns, d + 2);
    }
    block(d + 1, "body", fn.body);
}

}  // namespace

std::string dump(const FunctionDef& fn) {
    return dump(fn, true);
}

std::string dump(const FunctionDef& fn, bool with_ranges) {
    Dumper d(fn.file.get(), with_ranges);
    d.function(fn, 0);
    return d.take();
}

std::string dump(const Expr& expr, const diag::SourceFile* file) {
    Dumper d(file, true);
    d.expr(expr, 0);
    return d.take();
}

}  // namespace tack::frontend
