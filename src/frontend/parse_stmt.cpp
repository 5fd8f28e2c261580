// Statements inside a kernel or device function:
//
//   funcdef    := ['async'] 'def' NAME '(' [params] ')' ['->' expression] ':' block
//   block      := NEWLINE INDENT statement+ DEDENT | simple_stmts
//   statement  := compound | simple_stmts
//   compound   := if | while | for | funcdef | decorated | class | try | with | match | async
//   simple_stmts := small (';' small)* [';'] NEWLINE
//   small      := 'pass' | 'break' | 'continue' | 'return' [star_expressions]
//               | import | from | assert | raise | del | global | nonlocal    (kept as rejected)
//               | targets '=' ... | target augop value | target ':' ann ['=' value] | expression
//
// Statements Tack rejects whole (try, with, class, ...) are skipped by tokens and kept as an
// UnsupportedStmt naming Python's AST class, with the statement's range.

#include "frontend/parser_impl.hpp"

namespace tack::frontend {

namespace {

struct AugInfo {
    Tok tok;
    BinaryOp op;
};

constexpr AugInfo kAugOps[] = {
    {Tok::PlusEq, BinaryOp::Add},          {Tok::MinusEq, BinaryOp::Sub},
    {Tok::StarEq, BinaryOp::Mul},          {Tok::SlashEq, BinaryOp::Div},
    {Tok::FloorDivEq, BinaryOp::FloorDiv}, {Tok::PercentEq, BinaryOp::Mod},
    {Tok::PowEq, BinaryOp::Pow},           {Tok::LShiftEq, BinaryOp::LShift},
    {Tok::RShiftEq, BinaryOp::RShift},     {Tok::AmpEq, BinaryOp::BitAnd},
    {Tok::PipeEq, BinaryOp::BitOr},        {Tok::CaretEq, BinaryOp::BitXor},
    {Tok::AtEq, BinaryOp::MatMul},
};

struct SimpleRejected {
    Tok tok;
    const char* what;
};

constexpr SimpleRejected kRejectedSimple[] = {
    {Tok::KwImport, "Import"},     {Tok::KwFrom, "ImportFrom"}, {Tok::KwAssert, "Assert"},
    {Tok::KwRaise, "Raise"},       {Tok::KwDel, "Delete"},      {Tok::KwGlobal, "Global"},
    {Tok::KwNonlocal, "Nonlocal"},
};

const char* target_description(const Expr& e) {
    switch (e.kind) {
        case ExprKind::IntLit:
        case ExprKind::FloatLit:
        case ExprKind::StrLit:
        case ExprKind::BoolLit:
            return "literal";
        case ExprKind::NoneLit:
            return "None";
        case ExprKind::Compare:
            return "comparison";
        case ExprKind::IfExp:
            return "conditional expression";
        case ExprKind::Call:
            return "function call";
        case ExprKind::Tuple:
            return "tuple";
        case ExprKind::List:
            return "list";
        case ExprKind::Unsupported:
            return static_cast<const Unsupported&>(e).what.c_str();
        default:
            return "expression";
    }
}

template <class T>
std::unique_ptr<T> make(uint32_t begin, uint32_t end) {
    return std::make_unique<T>(SourceRange{begin, end});
}

}  // namespace

/// The definition's range starts at `def` (or `async`), as Python's; decorators have their own.
std::unique_ptr<FunctionDef> Parser::function_def(std::vector<ExprPtr> decorators) {
    uint32_t begin = peek().begin;
    bool is_async = accept(Tok::KwAsync);
    const Token& kw = expect(Tok::KwDef, nullptr);
    const Token& name = expect(Tok::Name, "after 'def'");
    auto fn = make<FunctionDef>(begin, begin);
    fn->name = text(name);
    fn->name_range = SourceRange{name.begin, name.end};
    fn->decorators = std::move(decorators);
    fn->is_async = is_async;
    fn->file = file_;
    expect(Tok::LPar, "after the function name");
    parameters(*fn);
    expect(Tok::RPar, "after the parameters");
    if (accept(Tok::Arrow)) fn->returns = expression();
    expect(Tok::Colon, "after the function signature");
    fn->body = block(kw);
    fn->range.end = prev_end();
    return fn;
}

/// Plain `name[: annotation]` parameters; the other forms are kept with a rejected_form.
void Parser::parameters(FunctionDef& fn) {
    bool keyword_only = false;
    while (!at(Tok::RPar)) {
        uint32_t begin = peek().begin;
        if (accept(Tok::Slash)) {
            for (auto& p : fn.params) {
                if (p.rejected_form.empty()) p.rejected_form = "positional-only";
            }
        } else if ((at(Tok::Star) || at(Tok::Pow)) && !peek(1).is(Tok::Name)) {
            if (!at(Tok::Star)) fail_unexpected(peek(1));
            next();  // bare `*`: the parameters after it are keyword-only
            keyword_only = true;
        } else {
            const char* form = "";
            if (accept(Tok::Star)) form = "*args";
            if (accept(Tok::Pow)) form = "**kwargs";
            const Token& name = expect(Tok::Name, "in the parameter list");
            Param p;
            p.name = text(name);
            if (accept(Tok::Colon)) p.annotation = expression();
            bool has_default = form[0] == '\0' && accept(Tok::Eq);
            if (has_default) expression();
            if (form[0] == '\0' && keyword_only) form = "keyword-only";
            if (form[0] == '\0' && has_default) form = "default value";
            if (form[0] == '*' && form[1] == 'a') keyword_only = true;
            p.rejected_form = form;
            p.range = SourceRange{begin, prev_end()};
            fn.params.push_back(std::move(p));
        }
        if (!accept(Tok::Comma)) break;
    }
}

StmtList Parser::block(const Token& header) {
    StmtList body;
    if (!accept(Tok::Newline)) {
        simple_statements(body);
        return body;
    }
    if (!at(Tok::Indent)) {
        std::string what = header.is(Tok::KwDef) ? std::string("function definition")
                                                 : "'" + std::string(text(header)) + "' statement";
        // At the end of the file there is no line to point at: Python names the header's.
        size_t k = 0;
        while (peek(k).is(Tok::Dedent))
            ++k;
        const Token& where = peek(k).is(Tok::EndMarker) ? header : peek();
        fail(where, "expected an indented block after " + what + " on line " + line_of(header));
    }
    Nest guard(*this);
    next();
    while (!at(Tok::Dedent) && !at(Tok::EndMarker))
        statement(body);
    accept(Tok::Dedent);
    return body;
}

void Parser::statement(StmtList& out) {
    if (at(Tok::Indent)) fail_unexpected(peek());
    if (StmtPtr s = compound_statement()) {
        out.push_back(std::move(s));
        return;
    }
    simple_statements(out);
}

/// `match x:` with a block is a match statement; `match(x)` or `match = 1` use a plain name.
bool Parser::is_match_statement() const {
    if (!at(Tok::Name) || text(peek()) != "match") return false;
    Tok after = peek(1).kind;
    if (after == Tok::Eq || after == Tok::Colon || after == Tok::Dot || after == Tok::Newline) {
        return false;
    }
    size_t i = pos_ + 1;
    while (i < toks_.size() && !toks_[i].is(Tok::Newline) && !toks_[i].is(Tok::EndMarker))
        ++i;
    return i + 1 < toks_.size() && toks_[i - 1].is(Tok::Colon) && toks_[i + 1].is(Tok::Indent);
}

StmtPtr Parser::compound_statement() {
    switch (peek().kind) {
        case Tok::KwIf:
            return if_statement();
        case Tok::KwWhile:
            return while_statement();
        case Tok::KwFor:
            return for_statement();
        case Tok::KwDef:
            return function_def({});
        case Tok::At:
            return decorated_statement();
        case Tok::KwClass:
            return unsupported_compound("ClassDef");
        case Tok::KwTry:
            return unsupported_compound("Try");
        case Tok::KwWith:
            return unsupported_compound("With");
        case Tok::KwAsync:
            if (peek(1).is(Tok::KwDef)) return function_def({});
            if (peek(1).is(Tok::KwFor)) return unsupported_compound("AsyncFor");
            if (peek(1).is(Tok::KwWith)) return unsupported_compound("AsyncWith");
            fail_unexpected(peek(1));
        default:
            break;
    }
    if (is_match_statement()) return unsupported_compound("Match");
    return nullptr;
}

StmtPtr Parser::if_statement() {
    Nest guard(*this, 0);  // an elif chain nests If nodes
    const Token& kw = next();
    ExprPtr cond = named_expression();
    expect(Tok::Colon, kw.is(Tok::KwIf) ? "after 'if' condition" : "after 'elif' condition");
    auto s = make<If>(kw.begin, kw.begin);
    s->cond = std::move(cond);
    s->body = block(kw);
    if (at(Tok::KwElif)) {
        s->orelse.push_back(if_statement());
    } else if (at(Tok::KwElse)) {
        s->orelse = else_block();
    }
    s->range.end = prev_end();
    return s;
}

StmtList Parser::else_block() {
    const Token& kw = next();
    expect(Tok::Colon, "after 'else'");
    return block(kw);
}

StmtPtr Parser::while_statement() {
    const Token& kw = next();
    auto s = make<While>(kw.begin, kw.begin);
    s->cond = named_expression();
    expect(Tok::Colon, "after 'while' condition");
    s->body = block(kw);
    if (at(Tok::KwElse)) s->orelse = else_block();
    s->range.end = prev_end();
    return s;
}

StmtPtr Parser::for_statement() {
    const Token& kw = next();
    auto s = make<For>(kw.begin, kw.begin);
    s->target = target_list();
    check_target(*s->target, "");
    expect(Tok::KwIn, "after 'for' target");
    s->iter = star_expressions();
    expect(Tok::Colon, "after 'for' iterable");
    s->body = block(kw);
    if (at(Tok::KwElse)) s->orelse = else_block();
    s->range.end = prev_end();
    return s;
}

/// Decorators inside a body: a decorated nested def (rejected by sema) or class (rejected here).
StmtPtr Parser::decorated_statement() {
    size_t first = pos_;
    std::vector<ExprPtr> decorators;
    while (accept(Tok::At)) {
        decorators.push_back(named_expression());
        expect(Tok::Newline, "after decorator");
    }
    if (at(Tok::KwDef) || (at(Tok::KwAsync) && peek(1).is(Tok::KwDef))) {
        return function_def(std::move(decorators));
    }
    if (!at(Tok::KwClass))
        fail(peek(), "invalid syntax: expected 'def' or 'class' after decorators");
    pos_ = first;
    return unsupported_compound("ClassDef");
}

StmtPtr Parser::unsupported_compound(const char* what) {
    uint32_t begin = peek().begin;
    while (at(Tok::At))
        skip_simple_statement();
    skip_statement();
    auto s = make<UnsupportedStmt>(begin, prev_end());
    s->what = what;
    return s;
}

StmtPtr Parser::unsupported_simple(const char* what) {
    uint32_t begin = peek().begin;
    while (!at(Tok::Newline) && !at(Tok::Semi) && !at(Tok::EndMarker))
        next();
    auto s = make<UnsupportedStmt>(begin, prev_end());
    s->what = what;
    return s;
}

void Parser::simple_statements(StmtList& out) {
    do {
        small_statement(out);
    } while (accept(Tok::Semi) && !at(Tok::Newline));
    if (!at(Tok::Newline)) fail_unexpected(peek());
    next();
}

void Parser::small_statement(StmtList& out) {
    const Token& t = peek();
    for (const auto& r : kRejectedSimple) {
        if (t.kind == r.tok) return out.push_back(unsupported_simple(r.what));
    }
    // Python 3.12's `type X = ...` alias statement.
    if (t.is(Tok::Name) && text(t) == "type" && peek(1).is(Tok::Name) &&
        (peek(2).is(Tok::Eq) || peek(2).is(Tok::LSqb))) {
        return out.push_back(unsupported_simple("TypeAlias"));
    }
    switch (t.kind) {
        case Tok::KwPass:
            next();
            return out.push_back(make<Pass>(t.begin, t.end));
        case Tok::KwBreak:
            next();
            return out.push_back(make<Break>(t.begin, t.end));
        case Tok::KwContinue:
            next();
            return out.push_back(make<Continue>(t.begin, t.end));
        case Tok::KwReturn: {
            next();
            auto r = make<Return>(t.begin, t.end);
            if (starts_expression(peek())) r->value = star_expressions();
            r->range.end = prev_end();
            return out.push_back(std::move(r));
        }
        default:
            return out.push_back(expression_statement());
    }
}

StmtPtr Parser::expression_statement() {
    uint32_t begin = peek().begin;
    ExprPtr first = yield_or_star_expressions();
    if (at(Tok::Eq)) {
        auto s = make<Assign>(begin, begin);
        check_target(*first, "");
        s->targets.push_back(std::move(first));
        while (accept(Tok::Eq)) {
            ExprPtr value = yield_or_star_expressions();
            if (!at(Tok::Eq)) {
                s->value = std::move(value);
                break;
            }
            check_target(*value, "");
            s->targets.push_back(std::move(value));
        }
        s->range.end = prev_end();
        return s;
    }
    for (const auto& a : kAugOps) {
        if (!at(a.tok)) continue;
        check_target(*first, "augmented assignment");
        next();
        auto s = make<AugAssign>(begin, begin);
        s->target = std::move(first);
        s->op = a.op;
        s->value = yield_or_star_expressions();
        s->range.end = prev_end();
        return s;
    }
    if (accept(Tok::Colon)) {
        check_target(*first, "annotation");
        auto s = make<AnnAssign>(begin, begin);
        s->target = std::move(first);
        s->annotation = expression();
        if (accept(Tok::Eq)) s->value = yield_or_star_expressions();
        s->range.end = prev_end();
        return s;
    }
    auto s = make<ExprStmt>(begin, prev_end());
    s->value = std::move(first);
    return s;
}

/// Assignment targets: names, attributes, subscripts and (for plain assignment and `for`)
/// tuples/lists of targets, possibly starred. `context` names a statement that allows only a
/// single target ("augmented assignment", "annotation").
void Parser::check_target(const Expr& e, const char* context) const {
    bool single = context[0] != '\0';
    switch (e.kind) {
        case ExprKind::Name:
        case ExprKind::Attribute:
        case ExprKind::Subscript:
            return;
        case ExprKind::Tuple:
        case ExprKind::List:
            if (single) break;
            for (const auto& elt :
                 e.kind == ExprKind::Tuple ? e.as<Tuple>()->elts : e.as<List>()->elts) {
                check_target(*elt, context);
            }
            return;
        case ExprKind::Unsupported:
            if (!single && e.as<Unsupported>()->what == "Starred") return;
            break;
        default:
            break;
    }
    std::string desc = target_description(e);
    if (single) {
        fail_range(e.range, "'" + desc + "' is an illegal target for " + context);
    }
    fail_range(e.range, "cannot assign to " + desc);
}

}  // namespace tack::frontend
