// ModuleEnvironment: what a name outside a kernel means, answered from the parsed module alone
// (its imports, `tack.constant` assignments and @tack.func definitions) plus constants a C++
// caller supplies. This mirrors upstream's static binding (CONTRACT A6, A22): only module
// objects are followed through dots, and names bound to the same-named object of `tack` or
// `math` are intrinsics.

#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "builtins/builtins.hpp"
#include "frontend/parser.hpp"
#include "sema/environment.hpp"

namespace tack::sema {

Constant Constant::integer(__int128 v, std::optional<DType> dt) {
    Constant c;
    c.kind = Kind::Int;
    c.ival = v;
    c.dtype = dt;
    return c;
}

Constant Constant::floating(double v, std::optional<DType> dt) {
    Constant c;
    c.kind = Kind::Float;
    c.fval = v;
    c.dtype = dt;
    return c;
}

namespace {

using frontend::Expr;
using Kind = Resolution::Kind;

std::vector<std::string_view> split_dots(std::string_view dotted) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    while (true) {
        size_t dot = dotted.find('.', start);
        parts.push_back(dotted.substr(start, dot - start));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return parts;
}

std::string join(const std::vector<std::string_view>& parts, size_t from) {
    std::string out;
    for (size_t i = from; i < parts.size(); ++i) {
        if (!out.empty()) out += '.';
        out += parts[i];
    }
    return out;
}

Resolution other(std::string description) {
    Resolution r;
    r.kind = Kind::Other;
    r.other_description = std::move(description);
    return r;
}

// "'sqrt' of module 'numpy'": what a name imported from a module is, for messages.
std::string member_of(std::string_view member, std::string_view module) {
    return "'" + std::string(member) + "' of module '" + std::string(module) + "'";
}

Resolution intrinsic(std::string_view name) {
    Resolution r;
    r.kind = Kind::Intrinsic;
    r.intrinsic = std::string(name);
    return r;
}

Resolution constant(Constant c) {
    Resolution r;
    r.kind = Kind::Constant;
    r.constant = c;
    return r;
}

// math.pi, math.e and math.tau read as literals (CONTRACT A6); the values are Python's doubles.
std::optional<Constant> math_constant(std::string_view name) {
    if (name == "pi") return Constant::floating(3.141592653589793);
    if (name == "e") return Constant::floating(2.718281828459045);
    if (name == "tau") return Constant::floating(6.283185307179586);
    return std::nullopt;
}

// A member of the `math` module: a constant, an intrinsic of the same name, or something else.
Resolution resolve_math_member(std::string_view member) {
    if (auto c = math_constant(member)) return constant(*c);
    const builtins::Builtin* b = builtins::find(member);
    if (b && (b->category == builtins::Category::Math || b->category == builtins::Category::MinMax))
        return intrinsic(member);
    return other(member_of(member, "math"));
}

// tack.random, parsed once from python/tack/random.py's text (compiled in): the Python package
// binds the same definitions from the same file, so both sides draw the same numbers.
const char kRandomSource[] =
#include "sema/random_source.inc"
    ;

const ModuleEnvironment& random_module() {
    static const std::shared_ptr<ModuleEnvironment> env = [] {
        auto file = std::make_shared<diag::SourceFile>("tack/random.py", kRandomSource);
        frontend::ParseResult parsed = frontend::parse_module(file);
        auto module = std::make_shared<const frontend::Module>(std::move(parsed.module));
        return std::make_shared<ModuleEnvironment>(module);
    }();
    return *env;
}

// `tack.random.X`: `path[from]` names the member.
Resolution resolve_random_path(const std::vector<std::string_view>& path, size_t from) {
    size_t n = path.size() - from;
    if (n == 0) return other("module 'tack.random'");
    if (n == 1) {
        Resolution r = random_module().resolve(path[from]);
        if (r.kind == Kind::Func || r.kind == Kind::Constant) return r;
    }
    return other(member_of(join(path, from), "tack.random"));
}

// `tack.X...` or `tack.math.X...`: `path` is what follows the module.
Resolution resolve_tack_path(const std::vector<std::string_view>& path, size_t from) {
    size_t n = path.size() - from;
    if (n == 0) return other("module 'tack'");
    std::string_view head = path[from];
    if (head == "random") return resolve_random_path(path, from + 1);
    if (head == "math") {
        if (n == 1) return other("module 'tack.math'");
        if (n == 2 && builtins::find(path[from + 1])) return intrinsic(path[from + 1]);
        return other(member_of(join(path, from + 1), "tack.math"));
    }
    if (n == 1 && builtins::find(head)) return intrinsic(head);
    // tack.Matrix.identity: a static method of a vector class, listed as "Matrix.identity".
    if (n == 2) {
        std::string member = join(path, from);
        const builtins::Builtin* b = builtins::find(member);
        if (b && b->category == builtins::Category::Construct) return intrinsic(member);
    }
    return other(member_of(join(path, from), "tack"));
}

Resolution resolve_math_path(const std::vector<std::string_view>& path, size_t from) {
    size_t n = path.size() - from;
    if (n == 0) return other("module 'math'");
    if (n == 1) return resolve_math_member(path[from]);
    return other(member_of(join(path, from), "math"));
}

// `path[from..]` inside `module` (a dotted module name such as "tack", "tack.math", "numpy").
Resolution resolve_in_module(const std::string& module, const std::vector<std::string_view>& path,
                             size_t from) {
    if (module == "tack") return resolve_tack_path(path, from);
    if (module == "tack.math") {
        std::vector<std::string_view> full = {"math"};
        full.insert(full.end(), path.begin() + static_cast<long>(from), path.end());
        return resolve_tack_path(full, 0);
    }
    if (module == "tack.random") return resolve_random_path(path, from);
    if (module == "math") return resolve_math_path(path, from);
    if (from == path.size()) return other("module '" + module + "'");
    return other(member_of(join(path, from), module));
}

Resolution resolve_import(const frontend::ImportBinding& imp,
                          const std::vector<std::string_view>& path) {
    if (imp.member.empty()) {
        // `import tack.math` binds `tack` itself (only an alias binds the submodule).
        bool binds_package =
            imp.module.size() > imp.local_name.size() &&
            imp.module.compare(0, imp.local_name.size() + 1, imp.local_name + ".") == 0;
        return resolve_in_module(binds_package ? imp.local_name : imp.module, path, 1);
    }
    // `from m import x [as y]`: y.rest means m.x.rest
    std::vector<std::string_view> full = {imp.member};
    full.insert(full.end(), path.begin() + 1, path.end());
    return resolve_in_module(imp.module, full, 0);
}

// ---- tack.constant evaluation ---------------------------------------------------------------

using Value = std::variant<Constant, std::string>;  // the constant or why it cannot be evaluated

Value eval_tuple(const Expr& e);

Value eval_literal(const Expr& e) {
    if (auto* i = e.as<frontend::IntLit>()) {
        if (i->overflow) return std::string("integer literal does not fit in 64 bits");
        return Constant::integer(static_cast<__int128>(i->value));
    }
    if (auto* f = e.as<frontend::FloatLit>()) return Constant::floating(f->value);
    if (auto* b = e.as<frontend::BoolLit>()) return Constant::integer(b->value ? 1 : 0);
    if (auto* u = e.as<frontend::Unary>()) {
        if (u->op != frontend::UnaryOp::Neg && u->op != frontend::UnaryOp::Pos)
            return std::string("only numeric literals and unary minus are supported");
        Value v = eval_literal(*u->operand);
        if (auto* c = std::get_if<Constant>(&v); c && u->op == frontend::UnaryOp::Neg) {
            if (c->kind == Constant::Kind::Int)
                c->ival = -c->ival;
            else
                c->fval = -c->fval;
        }
        return v;
    }
    if (e.as<frontend::Tuple>() || e.as<frontend::List>()) return eval_tuple(e);
    return std::string("the value must be a numeric literal");
}

// (a, b, c) or ((a, b), (c, d)): a vector or matrix constant (CONTRACT A27).
Value eval_tuple(const Expr& e) {
    auto elements = [](const Expr& x) -> const std::vector<frontend::ExprPtr>* {
        if (auto* t = x.as<frontend::Tuple>()) return &t->elts;
        if (auto* l = x.as<frontend::List>()) return &l->elts;
        return nullptr;
    };
    const auto& rows = *elements(e);
    if (rows.empty()) return std::string("a vector constant has no components");
    Constant c;
    c.kind = Constant::Kind::Tuple;
    bool matrix = elements(*rows[0]) != nullptr;
    for (const auto& r : rows) {
        const auto* items = elements(*r);
        if ((items != nullptr) != matrix) return std::string("a mix of numbers and rows");
        if (!matrix) {
            Value v = eval_literal(*r);
            if (auto* x = std::get_if<Constant>(&v); x && x->kind != Constant::Kind::Tuple) {
                c.items.push_back(*x);
                continue;
            }
            return std::string("vector components must be numeric literals");
        }
        if (items->empty() || (c.cols && static_cast<int>(items->size()) != c.cols))
            return std::string("the rows must have the same, nonzero length");
        c.cols = static_cast<int>(items->size());
        for (const auto& x : *items) {
            Value v = eval_literal(*x);
            auto* y = std::get_if<Constant>(&v);
            if (!y || y->kind == Constant::Kind::Tuple)
                return std::string("matrix entries must be numeric literals");
            c.items.push_back(*y);
        }
    }
    c.rows = static_cast<int>(rows.size());
    return c;
}

std::optional<std::string> dotted_name(const Expr& e) {
    if (auto* n = e.as<frontend::Name>()) return n->id;
    if (auto* a = e.as<frontend::Attribute>()) {
        auto base = dotted_name(*a->value);
        if (base) return *base + "." + a->attr;
    }
    return std::nullopt;
}

std::optional<DType> dtype_of_cast(std::string_view name) {
    if (name == "float") return DType::f32;
    if (name == "int") return DType::i32;
    return dtype_from_name(name);
}

}  // namespace

ModuleEnvironment::ModuleEnvironment(std::shared_ptr<const frontend::Module> module,
                                     std::map<std::string, Constant> extra_constants)
    : module_(std::move(module)), constants_(std::move(extra_constants)) {
    evaluate_constants(module_->constants);
}

ModuleEnvironment::ModuleEnvironment(std::shared_ptr<const frontend::Module> module, int scope,
                                     std::shared_ptr<const Environment> enclosing)
    : module_(std::move(module)), scope_(scope), enclosing_(std::move(enclosing)) {
    evaluate_constants(module_->scopes.at(static_cast<size_t>(scope)).constants);
}

void ModuleEnvironment::evaluate_constants(const std::vector<frontend::ConstantDef>& defs) {
    for (const frontend::ConstantDef& def : defs) {
        Value v = eval_literal(*def.value);
        auto* c = std::get_if<Constant>(&v);
        if (!c) {
            bad_constants_[def.name] = std::get<std::string>(v);
            continue;
        }
        if (def.dtype) {
            auto spelled = dotted_name(*def.dtype);
            Resolution r = spelled ? resolve(*spelled) : Resolution{};
            auto dt = r.kind == Kind::Intrinsic ? dtype_of_cast(r.intrinsic) : std::nullopt;
            if (!dt && spelled && r.kind == Kind::Unbound) dt = dtype_of_cast(*spelled);
            if (!dt) {
                bad_constants_[def.name] = "its dtype is not a Tack scalar type";
                continue;
            }
            c->dtype = dt;
            for (Constant& item : c->items)
                item.dtype = dt;
        }
        constants_.try_emplace(def.name, *c);
    }
}

Resolution ModuleEnvironment::resolve(std::string_view dotted_name) const {
    if (auto it = constants_.find(std::string(dotted_name)); it != constants_.end())
        return constant(it->second);
    std::vector<std::string_view> path = split_dots(dotted_name);
    std::string_view head = path.front();
    if (auto it = bad_constants_.find(std::string(head)); it != bad_constants_.end())
        return other("tack.constant '" + it->first + "' (" + it->second + ")");
    const auto& defs = scope_ < 0 ? module_->functions : module_->nested;
    for (const auto& fn : defs) {
        if (fn->name != head || fn->scope != scope_) continue;
        if (path.size() > 1) return other("an attribute of function '" + fn->name + "'");
        if (fn->def_kind != frontend::DefKind::Func)
            return other(fn->def_kind == frontend::DefKind::Kernel
                             ? "the @tack.kernel '" + fn->name + "'"
                             : "function '" + fn->name + "'");
        Resolution r;
        r.kind = Kind::Func;
        r.func.def = fn.get();
        r.func.file = module_->file;
        r.func.env = shared_from_this();
        r.func.keep_alive = module_;
        return r;
    }
    // The last import of a name wins, as in Python.
    const auto& imports =
        scope_ < 0 ? module_->imports : module_->scopes[static_cast<size_t>(scope_)].imports;
    for (auto it = imports.rbegin(); it != imports.rend(); ++it) {
        if (it->local_name == head) return resolve_import(*it, path);
    }
    const auto& globals =
        scope_ < 0 ? module_->globals : module_->scopes[static_cast<size_t>(scope_)].globals;
    for (auto it = globals.rbegin(); it != globals.rend(); ++it) {
        if (it->name == head) return other(global_description(*it, path.size() > 1));
    }
    return enclosing_ ? enclosing_->resolve(dotted_name) : Resolution{};
}

// What the Python package says of the same name: a number is "a plain Python float (2.0; ...)".
std::string ModuleEnvironment::global_description(const frontend::ConstantDef& global,
                                                  bool attribute) const {
    if (attribute) return "an attribute of the module global '" + global.name + "'";
    std::string hint =
        "declare it as `" + global.name + " = tack.constant(...)` to read it in kernels";
    if (!global.value) {
        int line = module_->file->line_of(global.range.begin);
        return "a module global assigned at line " + std::to_string(line) + " (" + hint + ")";
    }
    const Expr* e = global.value.get();
    if (auto* u = e->as<frontend::Unary>()) e = u->operand.get();
    const char* kind = e->as<frontend::FloatLit>() ? "float" : "int";
    const std::string& text = module_->file->text();
    std::string value =
        text.substr(global.value->range.begin, global.value->range.end - global.value->range.begin);
    return std::string("a plain Python ") + kind + " (" + value + "; " + hint + ")";
}

}  // namespace tack::sema
