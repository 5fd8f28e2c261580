// Source validation (CONTRACT A2, A5-A8, A11, A12, A14, A17, A20, A37, A38, A40, DECISIONS
// G6, G7): one pass over a function's original AST, unreachable statements included, that
// reports every construct the kernel language rejects. Nothing stops at the first error.
//
// Requires: a parsed FunctionDef and the environment of its defining module.
// Guarantees: when it returns no diagnostics, lowering sees only supported constructs, every
// name it reads is a parameter, a local, a live loop variable or a constant, and every call is
// an intrinsic (with a valid argument count) or a non-recursive @tack.func.

#include <algorithm>
#include <functional>
#include <map>
#include <string_view>

#include "sema/sema.hpp"
#include "sema/validate.hpp"

namespace tack::sema {

using namespace frontend;
using diag::ErrorKind;

namespace {

// How a call's result is used.
enum class Use {
    Value,      // in an expression
    Statement,  // an expression statement: the result is dropped
    Iter,       // the iterable of a for loop
    Unpacked,   // `a, b = f(...)` or `return f(...)`: a tuple result is fine
};

constexpr const char* kReturnNeedsAnnotation =
    "the kernel's `return` needs a return annotation: '-> tack.f32', '-> float' or '-> int', "
    "the type of the value the call returns";

constexpr const char* kReadableNames =
    "only parameters, locals, tack.constant names and math.pi, math.e and math.tau can be read";

// What to write instead, for each Python construct the kernel language has no meaning for: a
// rejection says what to do, not only what it saw (issue 24). The `ast` class name stays first in
// the message because users search for it and the public tests match it.
struct Instead {
    std::string_view construct;
    const char* advice;
};
constexpr const char* kWriteTheLoop =
    "write the loop out (`for j in range(n):`), accumulating into a local or a tack.local_array";
constexpr const char* kNotACoroutine =
    "kernels are not coroutines; launch from host code and await `tack.sync_async()` there";
constexpr const char* kNoExceptions =
    "kernels cannot raise or catch; test the condition with `if` and record it in a field, or "
    "run under debug mode (TACK_DEBUG=1), which checks every index and divisor";
constexpr Instead kInstead[] = {
    {"AnnAssign",
     "write a plain assignment (`v = x[i]`); a local takes its value's type, and "
     "`tack.f32(...)` converts"},
    {"Assert", kNoExceptions},
    {"AsyncFor", "kernels are not coroutines; write a plain `for` loop"},
    {"AsyncWith", "`async with` is host code; put it around the launch"},
    {"Await", kNotACoroutine},
    {"ClassDef",
     "define classes in host code and pass their data as fields, or pass an object "
     "of a @tack.data_oriented class"},
    {"Delete", "locals need no deletion; remove the statement"},
    {"Dict",
     "kernels have no dicts; use separate locals, a tack.constant table or an object of "
     "a @tack.data_oriented class"},
    {"DictComp", kWriteTheLoop},
    {"FunctionDef", "define the function at module level with @tack.func and call it"},
    {"GeneratorExp", kWriteTheLoop},
    {"Global",
     "kernels cannot assign module globals; write the result to a field (and read "
     "module-level values declared with tack.constant)"},
    {"Import",
     "import at module level; kernels read tack, math and the module's tack.constant "
     "names from there"},
    {"ImportFrom",
     "import at module level; kernels read tack, math and the module's "
     "tack.constant names from there"},
    {"In", "compare with `==` against each value, joined with `or` (`k == 1 or k == 2`)"},
    {"Is", "compare values with `==`; kernels have no None and no object identity"},
    {"IsNot", "compare values with `!=`; kernels have no None and no object identity"},
    {"JoinedStr",
     "print() takes string literals and values separated by commas "
     "(`print(\"x =\", x)`)"},
    {"Lambda", "define a @tack.func at module level and call it"},
    {"ListComp", kWriteTheLoop},
    {"Match", "write it as an if/elif chain"},
    {"NamedExpr", "assign the value in a statement of its own first, then use the name"},
    {"Nonlocal",
     "kernels cannot assign an enclosing function's names; write the result to a "
     "field"},
    {"NotIn", "compare with `!=` against each value, joined with `and` (`k != 1 and k != 2`)"},
    {"Raise", kNoExceptions},
    {"Set",
     "kernels have no sets; compare with `==` joined with `or`, or use a tack.constant "
     "table"},
    {"SetComp", kWriteTheLoop},
    {"Slice", "index one element at a time, in a loop (`for j in range(lo, hi): ... x[j]`)"},
    {"Starred", "pass each value as its own argument (`f(v[0], v[1])`)"},
    {"Try", kNoExceptions},
    {"TryStar", kNoExceptions},
    {"TypeAlias", "write type aliases in host code"},
    {"With", "`with` blocks are host code; put it around the launch"},
    {"Yield",
     "a kernel writes its results to fields (or returns one value after its parallel "
     "loop); store into a field instead"},
    {"YieldFrom",
     "a kernel writes its results to fields (or returns one value after its "
     "parallel loop); store into a field instead"},
};

const char* advice_for(std::string_view construct) {
    for (const Instead& i : kInstead)
        if (i.construct == construct) return i.advice;
    return nullptr;
}

std::string plural(size_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

bool is_literal_nonpositive_step(const Expr& step) {
    if (auto* i = step.as<IntLit>()) return i->value == 0 && !i->overflow;
    if (auto* f = step.as<FloatLit>()) return f->value <= 0;
    if (auto* u = step.as<Unary>())
        return u->op == UnaryOp::Neg && (u->operand->as<IntLit>() || u->operand->as<FloatLit>());
    return false;
}

const char* compare_op_class(CompareOp op) {
    switch (op) {
        case CompareOp::Is:
            return "Is";
        case CompareOp::IsNot:
            return "IsNot";
        case CompareOp::In:
            return "In";
        case CompareOp::NotIn:
            return "NotIn";
        default:
            return nullptr;
    }
}

class Validator {
  public:
    Validator(const FunctionDef& fn, const diag::SourceFilePtr& file, const Environment& env,
              std::vector<diag::Diagnostic>& out)
        : fn_(fn),
          file_(file),
          env_(env),
          out_(out),
          label_(function_label(fn)),
          kernel_(fn.def_kind == DefKind::Kernel),
          names_(collect_names(fn)) {}

    void run();
    /// Only the checks of a kernel's final `return` that need no name resolution.
    void run_result_checks();

  private:
    // ---- diagnostics ----
    std::string at(SourceRange r) const { return diag::at_position(*file_, r); }
    std::string text(SourceRange r) const {
        return file_->text().substr(r.begin, r.end > r.begin ? r.end - r.begin : 0);
    }
    void emit(ErrorKind kind, SourceRange r, const std::string& message) {
        out_.push_back({kind, label_ + ": " + message, file_, r});
    }
    void reject(const std::string& construct, SourceRange r, std::string detail = {}) {
        if (detail.empty())
            if (const char* advice = advice_for(construct)) detail = advice;
        emit(ErrorKind::UnsupportedSyntax, r,
             "unsupported " + construct + " " + at(r) + (detail.empty() ? "" : ": " + detail));
    }
    bool outside_parallel_loop() const { return kernel_ && !in_parallel_ && !in_misplaced_; }
    void effect(const std::string& what) {
        if (!outside_parallel_loop()) return;
        SourceRange r = current_->range;
        emit(ErrorKind::UnsupportedSyntax, r,
             what + " " + at(r) + " is outside the parallel loop. " + kOutsideLoopReason);
    }

    // ---- setup ----
    void check_params();
    void find_arrays();
    void find_parallel_loop();
    SourceRange def_range() const;
    bool g7_return(const Return& r) const;
    void no_tuple(const Expr& e);
    void operand_checks(const Expr& e);
    void unpack_count(const Expr& target, const Expr& value);
    bool empty_list(const Expr& e, const std::string& what, SourceRange r);

    // ---- statements ----
    void block(const StmtList& body) {
        for (const auto& s : body)
            stmt(*s);
    }
    void stmt(const Stmt& s);
    void expr_stmt(const ExprStmt& s);
    void assign(const Assign& s);
    void aug_assign(const AugAssign& s);
    void if_stmt(const If& s);
    void for_stmt(const For& s);
    void loop_iter(const For& s);
    void loop_target(const Expr& t);
    void while_stmt(const While& s);
    void return_stmt(const Return& s);
    void check_g7_reads(const Expr& value);
    void break_stmt(const Break& s);

    // ---- expressions ----
    void expr(const Expr& e);
    void value(const Expr& e, Use use);  // a call with its use, anything else as expr()
    void name(const Name& n);
    void attribute(const Attribute& a);
    void external(const std::string& dotted, SourceRange r);
    void target(const Expr& t);
    void call(const Call& c, Use use);
    void builtin_call(const Call& c, const builtins::Builtin& b, Use use);
    void func_call(const Call& c, const FuncRef& f, Use use);

    const FunctionDef& fn_;
    diag::SourceFilePtr file_;
    const Environment& env_;
    std::vector<diag::Diagnostic>& out_;
    std::string label_;
    bool kernel_;
    FunctionNames names_;
    std::set<std::string, std::less<>> arrays_;  // names bound to local/shared arrays (A8)
    std::set<std::string, std::less<>> ended_;   // loop variables whose loop ended (A7)
    std::vector<bool> loops_;                    // enclosing loops; true: the parallel loop
    const For* parallel_loop_ = nullptr;
    bool in_parallel_ = false;
    bool in_misplaced_ = false;  // inside a for loop already reported as misplaced
    int conditional_ = 0;        // inside code some lanes may skip (A37)
    const Stmt* current_ = nullptr;
    std::vector<FuncRef> inlined_outside_;  // @tack.func calls outside the parallel loop
};

// ---- setup ------------------------------------------------------------------------------------

void Validator::run() {
    check_params();
    find_arrays();
    if (kernel_) find_parallel_loop();
    block(fn_.body);
    check_recursion(fn_, file_, env_, out_);
    if (kernel_) check_inlined_effects(fn_, inlined_outside_, out_);
}

// DECISIONS G7 at decoration time: an unannotated final `return`, and one reading a local that
// only the parallel loop assigns, are errors of the definition. A misplaced `return` is reported
// when the kernel is compiled, like other unsupported syntax.
void Validator::run_result_checks() {
    if (!kernel_ || fn_.body.empty()) return;
    for (const auto& s : fn_.body) {
        if ((parallel_loop_ = s->as<For>())) break;
    }
    auto* r = fn_.body.back()->as<Return>();
    if (!r || !r->value || !parallel_loop_) return;
    if (!fn_.returns)
        reject("Return", r->range, kReturnNeedsAnnotation);
    else if (g7_return(*r))
        check_g7_reads(*r->value);
}

void Validator::check_params() {
    // Issue 12: `async def` was compiled as a plain function. A coroutine has no meaning on a
    // device; the caret marks the `async` keyword the definition's range starts at.
    if (fn_.is_async) {
        SourceRange r{fn_.range.begin, fn_.range.begin + 5};
        emit(ErrorKind::UnsupportedSyntax, r,
             "unsupported AsyncFunctionDef " + at(r) + ": " +
                 (kernel_ ? "a kernel" : "a device function") +
                 " cannot be a coroutine; define it with plain 'def'");
    }
    for (const Param& p : fn_.params) {
        if (p.rejected_form.empty()) continue;
        bool is_default = p.rejected_form.find("default") != std::string::npos;
        emit(ErrorKind::UnsupportedSyntax, p.range,
             "unsupported parameter '" + p.name + "' " + at(p.range) + ": " +
                 (is_default ? "default parameter values are not supported"
                             : "only ordinary positional parameters are supported (" +
                                   p.rejected_form + ")"));
    }
}

// Names assigned from local_array/shared allocations: storage that may not be rebound (A8).
void Validator::find_arrays() {
    for_each_stmt(fn_.body, [&](const Stmt& s) {
        auto* a = s.as<Assign>();
        auto* c = a ? a->value->as<Call>() : nullptr;
        if (!c) return;
        Callee callee = resolve_callee(*c->func, names_, env_);
        if (callee.kind != Callee::Kind::Builtin ||
            callee.builtin->category != builtins::Category::Alloc)
            return;
        for (const auto& t : a->targets)
            if (auto* n = t->as<Name>()) arrays_.insert(n->id);
    });
}

// The parallel loop is the first `for` directly in the kernel body (A11).
void Validator::find_parallel_loop() {
    for (const auto& s : fn_.body) {
        if ((parallel_loop_ = s->as<For>())) return;
    }
    bool any_loop = false;
    for_each_stmt(fn_.body, [&](const Stmt& s) { any_loop = any_loop || s.as<For>(); });
    if (any_loop) return;  // each misplaced loop is reported where it is
    SourceRange r = def_range();
    emit(ErrorKind::UnsupportedSyntax, r,
         "definition " + at(r) +
             " has no parallel loop: a kernel's work is one top-level `for i in range(n):` or "
             "`for i, j in tack.ndrange(n, m):` loop");
}

// From the `def` keyword (where the parser starts a definition, as Python does) to the name.
SourceRange Validator::def_range() const {
    return {fn_.range.begin, fn_.name_range.end};
}

// DECISIONS G7: `return expr` as the kernel's last statement, after the parallel loop, in a
// kernel annotated `-> tack.f32`, `-> float` or `-> int`.
bool Validator::g7_return(const Return& r) const {
    if (!r.value || !fn_.returns || fn_.body.empty() || fn_.body.back().get() != &r) return false;
    if (!parallel_loop_) return false;
    auto spelled = dotted_name(*fn_.returns);
    if (!spelled) return false;
    if (*spelled == "float" || *spelled == "int") return true;
    Resolution res = env_.resolve(*spelled);
    if (res.kind == Resolution::Kind::Intrinsic) return res.intrinsic == "f32";
    return res.kind == Resolution::Kind::Unbound && (*spelled == "tack.f32" || *spelled == "f32");
}

// ---- statements -------------------------------------------------------------------------------

void Validator::stmt(const Stmt& s) {
    const Stmt* saved = current_;
    current_ = &s;
    switch (s.kind) {
        case StmtKind::ExprStmt:
            expr_stmt(*s.as<ExprStmt>());
            break;
        case StmtKind::Assign:
            assign(*s.as<Assign>());
            break;
        case StmtKind::AugAssign:
            aug_assign(*s.as<AugAssign>());
            break;
        case StmtKind::If:
            if_stmt(*s.as<If>());
            break;
        case StmtKind::For:
            for_stmt(*s.as<For>());
            break;
        case StmtKind::While:
            while_stmt(*s.as<While>());
            break;
        case StmtKind::Return:
            return_stmt(*s.as<Return>());
            break;
        case StmtKind::Break:
            break_stmt(*s.as<Break>());
            break;
        case StmtKind::Continue:
            if (loops_.empty()) reject("Continue", s.range, "continue must be inside a loop");
            break;
        case StmtKind::Pass:
            break;
        case StmtKind::AnnAssign:
        case StmtKind::FunctionDef:
        case StmtKind::UnsupportedStmt:
            reject(python_class_name(s), s.range);
            break;
    }
    current_ = saved;
}

void Validator::expr_stmt(const ExprStmt& s) {
    if (s.value->as<StrLit>()) return;  // docstrings and bare strings have no effect
    if (auto* c = s.value->as<Call>()) return call(*c, Use::Statement);
    expr(*s.value);
    if (!s.value->as<Unsupported>())  // `yield x`: naming the Yield says it all
        reject("Expr", s.range, "expression statements must be supported function calls");
}

void Validator::assign(const Assign& s) {
    bool unpacked = std::all_of(s.targets.begin(), s.targets.end(),
                                [](const ExprPtr& t) { return t->as<Tuple>() || t->as<List>(); });
    if (!unpacked && s.value->as<Tuple>()) no_tuple(*s.value);
    value(*s.value, unpacked ? Use::Unpacked : Use::Value);
    auto* source = s.value->as<Name>();
    if (source && arrays_.count(source->id)) {
        for (const auto& t : s.targets) {
            if (!t->as<Name>()) continue;
            reject("Assign", s.range,
                   "local and shared arrays are storage, not values: index '" + source->id +
                       "' or pass it to a @tack.func instead of binding it to '" +
                       t->as<Name>()->id + "'");
            break;
        }
    }
    for (const auto& t : s.targets) {
        target(*t);
        unpack_count(*t, *s.value);
    }
    if (is_store(s)) effect("store");
}

// `a, b = 1, 2, 3` and `a, b = f()` for an f returning three values: the counts are the
// source's, whatever the arguments are.
void Validator::unpack_count(const Expr& target, const Expr& value) {
    const auto* tuple = target.as<Tuple>();
    const auto* list = target.as<List>();
    static const std::vector<ExprPtr> kNone;
    const std::vector<ExprPtr>& elts = tuple ? tuple->elts : list ? list->elts : kNone;
    size_t targets = elts.size();
    // `a, *b = ...` is refused as Starred already; its count is not the targets'.
    auto starred = [](const ExprPtr& t) { return t->as<Unsupported>() != nullptr; };
    if (!targets || std::any_of(elts.begin(), elts.end(), starred)) return;
    size_t values = 0;
    if (const auto* t = value.as<Tuple>()) {
        values = t->elts.size();
    } else if (const auto* c = value.as<Call>()) {
        Callee callee = resolve_callee(*c->func, names_, env_);
        if (callee.kind == Callee::Kind::Func) values = tuple_return_size(*callee.func.def);
    }
    if (values && values != targets)
        emit(ErrorKind::TypeError, target.range,
             unpack_message(values, targets) + " " + at(target.range));
}

void Validator::aug_assign(const AugAssign& s) {
    if (auto* n = s.target->as<Name>()) {
        name(*n);
    } else if (s.target->as<Subscript>() || s.target->as<Attribute>()) {
        target(*s.target);
    } else {
        reject(python_class_name(*s.target), s.target->range,
               "augmented assignment needs a name, an element or a component");
    }
    value(*s.value, Use::Value);
    if (auto* n = s.target->as<Name>()) ended_.erase(n->id);
    if (is_store(s)) effect("store");
}

void Validator::if_stmt(const If& s) {
    expr(*s.cond);
    auto before = ended_;
    block(s.body);
    auto after_body = std::move(ended_);
    ended_ = std::move(before);
    block(s.orelse);
    ended_.insert(after_body.begin(), after_body.end());  // ended on either path
}

void Validator::for_stmt(const For& s) {
    if (!s.orelse.empty()) reject("For", s.range, "for-else is not supported");
    bool parallel = false;
    bool misplaced = false;
    if (outside_parallel_loop()) {
        parallel = &s == parallel_loop_;
        misplaced = !parallel;
    }
    if (misplaced) {
        emit(ErrorKind::UnsupportedSyntax, s.range,
             "for loop " + at(s.range) +
                 " is outside the parallel loop. A kernel has one parallel loop, directly in its "
                 "body; nest this loop inside it or launch the work as another kernel");
    }
    loop_iter(s);
    loop_target(*s.target);
    bool saved_parallel = in_parallel_;
    bool saved_misplaced = in_misplaced_;
    in_parallel_ = in_parallel_ || parallel;
    in_misplaced_ = in_misplaced_ || misplaced;
    loops_.push_back(parallel);
    block(s.body);
    block(s.orelse);
    loops_.pop_back();
    in_parallel_ = saved_parallel;
    in_misplaced_ = saved_misplaced;
    std::set<std::string, std::less<>> bound;
    if (auto* n = s.target->as<Name>()) bound.insert(n->id);
    if (auto* t = s.target->as<Tuple>())
        for (const auto& e : t->elts)
            if (auto* n = e->as<Name>()) bound.insert(n->id);
    ended_.insert(bound.begin(), bound.end());
}

void Validator::loop_iter(const For& s) {
    auto* c = s.iter->as<Call>();
    Callee callee = c ? resolve_callee(*c->func, names_, env_) : Callee{};
    if (callee.kind == Callee::Kind::Builtin &&
        callee.builtin->category == builtins::Category::Range)
        return call(*c, Use::Iter);
    // `for c in obj`: only the argument tells whether `obj` is a template that declares
    // __tack_iterate__, so lowering decides (and rejects anything else with this wording).
    if (s.iter->as<Name>() || s.iter->as<Attribute>()) return expr(*s.iter);
    emit(ErrorKind::UnsupportedSyntax, s.iter->range,
         "loop iterable '" + text(s.iter->range) + "' " + at(s.iter->range) +
             " is not range(...) or tack.ndrange(...)");
}

void Validator::loop_target(const Expr& t) {
    auto ok = [](const Expr& e) { return e.as<Name>() != nullptr; };
    bool valid = ok(t);
    if (auto* tu = t.as<Tuple>())
        valid =
            std::all_of(tu->elts.begin(), tu->elts.end(), [&](const ExprPtr& e) { return ok(*e); });
    if (!valid) {
        reject(python_class_name(t), t.range,
               "a for loop target must be a name or a tuple of names");
        return;
    }
    if (auto* n = t.as<Name>()) ended_.erase(n->id);
    if (auto* tu = t.as<Tuple>())
        for (const auto& e : tu->elts)
            ended_.erase(e->as<Name>()->id);
}

void Validator::while_stmt(const While& s) {
    if (!s.orelse.empty()) reject("While", s.range, "while-else is not supported");
    ++conditional_;
    expr(*s.cond);
    --conditional_;
    loops_.push_back(false);
    block(s.body);
    block(s.orelse);
    loops_.pop_back();
}

void Validator::return_stmt(const Return& s) {
    bool last = !fn_.body.empty() && fn_.body.back().get() == &s && loops_.empty();
    if (kernel_ && (!last || !s.value || !parallel_loop_)) {
        reject("Return", s.range,
               "kernels write results to fields; a kernel may return a value only as its last "
               "statement, after its parallel loop (with a '-> tack.f32', '-> float' or '-> int' "
               "annotation)");
    } else if (kernel_ && !fn_.returns) {
        reject("Return", s.range, kReturnNeedsAnnotation);
    } else if (kernel_ && !g7_return(s)) {
        reject("Return", s.range,
               "a kernel's return annotation must be '-> tack.f32', '-> float' or '-> int'");
    } else if (!kernel_ && !loops_.empty()) {
        reject("Return", s.range, "return inside a loop is not supported");
    } else if (kernel_) {
        check_g7_reads(*s.value);
    }
    if (s.value) value(*s.value, Use::Unpacked);
}

// G7: the return value is evaluated once, after the launch, so it cannot see a local that only
// the (per-iteration) body of the parallel loop assigns.
void Validator::check_g7_reads(const Expr& value) {
    std::map<std::string, int> everywhere;
    std::map<std::string, int> in_loop;
    auto count_into = [](std::map<std::string, int>& counts) {
        return [&counts](const Stmt& st) {
            if (auto* a = st.as<Assign>())
                for (const auto& t : a->targets)
                    if (auto* n = t->as<Name>()) ++counts[n->id];
            if (auto* a = st.as<AugAssign>())
                if (auto* n = a->target->as<Name>()) ++counts[n->id];
        };
    };
    for_each_stmt(fn_.body, count_into(everywhere));
    for_each_stmt(parallel_loop_->body, count_into(in_loop));
    std::function<void(const Expr&)> reads = [&](const Expr& e) {
        auto* n = e.as<Name>();
        if (n && in_loop.count(n->id) && in_loop[n->id] == everywhere[n->id]) {
            emit(ErrorKind::UnsupportedSyntax, n->range,
                 "the return value reads '" + n->id + "', which the parallel loop assigns " +
                     at(n->range) +
                     "; a kernel's return value may read fields, parameters, constants and "
                     "locals assigned outside the loop");
        }
        for_each_child(e, reads);
    };
    reads(value);
}

void Validator::break_stmt(const Break& s) {
    if (loops_.empty())
        reject("Break", s.range, "break must be inside a sequential loop");
    else if (loops_.back())
        reject("Break", s.range, "break from the parallel loop has no defined execution order");
}

// ---- expressions ------------------------------------------------------------------------------

void Validator::value(const Expr& e, Use use) {
    if (auto* c = e.as<Call>()) return call(*c, use);
    expr(e);
}

// Errors that need no argument types, so `tackc check` reports them (issue 12): a tuple as an
// operand, `@` of two scalar literals, a non-literal shape index, float range() bounds, an
// attribute no value has.
void Validator::no_tuple(const Expr& e) {
    if (e.as<Tuple>())
        reject("Tuple", e.range,
               "a tuple is not a value here (only as an assignment's or return's value list); "
               "write a vector as tack.Vector([...]) or [...]");
}

// An empty list or tuple where lowering reads a list's elements.
bool Validator::empty_list(const Expr& e, const std::string& what, SourceRange r) {
    const auto* list = e.as<List>();
    const auto* tuple = e.as<Tuple>();
    if (!(list && list->elts.empty()) && !(tuple && tuple->elts.empty())) return false;
    emit(ErrorKind::UnsupportedSyntax, r, what + " is empty " + at(r));
    return true;
}

void Validator::operand_checks(const Expr& e) {
    if (auto* b = e.as<Binary>()) {
        no_tuple(*b->lhs);
        no_tuple(*b->rhs);
        auto literal = [](const Expr& x) {
            return x.as<IntLit>() || x.as<FloatLit>() || x.as<BoolLit>();
        };
        if (b->op == BinaryOp::MatMul && literal(*b->lhs) && literal(*b->rhs))
            reject("MatMult", e.range,
                   "operator @ multiplies matrices and vectors, not two scalars; use '*'");
        auto ta = static_type(*b->lhs, names_, env_), tb = static_type(*b->rhs, names_, env_);
        if (ta && tb) {
            if (auto why = binary_type_error(b->op, *ta, *tb))
                emit(ErrorKind::TypeError, e.range, *why + " " + at(e.range));
        }
    } else if (auto* u = e.as<Unary>()) {
        no_tuple(*u->operand);
    } else if (auto* c = e.as<Compare>()) {
        for (const auto& o : c->operands)
            no_tuple(*o);
    } else if (auto* x = e.as<IfExp>()) {
        no_tuple(*x->then_value);
        no_tuple(*x->else_value);
        no_tuple(*x->cond);
    } else if (auto* s = e.as<Subscript>()) {
        auto* attr = s->value->as<Attribute>();
        if (attr && attr->attr == "shape" && attr->value->as<Name>() && s->indices.size() == 1) {
            const Expr& k = *s->indices[0];
            const Expr* lit = &k;
            if (auto* neg = k.as<Unary>(); neg && neg->op == UnaryOp::Neg) lit = neg->operand.get();
            bool constant = lit->as<IntLit>();
            if (auto dn = dotted_name(*lit); dn && !names_.binds(*dn))
                constant = env_.resolve(*dn).kind == Resolution::Kind::Constant;
            // NotImplemented, as upstream: dispatch reports it as the kernel's failure on the
            // backend, with this located error as the cause (C27).
            if (!constant)
                emit(ErrorKind::NotImplemented, e.range,
                     "'" + text(e.range) + "' " + at(e.range) +
                         " needs a constant dimension index: an integer literal or a "
                         "tack.constant; the shape is resolved when the kernel is compiled");
        }
    }
}

void Validator::expr(const Expr& e) {
    operand_checks(e);
    switch (e.kind) {
        case ExprKind::Name:
            return name(*e.as<Name>());
        case ExprKind::Attribute:
            return attribute(*e.as<Attribute>());
        case ExprKind::Call:
            return call(*e.as<Call>(), Use::Value);
        case ExprKind::IntLit:
            if (e.as<IntLit>()->overflow)
                emit(ErrorKind::TypeError, e.range,
                     "integer literal " + text(e.range) + " " + at(e.range) +
                         " is outside the 64-bit range [-2**63, 2**64 - 1]");
            return;
        case ExprKind::FloatLit:
        case ExprKind::BoolLit:
            return;
        case ExprKind::StrLit:
        case ExprKind::NoneLit:
            return reject("Constant", e.range, "only numeric literals are supported here");
        case ExprKind::Unsupported:
            return reject(python_class_name(e), e.range);
        case ExprKind::List:
            if (empty_list(e, "the list", e.range)) return;
            break;
        case ExprKind::Compare:
            for (CompareOp op : e.as<Compare>()->ops)
                if (const char* cls = compare_op_class(op)) reject(cls, e.range);
            break;
        case ExprKind::Subscript: {
            auto* s = e.as<Subscript>();
            expr(*s->value);
            for (const auto& i : s->indices)
                if (!i->as<NoneLit>()) expr(*i);  // `field[None]` reads a 0-d field
            return;
        }
        case ExprKind::IfExp: {
            auto* x = e.as<IfExp>();
            expr(*x->cond);
            ++conditional_;
            expr(*x->then_value);
            expr(*x->else_value);
            --conditional_;
            return;
        }
        case ExprKind::BoolOp: {
            auto& values = e.as<BoolOp>()->values;
            for (size_t i = 0; i < values.size(); ++i) {
                conditional_ += i == 1;
                expr(*values[i]);
            }
            conditional_ -= values.size() > 1;
            return;
        }
        default:
            break;
    }
    for_each_child(e, [&](const Expr& child) { expr(child); });
}

void Validator::name(const Name& n) {
    if (ended_.count(n.id)) {
        emit(ErrorKind::NameError, n.range,
             "loop variable '" + n.id + "' " + at(n.range) +
                 " is read after its loop ended; a for loop's variable is bound only inside "
                 "its loop (copy it to another name inside the loop)");
        return;
    }
    if (!names_.binds(n.id)) external(n.id, n.range);
}

void Validator::attribute(const Attribute& a) {
    auto dotted = dotted_name(a);
    if (dotted) {
        std::string root = dotted->substr(0, dotted->find('.'));
        if (!names_.binds(root) && !ended_.count(root)) return external(*dotted, a.range);
    }
    // On a bare name the value may be a template instance, whose attributes only dispatch
    // knows; elsewhere (a[i].foo) no kernel value has the attribute.
    if (!is_value_attribute(a.attr) && !a.value->as<Name>() && !a.value->as<Attribute>()) {
        reject("Attribute", a.range,
               "'" + a.attr +
                   "' is not an attribute of any kernel value (fields have .shape and .size, "
                   "vectors .x .y .z .w and methods such as .norm())");
    }
    expr(*a.value);
}

// A name the function does not bind: only constants (and dtypes, as allocation arguments)
// can be read (A6).
void Validator::external(const std::string& dotted, SourceRange r) {
    Resolution res = env_.resolve(dotted);
    std::string last = dotted.substr(dotted.rfind('.') + 1);
    std::string base = dotted.substr(0, dotted.rfind('.'));
    if (base != dotted && res.kind != Resolution::Kind::Constant) {
        // A component of a vector constant (SUN.y): lowering checks the name and the width.
        Resolution b = env_.resolve(base);
        if (b.kind == Resolution::Kind::Constant && b.constant.kind == Constant::Kind::Tuple)
            return;
    }
    auto is_cast = [](std::string_view n) {
        const builtins::Builtin* b = builtins::find(n);
        return b && b->category == builtins::Category::Cast;
    };
    switch (res.kind) {
        case Resolution::Kind::Constant:
            return;
        case Resolution::Kind::Intrinsic:
            if (is_cast(res.intrinsic)) return;
            return emit(ErrorKind::UnsupportedSyntax, r,
                        "intrinsic '" + dotted + "' " + at(r) + " can only be called");
        case Resolution::Kind::Func:
            return emit(ErrorKind::UnsupportedSyntax, r,
                        "@tack.func '" + dotted + "' " + at(r) +
                            " can only be called; device functions are not values");
        case Resolution::Kind::Other:
            return emit(ErrorKind::NameError, r,
                        "name '" + dotted + "' " + at(r) + " is bound to " + res.other_description +
                            ", which kernels cannot read; " + kReadableNames);
        case Resolution::Kind::Unbound:
            break;
    }
    std::string root = dotted.substr(0, dotted.find('.'));
    bool qualified = root != dotted;
    if (!qualified && is_cast(dotted)) return;  // `f32` as a dtype argument
    if (qualified && env_.resolve(root).kind == Resolution::Kind::Unbound) {
        // `tack.f32` / `math.pi` in a module without the import: upstream's AST-only leniency.
        if ((root == "tack" && is_cast(last)) ||
            (root == "math" && (last == "pi" || last == "e" || last == "tau")))
            return;
        return emit(ErrorKind::NameError, r,
                    "name '" + root + "' " + at(r) + " is not defined; " + kReadableNames);
    }
    emit(ErrorKind::NameError, r,
         "name '" + dotted + "' " + at(r) + " is not defined; " + kReadableNames);
}

void Validator::target(const Expr& t) {
    if (auto* n = t.as<Name>()) {
        ended_.erase(n->id);
    } else if (auto* s = t.as<Subscript>()) {
        expr(*s->value);
        for (const auto& i : s->indices)
            if (!i->as<NoneLit>()) expr(*i);  // `field[None] = v` writes a 0-d field
    } else if (auto* a = t.as<Attribute>()) {
        auto dotted = dotted_name(t);
        if (dotted && !names_.binds(dotted->substr(0, dotted->find('.'))))
            return reject("Attribute", t.range,
                          "only locals, array elements and their components can be assigned");
        expr(*a->value);
    } else if (auto* tu = t.as<Tuple>()) {
        for (const auto& e : tu->elts)
            target(*e);
    } else if (auto* l = t.as<List>()) {
        for (const auto& e : l->elts)
            target(*e);
    } else if (t.as<Unsupported>()) {
        reject(python_class_name(t), t.range);
    } else {
        reject(python_class_name(t), t.range, "cannot assign to this expression");
    }
}

void Validator::call(const Call& c, Use use) {
    if (!c.keywords.empty())
        reject("Call", c.range, "keyword arguments and **kwargs are not supported");
    Callee callee = resolve_callee(*c.func, names_, env_);
    switch (callee.kind) {
        case Callee::Kind::Builtin:
            builtin_call(c, *callee.builtin, use);
            break;
        case Callee::Kind::Func:
            func_call(c, callee.func, use);
            break;
        case Callee::Kind::Method:
            expr(*c.func);
            for (const auto& a : c.args)
                expr(*a);
            break;
        case Callee::Kind::Invalid:
            emit(ErrorKind::UnsupportedSyntax, c.range,
                 "Call '" + text(c.func->range) + "' " + at(c.range) +
                     " is not a statically bound @tack.func or a supported kernel intrinsic" +
                     (callee.why.empty() ? "" : " (" + callee.why + ")"));
            for (const auto& a : c.args)
                expr(*a);
            break;
    }
    for (const auto& k : c.keywords)
        expr(*k.value);
}

void Validator::builtin_call(const Call& c, const builtins::Builtin& b, Use use) {
    std::string name = std::string(b.name) + "()";
    if (b.category == builtins::Category::Range && use != Use::Iter)
        reject("Call", c.range, name + " is only supported as the iterable of a for loop");
    if (b.category == builtins::Category::Constant)
        reject("Call", c.range, "tack.constant() is only supported at module level");
    if (!b.value_ok && use != Use::Statement)
        reject("Call", c.range, name + " is only supported as a statement");
    size_t n = c.args.size();
    if (b.max_args == 0 && n > 0) {
        reject("Call", c.range, name + " takes no arguments");
    } else if (!b.signature.accepts(n)) {
        emit(ErrorKind::TypeError, c.range,
             name + " " + at(c.range) + " " + builtins::arity_error(b.signature, n));
    }
    if (b.category == builtins::Category::Workgroup && b.needs_workgroups && b.value_ok &&
        b.max_args > 0 && conditional_ > 0) {
        reject("Call", c.range,
               name +
                   " must be reached by every lane of the workgroup; it cannot be in a "
                   "conditional expression arm, a later and/or operand or a while condition");
    }
    if (!b.allowed_outside_loop) effect(name);
    // tack.Vector([...]) and tack.Matrix([...]) read their list's elements.
    bool reads_list =
        b.category == builtins::Category::Construct && (b.name == "Vector" || b.name == "Matrix");
    for (const auto& a : c.args) {
        if (b.category == builtins::Category::Print && a->as<StrLit>()) continue;  // labels
        if (reads_list && empty_list(*a, "tack." + std::string(b.name) + "([...])", c.range))
            continue;
        expr(*a);
    }
    if (b.category == builtins::Category::Alloc && n == 2 &&
        never_static_size(*c.args[1], names_)) {
        const Expr& size = *c.args[1];
        emit(ErrorKind::TypeError, size.range, alloc_size_message(b.name) + " " + at(size.range));
    }
    if (b.category == builtins::Category::Range) {
        for (const auto& a : c.args) {
            const Expr* x = a.get();
            if (auto* neg = x->as<Unary>()) x = neg->operand.get();
            if (x->as<FloatLit>())
                reject("Call", a->range, name + " bounds must be integers, not floats");
        }
    }
    if (b.name == "range" && n == 3 && is_literal_nonpositive_step(*c.args[2]))
        reject(python_class_name(*c.args[2]), c.args[2]->range, "range() step must be positive");
}

void Validator::func_call(const Call& c, const FuncRef& f, Use use) {
    const FunctionDef& def = *f.def;
    size_t want = def.params.size();
    size_t got = c.args.size();
    if (got != want) {
        emit(ErrorKind::TypeError, c.range,
             def.name + "() " + at(c.range) + " takes " + plural(want, "positional argument") +
                 " but " + std::to_string(got) + (got == 1 ? " was" : " were") + " given");
    }
    size_t values = tuple_return_size(def);
    if (values > 0 && use != Use::Unpacked && use != Use::Statement) {
        std::string targets;
        for (size_t i = 0; i < values; ++i)
            targets += (i ? ", " : "") + std::string(1, 'a' + i % 26);
        reject("Call", c.range,
               def.name + "() returns " + std::to_string(values) +
                   " values; unpack them into one target each (" + targets + " = " + def.name +
                   "(...))");
    }
    if (outside_parallel_loop()) inlined_outside_.push_back(f);
    for (const auto& a : c.args)
        expr(*a);
}

// Resolves nothing: the checks that must run before any name is bound (decoration time).
class NoNames final : public Environment {
  public:
    Resolution resolve(std::string_view) const override { return {}; }
};

}  // namespace

std::vector<diag::Diagnostic> validate_result(const FunctionDef& fn,
                                              const diag::SourceFilePtr& file) {
    std::vector<diag::Diagnostic> out;
    NoNames none;
    Validator(fn, file, none, out).run_result_checks();
    return out;
}

std::vector<diag::Diagnostic> validate(const FunctionDef& fn, const diag::SourceFilePtr& file,
                                       const Environment& env) {
    std::vector<diag::Diagnostic> out;
    Validator(fn, file, env, out).run();
    return out;
}

}  // namespace tack::sema
