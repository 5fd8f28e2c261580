#pragma once
// The parser's private machinery, shared by parse_module.cpp (module level), parse_stmt.cpp
// (statements) and parse_expr.cpp (expressions). Syntax errors unwind with a SyntaxFailure up
// to the definition being parsed, which is then dropped; the module loop resumes after it.

#include <algorithm>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast.hpp"
#include "frontend/parser.hpp"
#include "frontend/token.hpp"
#include "frontend/unicode.hpp"

namespace tack::frontend {

struct SyntaxFailure {
    SourceRange range;
    std::string message;
};

class Parser {
  public:
    explicit Parser(diag::SourceFilePtr file);
    ParseResult run();

    // Guards recursion: bracket/unary/block nesting is capped at kMaxNesting, and the depth of
    // the tree built (including left-assoc operator chains) at kMaxTreeDepth, so that no later
    // recursive walk over the tree can exhaust the stack.
    static constexpr int kMaxNesting = 200;
    static constexpr int kMaxTreeDepth = 1000;
    struct Nest {
        Parser& p;
        int weight;
        Nest(Parser& parser, int nesting = 1);
        ~Nest() {
            p.nesting_ -= weight;
            p.tree_depth_ -= 1;
        }
    };

  private:
    // --- tokens (parse_module.cpp)
    const Token& peek(size_t k = 0) const {
        size_t i = pos_ + k;
        return toks_[i < toks_.size() ? i : toks_.size() - 1];
    }
    bool at(Tok k) const { return peek().kind == k; }
    const Token& next();
    bool accept(Tok k);
    const Token& expect(Tok k, const char* context);
    [[noreturn]] void fail(const Token& at, std::string message) const;
    [[noreturn]] void fail_unexpected(const Token& at, const char* context = nullptr) const;
    [[noreturn]] void fail_range(SourceRange r, std::string message) const;
    uint32_t prev_end() const { return last_end_; }
    /// A token's text; a name's in its NFKC form (PEP 3131, CONTRACT A10: 'ﬁ' is 'fi').
    std::string_view text(const Token& t) const {
        std::string_view raw = t.text(src_);
        if (!t.is(Tok::Name) || std::all_of(raw.begin(), raw.end(), [](char c) {
                return static_cast<unsigned char>(c) < 0x80;
            }))
            return raw;
        return normalized_.emplace_back(nfkc_identifier(raw));
    }
    std::string line_of(const Token& t) const;

    // --- module level (parse_module.cpp)
    void module_statement();
    bool import_statement();
    bool from_import_statement();
    bool dotted_name(std::string& out);
    bool constant_definition();
    void note_global();
    void decorated_definition();
    void host_statement();
    void host_block(int scope, bool in_class);
    std::vector<ImportBinding>& imports_here();
    std::vector<ConstantDef>& constants_here();
    std::vector<ConstantDef>& globals_here();
    DefKind decorator_kind(size_t at_token) const;
    std::string resolve(std::string_view dotted) const;
    void skip_statement();
    void skip_block();
    void skip_simple_statement();
    void record(const SyntaxFailure& f);

    // --- statements (parse_stmt.cpp)
    std::unique_ptr<FunctionDef> function_def(std::vector<ExprPtr> decorators);
    void parameters(FunctionDef& fn);
    StmtList block(const Token& header);
    void statement(StmtList& out);
    void simple_statements(StmtList& out);
    void small_statement(StmtList& out);
    StmtPtr compound_statement();
    StmtPtr if_statement();
    StmtPtr while_statement();
    StmtPtr for_statement();
    StmtPtr decorated_statement();
    StmtPtr unsupported_compound(const char* what);
    StmtPtr unsupported_simple(const char* what);
    StmtPtr expression_statement();
    StmtList else_block();
    bool is_match_statement() const;
    void check_target(const Expr& e, const char* context) const;

    // --- expressions (parse_expr.cpp)
    ExprPtr star_expressions();
    ExprPtr yield_or_star_expressions();
    ExprPtr star_expression();
    ExprPtr named_expression();
    ExprPtr expression();
    ExprPtr disjunction();
    ExprPtr target_list();
    ExprPtr conjunction();
    ExprPtr inversion();
    ExprPtr comparison();
    ExprPtr binary(int min_prec);
    ExprPtr factor();
    ExprPtr power();
    ExprPtr primary();
    ExprPtr atom();
    ExprPtr lambda();
    ExprPtr yield_expr();
    ExprPtr strings();
    ExprPtr number();
    ExprPtr paren_atom();
    ExprPtr list_atom();
    ExprPtr brace_atom();
    ExprPtr call(ExprPtr func, uint32_t begin);
    ExprPtr subscript(ExprPtr value, uint32_t begin);
    ExprPtr slice_item();
    void comprehension_clauses();
    bool starts_expression(const Token& t) const;
    ExprPtr unsupported(const char* what, uint32_t begin) const;

    diag::SourceFilePtr file_;
    std::string_view src_;
    std::vector<Token> toks_;
    size_t pos_ = 0;
    uint32_t last_end_ = 0;
    int nesting_ = 0;
    int tree_depth_ = 0;
    // Where module-level scanning is: the host function scope (-1: the module) whose body is
    // being scanned, whether that body is a class's, and how deep the scan has recursed.
    int scope_ = -1;
    bool in_class_ = false;
    int host_depth_ = 0;
    ParseResult result_;
    const Token* never_closed_ = nullptr;
    mutable std::deque<std::string> normalized_;  // NFKC names; a deque keeps views valid  //
                                                  // innermost bracket open at the end of the file
};

}  // namespace tack::frontend
