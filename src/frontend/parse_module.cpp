// Module level: imports, `NAME = tack.constant(...)`, and definitions decorated with
// @tack.kernel / @tack.func. Everything else is host code and is skipped token by token, except
// that the blocks of host compound statements are scanned the same way: a kernel defined inside
// a function (a closure, a test helper) is parsed too, with the imports and constants of the
// functions around it in scope (Module::scopes).
//
//   module      := (import | from_import | constant | decorated | host_statement)* ENDMARKER
//   import      := 'import' dotted ['as' NAME] (',' dotted ['as' NAME])* NEWLINE
//   from_import := 'from' '.'* [dotted] 'import' ('(' names ')' | names) NEWLINE
//   constant    := NAME '=' dotted '(' args ')' NEWLINE     -- dotted resolves to tack.constant
//   decorated   := ('@' expression NEWLINE)+ ['async'] 'def' ...

#include <utility>

#include "frontend/lexer.hpp"
#include "frontend/parser_impl.hpp"

namespace tack::frontend {

Parser::Nest::Nest(Parser& parser, int nesting) : p(parser), weight(nesting) {
    p.nesting_ += nesting;
    p.tree_depth_ += 1;
    if (p.nesting_ > kMaxNesting || p.tree_depth_ > kMaxTreeDepth) {
        p.fail(p.peek(), "expression too deeply nested");
    }
}

Parser::Parser(diag::SourceFilePtr file)
    : file_(std::move(file)), src_(file_->text()), toks_(lex(src_)) {
    result_.module.file = file_;
    // The innermost bracket still open at the end of the file, matched as the lexer matches
    // (an unmatched closer is its own error and pops nothing).
    std::vector<const Token*> open;
    for (const Token& t : toks_) {
        if (t.is(Tok::LPar) || t.is(Tok::LSqb) || t.is(Tok::LBrace)) {
            open.push_back(&t);
        } else if ((t.is(Tok::RPar) || t.is(Tok::RSqb) || t.is(Tok::RBrace) ||
                    (t.is(Tok::Error) && t.flags == uint8_t(LexError::MismatchedBracket))) &&
                   !open.empty()) {
            open.pop_back();
        }
    }
    if (!open.empty()) never_closed_ = open.back();
}

const Token& Parser::next() {
    const Token& t = peek();
    if (pos_ < toks_.size() - 1) ++pos_;
    if (t.kind != Tok::Newline && t.kind != Tok::Indent && t.kind != Tok::Dedent) {
        last_end_ = t.end;
    }
    return t;
}

bool Parser::accept(Tok k) {
    if (!at(k)) return false;
    next();
    return true;
}

const Token& Parser::expect(Tok k, const char* context) {
    if (at(k)) return next();
    if (at(Tok::Error) || at(Tok::Indent)) fail_unexpected(peek());
    std::string msg = "invalid syntax: expected '";
    msg += spelling(k);
    msg += "'";
    if (k == Tok::Name) msg = "invalid syntax: expected a name";
    if (context != nullptr) {
        msg += ' ';
        msg += context;
    }
    fail(peek(), std::move(msg));
}

void Parser::fail(const Token& at, std::string message) const {
    fail_range(SourceRange{at.begin, at.end}, std::move(message));
}

void Parser::fail_range(SourceRange r, std::string message) const {
    throw SyntaxFailure{r, std::move(message)};
}

void Parser::fail_unexpected(const Token& at, const char* context) const {
    std::string msg;
    switch (at.kind) {
        case Tok::Error:
            msg = lex_error_message(at, src_);
            break;
        case Tok::Indent:
            msg = "unexpected indent";
            break;
        case Tok::Dedent:
            msg = "unindent does not match any outer indentation level";
            break;
        case Tok::EndMarker:
            msg = "invalid syntax: unexpected end of file";
            break;
        case Tok::Newline:
            msg = "invalid syntax: unexpected end of line";
            break;
        default:
            msg = "invalid syntax: unexpected '";
            msg += text(at);
            msg += "'";
    }
    if (context != nullptr && at.kind != Tok::Error && at.kind != Tok::Indent) {
        msg += ' ';
        msg += context;
    }
    fail(at, std::move(msg));
}

std::string Parser::line_of(const Token& t) const {
    return std::to_string(file_->line_of(t.begin));
}

void Parser::record(const SyntaxFailure& f) {
    SourceRange range = f.range;
    std::string message = f.message;
    // CPython: a generic syntax error in a file that leaves a bracket open is reported as
    // "'(' was never closed" at that bracket, not at the end of the file (issue 12).
    if (never_closed_ && message.rfind("invalid syntax", 0) == 0) {
        range = {never_closed_->begin, never_closed_->end};
        message = "'" + std::string(text(*never_closed_)) + "' was never closed";
    }
    nesting_ = 0;
    tree_depth_ = 0;
    if (!result_.errors.empty() && result_.errors.back().range.begin == range.begin &&
        result_.errors.back().message == message) {
        return;  // recovery met the same open bracket again
    }
    result_.errors.push_back(
        diag::Diagnostic{diag::ErrorKind::SyntaxError, std::move(message), file_, range});
}

ParseResult Parser::run() {
    while (!at(Tok::EndMarker))
        module_statement();
    return std::move(result_);
}

// One statement of the module or of a scanned host block. Class bodies bind no names that the
// methods' nested definitions see, so imports and constants there are host code.
void Parser::module_statement() {
    size_t start = pos_;
    switch (peek().kind) {
        case Tok::KwImport:
            if (!in_class_ && import_statement()) return;
            break;
        case Tok::KwFrom:
            if (!in_class_ && from_import_statement()) return;
            break;
        case Tok::Name:
            if (!in_class_ && constant_definition()) return;
            break;
        case Tok::At:
            return decorated_definition();
        case Tok::Indent:
            return skip_block();
        case Tok::Dedent:
        case Tok::Newline:
            next();
            return;
        default:
            break;
    }
    pos_ = start;
    host_statement();
}

/// A statement of host code: skipped, but the block of a compound statement is scanned for
/// definitions. A def's body is a new scope (its imports and constants bind for what it
/// defines); a class body is scanned for the bodies of its methods only.
void Parser::host_statement() {
    bool is_def = at(Tok::KwDef) || (at(Tok::KwAsync) && peek(1).is(Tok::KwDef));
    bool is_class = at(Tok::KwClass);
    while (!at(Tok::EndMarker) && !at(Tok::Newline))
        next();
    accept(Tok::Newline);
    if (!at(Tok::Indent)) return;
    if (host_depth_ >= kMaxNesting) return skip_block();
    next();
    int scope = scope_;
    if (is_def) {
        result_.module.scopes.push_back(Scope{scope_, {}, {}, {}});
        scope = static_cast<int>(result_.module.scopes.size()) - 1;
    }
    host_block(scope, is_class || (in_class_ && !is_def));
}

/// The statements of a host block, after its INDENT, up to and including its DEDENT.
void Parser::host_block(int scope, bool in_class) {
    int saved_scope = scope_;
    bool saved_class = in_class_;
    scope_ = scope;
    in_class_ = in_class;
    ++host_depth_;
    while (!at(Tok::EndMarker)) {
        if (accept(Tok::Dedent)) break;
        module_statement();
    }
    --host_depth_;
    scope_ = saved_scope;
    in_class_ = saved_class;
}

std::vector<ImportBinding>& Parser::imports_here() {
    return scope_ < 0 ? result_.module.imports : result_.module.scopes[scope_].imports;
}

std::vector<ConstantDef>& Parser::constants_here() {
    return scope_ < 0 ? result_.module.constants : result_.module.scopes[scope_].constants;
}

std::vector<ConstantDef>& Parser::globals_here() {
    return scope_ < 0 ? result_.module.globals : result_.module.scopes[scope_].globals;
}

bool Parser::dotted_name(std::string& out) {
    if (!at(Tok::Name)) return false;
    out = text(next());
    while (at(Tok::Dot) && peek(1).is(Tok::Name)) {
        next();
        out += '.';
        out += text(next());
    }
    return true;
}

/// `import a.b as c, d`: `import a.b` binds `a` (module "a"); `import a.b as c` binds `c` to "a.b".
bool Parser::import_statement() {
    std::vector<ImportBinding> found;
    next();
    do {
        uint32_t begin = peek().begin;
        std::string module;
        if (!dotted_name(module)) return false;
        ImportBinding b;
        b.module = module;
        b.local_name = module.substr(0, module.find('.'));
        if (accept(Tok::KwAs)) {
            if (!at(Tok::Name)) return false;
            b.local_name = text(next());
        } else {
            b.module = b.local_name;
        }
        b.range = SourceRange{begin, prev_end()};
        found.push_back(std::move(b));
    } while (accept(Tok::Comma));
    if (!at(Tok::Newline) && !at(Tok::Semi)) return false;
    skip_simple_statement();
    for (auto& b : found)
        imports_here().push_back(std::move(b));
    return true;
}

bool Parser::from_import_statement() {
    next();
    std::string module;
    while (at(Tok::Dot) || at(Tok::Ellipsis))
        module += text(next());
    std::string dotted;
    if (dotted_name(dotted)) module += dotted;
    if (module.empty() || !accept(Tok::KwImport)) return false;
    bool paren = accept(Tok::LPar);
    std::vector<ImportBinding> found;
    do {
        if (paren && at(Tok::RPar)) break;
        if (!paren && found.empty() && at(Tok::Star)) {
            // Recorded as local name "*": it binds names we cannot list (see resolve()).
            found.push_back(ImportBinding{"*", module, "*", {peek().begin, peek().end}});
            next();
            break;
        }
        if (!at(Tok::Name)) return false;
        const Token& name = next();
        ImportBinding b{std::string(text(name)), module, std::string(text(name)), {}};
        if (accept(Tok::KwAs)) {
            if (!at(Tok::Name)) return false;
            b.local_name = text(next());
        }
        b.range = SourceRange{name.begin, prev_end()};
        found.push_back(std::move(b));
    } while (accept(Tok::Comma));
    if (paren && !accept(Tok::RPar)) return false;
    if (!at(Tok::Newline) && !at(Tok::Semi)) return false;
    skip_simple_statement();
    for (auto& b : found)
        imports_here().push_back(std::move(b));
    return true;
}

/// The fully qualified name a dotted spelling refers to through the imports seen so far. A head
/// no import binds stands for itself, so `tack.kernel` resolves even in a lone function's source.
std::string Parser::resolve(std::string_view dotted) const {
    std::string_view head = dotted.substr(0, dotted.find('.'));
    std::string_view rest = dotted.substr(head.size());
    // `from tack import *` binds tack's public names; of those only these matter here.
    bool tack_name = head == "kernel" || head == "func" || head == "constant";
    // Innermost scope first, the module last; in each, the last import of a name wins.
    for (int s = scope_;; s = result_.module.scopes[s].parent) {
        const auto& imports = s < 0 ? result_.module.imports : result_.module.scopes[s].imports;
        for (auto it = imports.rbegin(); it != imports.rend(); ++it) {
            if (it->local_name == head) {
                std::string q = it->module;
                if (!it->member.empty()) q += "." + it->member;
                q += rest;
                return q;
            }
            if (tack_name && it->local_name == "*" && it->module == "tack")
                return "tack." + std::string(dotted);
        }
        if (s < 0) break;
    }
    return std::string(dotted);
}

/// `NAME = ...` that is not a tack.constant: host code, remembered for the error a kernel that
/// reads NAME gets (a module global, not an unknown name). At the NAME token; moves nothing.
void Parser::note_global() {
    size_t start = pos_;
    ConstantDef def;
    def.name = text(peek());
    def.range = SourceRange{peek().begin, peek().end};
    size_t value = peek(2).is(Tok::Minus) ? 3 : 2;
    if ((peek(value).is(Tok::Int) || peek(value).is(Tok::Float)) &&
        (peek(value + 1).is(Tok::Newline) || peek(value + 1).is(Tok::Semi))) {
        pos_ = start + 2;
        try {
            def.value = expression();
        } catch (const SyntaxFailure&) {  // a malformed literal: host code Python reports
        }
    }
    pos_ = start;
    globals_here().push_back(std::move(def));
}

/// `NAME = tack.constant(value[, dtype])`; anything else starting with a name is host code.
bool Parser::constant_definition() {
    if (!peek(1).is(Tok::Eq)) return false;
    if (!peek(2).is(Tok::Name)) {
        note_global();
        return false;
    }
    size_t start = pos_;
    const Token& name = next();
    next();
    std::string callee;
    dotted_name(callee);
    if (!at(Tok::LPar) || resolve(callee) != "tack.constant") {
        // `f32 = tack.f32` or `xp = np`: an alias, which kernels may read as what it names
        // (the Python package follows it; here it stays unbound, as before).
        bool alias = at(Tok::Newline) || at(Tok::Semi) || at(Tok::EndMarker);
        pos_ = start;
        if (!alias) note_global();
        return false;
    }
    pos_ = start + 2;
    try {
        ExprPtr rhs = expression();
        bool ends = at(Tok::Newline) || at(Tok::Semi);
        if (rhs->kind != ExprKind::Call || !ends) return false;
        auto& call = static_cast<Call&>(*rhs);
        if (call.args.empty()) return false;
        ConstantDef def;
        def.name = text(name);
        def.range = SourceRange{name.begin, prev_end()};
        def.value = std::move(call.args[0]);
        if (call.args.size() > 1) def.dtype = std::move(call.args[1]);
        for (auto& kw : call.keywords) {
            if (kw.name == "dtype") def.dtype = std::move(kw.value);
        }
        skip_simple_statement();
        constants_here().push_back(std::move(def));
    } catch (const SyntaxFailure& f) {
        record(f);
        skip_statement();
    }
    return true;
}

/// The kind a decorator line names, by its dotted head (`@tack.kernel`, `@tk.kernel()`).
DefKind Parser::decorator_kind(size_t at_token) const {
    size_t i = at_token + 1;
    if (i >= toks_.size() || !toks_[i].is(Tok::Name)) return DefKind::Other;
    std::string dotted(text(toks_[i++]));
    while (i + 1 < toks_.size() && toks_[i].is(Tok::Dot) && toks_[i + 1].is(Tok::Name)) {
        dotted += '.';
        dotted += text(toks_[i + 1]);
        i += 2;
    }
    if (!toks_[i].is(Tok::Newline) && !toks_[i].is(Tok::LPar)) return DefKind::Other;
    std::string q = resolve(dotted);
    if (q == "tack.kernel") return DefKind::Kernel;
    if (q == "tack.func") return DefKind::Func;
    return DefKind::Other;
}

void Parser::decorated_definition() {
    size_t first = pos_;
    DefKind kind = DefKind::Other;
    while (at(Tok::At)) {
        DefKind k = decorator_kind(pos_);
        if (kind == DefKind::Other) kind = k;
        skip_simple_statement();
    }
    bool is_def = at(Tok::KwDef) || (at(Tok::KwAsync) && peek(1).is(Tok::KwDef));
    // A class's @tack.func / @tack.kernel methods are a template's: they take `self` and
    // are checked when an instance is known.
    if (kind == DefKind::Other || !is_def || in_class_) return host_statement();
    pos_ = first;
    try {
        std::vector<ExprPtr> decorators;
        while (accept(Tok::At)) {
            decorators.push_back(named_expression());
            expect(Tok::Newline, "after decorator");
        }
        auto fn = function_def(std::move(decorators));
        fn->def_kind = kind;
        fn->scope = scope_;
        (scope_ < 0 ? result_.module.functions : result_.module.nested).push_back(std::move(fn));
    } catch (const SyntaxFailure& f) {
        record(f);
        // Resume at the next statement of the module, after the definition's block.
        pos_ = first;
        while (at(Tok::At))
            skip_simple_statement();
        skip_statement();
    }
}

/// Skips a logical line up to and including its NEWLINE (or up to a ';').
void Parser::skip_simple_statement() {
    while (!at(Tok::EndMarker) && !at(Tok::Newline) && !at(Tok::Semi))
        next();
    if (at(Tok::Semi)) {
        next();
        if (!at(Tok::Newline)) return;
    }
    accept(Tok::Newline);
}

/// Skips one whole statement: its logical line, its indented block, and for compound
/// statements the clauses that continue it (elif/else/except/finally).
void Parser::skip_statement() {
    do {
        while (!at(Tok::EndMarker) && !at(Tok::Newline))
            next();
        accept(Tok::Newline);
        if (at(Tok::Indent)) skip_block();
    } while (at(Tok::KwElif) || at(Tok::KwElse) || at(Tok::KwExcept) || at(Tok::KwFinally));
}

/// Skips an INDENT ... DEDENT block (the INDENT is the current token).
void Parser::skip_block() {
    int level = 0;
    while (!at(Tok::EndMarker)) {
        Tok k = next().kind;
        if (k == Tok::Indent) ++level;
        if (k == Tok::Dedent && --level == 0) return;
    }
}

ParseResult parse_module(diag::SourceFilePtr file) {
    return Parser(std::move(file)).run();
}

}  // namespace tack::frontend
