// Expressions, Python's grammar from loosest to tightest binding:
//
//   star_expressions := star_expression (',' star_expression)* [',']
//   star_expression  := '*' bitor | expression
//   named_expression := NAME ':=' expression | expression
//   expression       := lambda | disjunction ['if' disjunction 'else' expression]
//   disjunction      := conjunction ('or' conjunction)*
//   conjunction      := inversion ('and' inversion)*
//   inversion        := 'not' inversion | comparison
//   comparison       := bitor (compare_op bitor)*        -- a chain: a < b <= c
//   bitor .. term    := binary operators by precedence, all left-associative:
//                       | < ^ < & < << >> < + - < * / // % @
//   factor           := ('+' | '-' | '~') factor | power
//   power            := await_primary ['**' factor]      -- right-assoc; -2**2 == -(2**2)
//   await_primary    := 'await' primary | primary
//   primary          := atom ('.' NAME | '(' args ')' | '[' slices ']')*
//   atom             := NAME | literal | strings | tuple/group/genexp | list/listcomp | dict/set
//
// Constructs the kernel language rejects are parsed completely (so that the tokens are consumed
// and syntax errors are found) and become Unsupported nodes named like Python's AST classes.

#include "frontend/literals.hpp"
#include "frontend/parser_impl.hpp"

namespace tack::frontend {

namespace {

struct BinaryInfo {
    Tok tok;
    BinaryOp op;
    int prec;
};

constexpr BinaryInfo kBinaryOps[] = {
    {Tok::Pipe, BinaryOp::BitOr, 1},    {Tok::Caret, BinaryOp::BitXor, 2},
    {Tok::Amp, BinaryOp::BitAnd, 3},    {Tok::LShift, BinaryOp::LShift, 4},
    {Tok::RShift, BinaryOp::RShift, 4}, {Tok::Plus, BinaryOp::Add, 5},
    {Tok::Minus, BinaryOp::Sub, 5},     {Tok::Star, BinaryOp::Mul, 6},
    {Tok::Slash, BinaryOp::Div, 6},     {Tok::FloorDiv, BinaryOp::FloorDiv, 6},
    {Tok::Percent, BinaryOp::Mod, 6},   {Tok::At, BinaryOp::MatMul, 6},
};

const BinaryInfo* binary_info(Tok t) {
    for (const auto& b : kBinaryOps) {
        if (b.tok == t) return &b;
    }
    return nullptr;
}

struct CompareInfo {
    Tok tok;
    CompareOp op;
};

constexpr CompareInfo kCompareOps[] = {
    {Tok::EqEq, CompareOp::Eq}, {Tok::NotEq, CompareOp::NotEq}, {Tok::Lt, CompareOp::Lt},
    {Tok::LtE, CompareOp::LtE}, {Tok::Gt, CompareOp::Gt},       {Tok::GtE, CompareOp::GtE},
    {Tok::KwIn, CompareOp::In}, {Tok::KwIs, CompareOp::Is},
};

template <class T>
std::unique_ptr<T> make(uint32_t begin, uint32_t end) {
    return std::make_unique<T>(SourceRange{begin, end});
}

}  // namespace

bool Parser::starts_expression(const Token& t) const {
    switch (t.kind) {
        case Tok::Name:
        case Tok::Int:
        case Tok::Float:
        case Tok::Imag:
        case Tok::String:
        case Tok::LPar:
        case Tok::LSqb:
        case Tok::LBrace:
        case Tok::Minus:
        case Tok::Plus:
        case Tok::Tilde:
        case Tok::Star:
        case Tok::Ellipsis:
        case Tok::KwNot:
        case Tok::KwLambda:
        case Tok::KwAwait:
        case Tok::KwNone:
        case Tok::KwTrue:
        case Tok::KwFalse:
            return true;
        default:
            return false;
    }
}

ExprPtr Parser::unsupported(const char* what, uint32_t begin) const {
    auto u = make<Unsupported>(begin, prev_end());
    u->what = what;
    return u;
}

ExprPtr Parser::star_expressions() {
    uint32_t begin = peek().begin;
    ExprPtr first = star_expression();
    if (!at(Tok::Comma)) return first;
    std::vector<ExprPtr> elts;
    elts.push_back(std::move(first));
    while (accept(Tok::Comma)) {
        if (!starts_expression(peek())) break;
        elts.push_back(star_expression());
    }
    auto t = make<Tuple>(begin, prev_end());
    t->elts = std::move(elts);
    return t;
}

ExprPtr Parser::yield_or_star_expressions() {
    return at(Tok::KwYield) ? yield_expr() : star_expressions();
}

ExprPtr Parser::star_expression() {
    if (!at(Tok::Star)) return expression();
    Nest guard(*this);
    uint32_t begin = next().begin;
    binary(1);
    return unsupported("Starred", begin);
}

ExprPtr Parser::named_expression() {
    if (!at(Tok::Name) || !peek(1).is(Tok::ColonEq)) return expression();
    uint32_t begin = next().begin;
    next();
    expression();
    return unsupported("NamedExpr", begin);
}

ExprPtr Parser::expression() {
    Nest guard(*this, 0);  // brackets and operators count the nesting; this the tree depth
    if (at(Tok::KwLambda)) return lambda();
    uint32_t begin = peek().begin;
    ExprPtr body = disjunction();
    if (!accept(Tok::KwIf)) return body;
    ExprPtr cond = disjunction();
    expect(Tok::KwElse, "in conditional expression");
    ExprPtr orelse = expression();
    auto e = make<IfExp>(begin, prev_end());
    e->cond = std::move(cond);
    e->then_value = std::move(body);
    e->else_value = std::move(orelse);
    return e;
}

ExprPtr Parser::disjunction() {
    uint32_t begin = peek().begin;
    ExprPtr first = conjunction();
    if (!at(Tok::KwOr)) return first;
    std::vector<ExprPtr> values;
    values.push_back(std::move(first));
    while (accept(Tok::KwOr))
        values.push_back(conjunction());
    auto e = make<BoolOp>(begin, prev_end());
    e->op = BoolOpKind::Or;
    e->values = std::move(values);
    return e;
}

ExprPtr Parser::conjunction() {
    uint32_t begin = peek().begin;
    ExprPtr first = inversion();
    if (!at(Tok::KwAnd)) return first;
    std::vector<ExprPtr> values;
    values.push_back(std::move(first));
    while (accept(Tok::KwAnd))
        values.push_back(inversion());
    auto e = make<BoolOp>(begin, prev_end());
    e->op = BoolOpKind::And;
    e->values = std::move(values);
    return e;
}

ExprPtr Parser::inversion() {
    if (!at(Tok::KwNot)) return comparison();
    Nest guard(*this);
    uint32_t begin = next().begin;
    ExprPtr operand = inversion();
    auto e = make<Unary>(begin, prev_end());
    e->op = UnaryOp::Not;
    e->operand = std::move(operand);
    return e;
}

ExprPtr Parser::comparison() {
    uint32_t begin = peek().begin;
    ExprPtr first = binary(1);
    std::unique_ptr<Compare> cmp;
    while (true) {
        CompareOp op;
        if (at(Tok::KwNot) && peek(1).is(Tok::KwIn)) {
            op = CompareOp::NotIn;
            next();
        } else if (at(Tok::KwIs) && peek(1).is(Tok::KwNot)) {
            op = CompareOp::IsNot;
            next();
        } else {
            const CompareInfo* info = nullptr;
            for (const auto& c : kCompareOps) {
                if (at(c.tok)) info = &c;
            }
            if (info == nullptr) break;
            op = info->op;
        }
        next();
        if (!cmp) {
            cmp = make<Compare>(begin, begin);
            cmp->operands.push_back(std::move(first));
        }
        cmp->ops.push_back(op);
        cmp->operands.push_back(binary(1));
    }
    if (!cmp) return first;
    cmp->range.end = prev_end();
    return cmp;
}

/// Precedence climbing over kBinaryOps: operators at or above `min_prec`, left-associative.
ExprPtr Parser::binary(int min_prec) {
    uint32_t begin = peek().begin;
    ExprPtr lhs = factor();
    int links = 0;
    while (const BinaryInfo* info = binary_info(peek().kind)) {
        if (info->prec < min_prec) break;
        next();
        ExprPtr rhs = binary(info->prec + 1);
        auto e = make<Binary>(begin, prev_end());
        e->op = info->op;
        e->lhs = std::move(lhs);
        e->rhs = std::move(rhs);
        lhs = std::move(e);
        ++links;
        if (++tree_depth_ > kMaxTreeDepth) fail(peek(), "expression too deeply nested");
    }
    tree_depth_ -= links;
    return lhs;
}

ExprPtr Parser::factor() {
    UnaryOp op;
    switch (peek().kind) {
        case Tok::Minus:
            op = UnaryOp::Neg;
            break;
        case Tok::Plus:
            op = UnaryOp::Pos;
            break;
        case Tok::Tilde:
            op = UnaryOp::Invert;
            break;
        default:
            return power();
    }
    Nest guard(*this);
    uint32_t begin = next().begin;
    ExprPtr operand = factor();
    auto e = make<Unary>(begin, prev_end());
    e->op = op;
    e->operand = std::move(operand);
    return e;
}

ExprPtr Parser::power() {
    uint32_t begin = peek().begin;
    ExprPtr base;
    if (at(Tok::KwAwait)) {
        Nest guard(*this);
        next();
        primary();
        base = unsupported("Await", begin);
    } else {
        base = primary();
    }
    if (!at(Tok::Pow)) return base;
    Nest guard(*this);
    next();
    ExprPtr exponent = factor();
    auto e = make<Binary>(begin, prev_end());
    e->op = BinaryOp::Pow;
    e->lhs = std::move(base);
    e->rhs = std::move(exponent);
    return e;
}

ExprPtr Parser::primary() {
    uint32_t begin = peek().begin;
    ExprPtr e = atom();
    int links = 0;
    while (true) {
        if (at(Tok::Dot)) {
            next();
            const Token& name = expect(Tok::Name, "after '.'");
            auto a = make<Attribute>(begin, prev_end());
            a->value = std::move(e);
            a->attr = text(name);
            a->attr_range = SourceRange{name.begin, name.end};
            e = std::move(a);
        } else if (at(Tok::LPar)) {
            e = call(std::move(e), begin);
        } else if (at(Tok::LSqb)) {
            e = subscript(std::move(e), begin);
        } else {
            break;
        }
        ++links;
        if (++tree_depth_ > kMaxTreeDepth) fail(peek(), "expression too deeply nested");
    }
    tree_depth_ -= links;
    return e;
}

ExprPtr Parser::call(ExprPtr func, uint32_t begin) {
    Nest guard(*this);
    next();
    auto c = make<Call>(begin, begin);
    c->func = std::move(func);
    while (!at(Tok::RPar)) {
        uint32_t arg_begin = peek().begin;
        if (accept(Tok::Star)) {
            expression();
            c->args.push_back(unsupported("Starred", arg_begin));
        } else if (accept(Tok::Pow)) {
            ExprPtr v = expression();
            c->keywords.push_back(Keyword{"", std::move(v), {arg_begin, prev_end()}});
        } else if (at(Tok::Name) && peek(1).is(Tok::Eq)) {
            std::string name(text(next()));
            next();
            ExprPtr v = expression();
            c->keywords.push_back(Keyword{std::move(name), std::move(v), {arg_begin, prev_end()}});
        } else {
            ExprPtr a = named_expression();
            if (at(Tok::KwFor) || (at(Tok::KwAsync) && peek(1).is(Tok::KwFor))) {
                comprehension_clauses();
                a = unsupported("GeneratorExp", arg_begin);
            }
            c->args.push_back(std::move(a));
        }
        if (!accept(Tok::Comma)) break;
    }
    expect(Tok::RPar, "to close the call's '('");
    c->range.end = prev_end();
    return c;
}

ExprPtr Parser::subscript(ExprPtr value, uint32_t begin) {
    Nest guard(*this);
    next();
    auto s = make<Subscript>(begin, begin);
    s->value = std::move(value);
    bool comma = false;
    while (!at(Tok::RSqb)) {
        s->indices.push_back(slice_item());
        if (!accept(Tok::Comma)) break;
        comma = true;
    }
    if (s->indices.empty()) fail(peek(), "invalid syntax: expected an index");
    expect(Tok::RSqb, "to close '['");
    // x[(i, j)] indexes like x[i, j].
    if (!comma && s->indices.size() == 1 && s->indices[0]->kind == ExprKind::Tuple) {
        auto t = std::move(s->indices[0]);
        s->indices = std::move(static_cast<Tuple&>(*t).elts);
    }
    s->range.end = prev_end();
    return s;
}

ExprPtr Parser::slice_item() {
    uint32_t begin = peek().begin;
    if (at(Tok::Star)) return star_expression();
    if (!at(Tok::Colon)) {
        ExprPtr lower = named_expression();
        if (!at(Tok::Colon)) return lower;
    }
    next();
    auto ends_part = [&] { return at(Tok::Colon) || at(Tok::Comma) || at(Tok::RSqb); };
    if (!ends_part()) expression();
    if (accept(Tok::Colon) && !ends_part()) expression();
    return unsupported("Slice", begin);
}

ExprPtr Parser::atom() {
    const Token& t = peek();
    switch (t.kind) {
        case Tok::Name: {
            next();
            auto n = make<Name>(t.begin, t.end);
            n->id = text(t);
            return n;
        }
        case Tok::KwTrue:
        case Tok::KwFalse: {
            next();
            auto b = make<BoolLit>(t.begin, t.end);
            b->value = t.kind == Tok::KwTrue;
            return b;
        }
        case Tok::KwNone:
            next();
            return make<NoneLit>(t.begin, t.end);
        case Tok::Int:
        case Tok::Float:
            return number();
        case Tok::Imag:
        case Tok::Ellipsis:
            next();
            return unsupported("Constant", t.begin);
        case Tok::String:
            return strings();
        case Tok::LPar:
            return paren_atom();
        case Tok::LSqb:
            return list_atom();
        case Tok::LBrace:
            return brace_atom();
        case Tok::Newline:
        case Tok::EndMarker:
            fail(t, "invalid syntax: expected an expression");
        default:
            fail_unexpected(t);
    }
}

ExprPtr Parser::number() {
    const Token& t = next();
    if (t.kind == Tok::Int) {
        IntValue v = int_literal_value(text(t));
        auto n = make<IntLit>(t.begin, t.end);
        n->value = v.value;
        n->overflow = v.overflow;
        return n;
    }
    auto f = make<FloatLit>(t.begin, t.end);
    f->spelling = text(t);
    f->value = float_literal_value(f->spelling);
    return f;
}

/// Adjacent literals concatenate. Any f-string makes a JoinedStr, bytes a (rejected) Constant.
ExprPtr Parser::strings() {
    uint32_t begin = peek().begin;
    std::string value;
    int flags = 0;
    bool mixed = false;
    while (at(Tok::String)) {
        const Token& t = next();
        if (begin != t.begin && ((flags ^ t.flags) & kStrBytes)) mixed = true;
        flags |= t.flags;
        if (!(t.flags & (kStrBytes | kStrFormat))) value += string_literal_value(text(t));
    }
    if (mixed) fail_range({begin, prev_end()}, "cannot mix bytes and nonbytes literals");
    if (flags & kStrFormat) return unsupported("JoinedStr", begin);
    if (flags & kStrBytes) return unsupported("Constant", begin);
    auto s = make<StrLit>(begin, prev_end());
    s->value = std::move(value);
    return s;
}

/// `()`, `(x)`, `(x,)`, `(a, *b)`, `(x for ...)`, `(yield x)`.
ExprPtr Parser::paren_atom() {
    Nest guard(*this);
    uint32_t begin = next().begin;
    if (accept(Tok::RPar)) return make<Tuple>(begin, prev_end());
    if (at(Tok::KwYield)) {
        ExprPtr y = yield_expr();
        expect(Tok::RPar, "to close '('");
        return y;
    }
    ExprPtr first = at(Tok::Star) ? star_expression() : named_expression();
    if (at(Tok::KwFor) || (at(Tok::KwAsync) && peek(1).is(Tok::KwFor))) {
        comprehension_clauses();
        expect(Tok::RPar, "to close '('");
        return unsupported("GeneratorExp", begin);
    }
    if (!at(Tok::Comma)) {
        expect(Tok::RPar, "to close '('");
        return first;
    }
    std::vector<ExprPtr> elts;
    elts.push_back(std::move(first));
    while (accept(Tok::Comma) && !at(Tok::RPar)) {
        elts.push_back(at(Tok::Star) ? star_expression() : named_expression());
    }
    expect(Tok::RPar, "to close '('");
    auto t = make<Tuple>(begin, prev_end());
    t->elts = std::move(elts);
    return t;
}

ExprPtr Parser::list_atom() {
    Nest guard(*this);
    uint32_t begin = next().begin;
    std::vector<ExprPtr> elts;
    while (!at(Tok::RSqb)) {
        elts.push_back(at(Tok::Star) ? star_expression() : named_expression());
        if (elts.size() == 1 && (at(Tok::KwFor) || (at(Tok::KwAsync) && peek(1).is(Tok::KwFor)))) {
            comprehension_clauses();
            expect(Tok::RSqb, "to close '['");
            return unsupported("ListComp", begin);
        }
        if (!accept(Tok::Comma)) break;
    }
    expect(Tok::RSqb, "to close '['");
    auto l = make<List>(begin, prev_end());
    l->elts = std::move(elts);
    return l;
}

/// Dict and set displays and their comprehensions; all rejected, parsed to be skipped exactly.
ExprPtr Parser::brace_atom() {
    Nest guard(*this);
    uint32_t begin = next().begin;
    const char* what = "Dict";
    bool first = true;
    while (!at(Tok::RBrace)) {
        if (accept(Tok::Pow)) {
            binary(1);
        } else {
            if (at(Tok::Star)) {
                star_expression();
            } else {
                named_expression();
            }
            if (accept(Tok::Colon)) {
                expression();
            } else if (first) {
                what = "Set";
            }
        }
        if (first && (at(Tok::KwFor) || (at(Tok::KwAsync) && peek(1).is(Tok::KwFor)))) {
            comprehension_clauses();
            what = what[0] == 'S' ? "SetComp" : "DictComp";
            break;
        }
        first = false;
        if (!accept(Tok::Comma)) break;
    }
    expect(Tok::RBrace, "to close '{'");
    return unsupported(what, begin);
}

void Parser::comprehension_clauses() {
    while (at(Tok::KwFor) || (at(Tok::KwAsync) && peek(1).is(Tok::KwFor))) {
        accept(Tok::KwAsync);
        next();
        target_list();
        expect(Tok::KwIn, "in comprehension");
        disjunction();
        while (accept(Tok::KwIf))
            disjunction();
    }
}

/// Targets of `for` (no comparisons, so that `in` ends them): `x`, `i, j`, `(a, b), *c`.
ExprPtr Parser::target_list() {
    uint32_t begin = peek().begin;
    auto item = [&] { return at(Tok::Star) ? star_expression() : binary(1); };
    ExprPtr first = item();
    if (!at(Tok::Comma)) return first;
    std::vector<ExprPtr> elts;
    elts.push_back(std::move(first));
    while (accept(Tok::Comma) && starts_expression(peek()))
        elts.push_back(item());
    auto t = make<Tuple>(begin, prev_end());
    t->elts = std::move(elts);
    return t;
}

ExprPtr Parser::lambda() {
    uint32_t begin = next().begin;
    while (!at(Tok::Colon)) {
        if (!accept(Tok::Star) && !accept(Tok::Pow)) accept(Tok::Slash);
        if (accept(Tok::Name) && accept(Tok::Eq)) expression();
        if (!accept(Tok::Comma)) break;
    }
    expect(Tok::Colon, "after lambda parameters");
    expression();
    return unsupported("Lambda", begin);
}

ExprPtr Parser::yield_expr() {
    Nest guard(*this);
    uint32_t begin = next().begin;
    if (accept(Tok::KwFrom)) {
        expression();
        return unsupported("YieldFrom", begin);
    }
    if (starts_expression(peek())) star_expressions();
    return unsupported("Yield", begin);
}

}  // namespace tack::frontend
