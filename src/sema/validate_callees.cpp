// The checks of validation that follow @tack.func calls into other definitions: recursion
// (CONTRACT A5, A20) and effects a kernel inlines before or after its parallel loop (A12).
// Each callee resolves its own calls in its own namespace (A22).

#include <map>

#include "sema/sema.hpp"
#include "sema/validate.hpp"

namespace tack::sema {

using namespace frontend;

namespace {

// The @tack.func calls in one definition, in source order, with the statement holding each.
struct CallSite {
    const Call* call;
    const Stmt* stmt;
    FuncRef callee;
};

std::vector<CallSite> func_calls(const FunctionDef& fn, const Environment& env) {
    FunctionNames names = collect_names(fn);
    std::vector<CallSite> sites;
    for_each_stmt(fn.body, [&](const Stmt& s) {
        for_each_call(s, [&](const Call& c) {
            Callee callee = resolve_callee(*c.func, names, env);
            if (callee.kind == Callee::Kind::Func) sites.push_back({&c, &s, callee.func});
        });
    });
    return sites;
}

// Depth-first search for a call path from `from` back to `root`; `path` holds the names.
// Paths longer than kMaxCallDepth are not followed: lowering refuses the nesting first.
bool reaches(const FuncRef& from, const FunctionDef* root, std::set<const void*>& visited,
             std::vector<std::string>& path) {
    if (!visited.insert(from.identity()).second || path.size() > size_t(kMaxCallDepth))
        return false;
    for (const CallSite& site : func_calls(*from.def, *from.env)) {
        path.push_back(site.callee.def->name);
        if (site.callee.def == root || reaches(site.callee, root, visited, path)) return true;
        path.pop_back();
    }
    return false;
}

std::string join_chain(const std::vector<std::string>& path) {
    std::string out;
    for (const auto& p : path)
        out += (out.empty() ? "" : " -> ") + p;
    return out;
}

}  // namespace

// Every call site of `fn` from which a call path leads back to `fn` is reported, with the chain.
void check_recursion(const FunctionDef& fn, const diag::SourceFilePtr& file, const Environment& env,
                     std::vector<diag::Diagnostic>& out) {
    for (const CallSite& site : func_calls(fn, env)) {
        std::vector<std::string> path = {fn.name, site.callee.def->name};
        std::set<const void*> visited;
        if (site.callee.def != &fn && !reaches(site.callee, &fn, visited, path)) continue;
        out.push_back({diag::ErrorKind::UnsupportedSyntax,
                       function_label(fn) + ": Recursive @tack.func call " +
                           diag::at_position(*file, site.call->range) + ": " + join_chain(path),
                       file, site.call->range});
    }
}

namespace {

class InlinedEffects {
  public:
    InlinedEffects(const FunctionDef& kernel, std::vector<diag::Diagnostic>& out)
        : kernel_(kernel), out_(out) {}

    void scan(const FuncRef& f) {
        if (!active_.insert(f.identity()).second) return;  // recursion is reported elsewhere
        if (active_.size() > size_t(kMaxCallDepth)) {      // lowering refuses the nesting
            active_.erase(f.identity());
            return;
        }
        FunctionNames names = collect_names(*f.def);
        for_each_stmt(f.def->body, [&](const Stmt& s) {
            if (is_store(s)) report(f, s, "store");
            for_each_call(s, [&](const Call& c) {
                Callee callee = resolve_callee(*c.func, names, *f.env);
                if (callee.kind == Callee::Kind::Builtin && !callee.builtin->allowed_outside_loop)
                    report(f, s, std::string(callee.builtin->name) + "()");
                if (callee.kind == Callee::Kind::Func) scan(callee.func);
            });
        });
        active_.erase(f.identity());
    }

  private:
    void report(const FuncRef& f, const Stmt& s, const std::string& what) {
        if (!reported_.insert({&s, what}).second) return;
        out_.push_back({diag::ErrorKind::UnsupportedSyntax,
                        "Device function '" + f.def->name + "' (inlined into kernel '" +
                            kernel_.name + "'): " + what + " " +
                            diag::at_position(*f.file, s.range) +
                            " is outside the parallel loop. " + kOutsideLoopReason,
                        f.file, s.range});
    }

    const FunctionDef& kernel_;
    std::vector<diag::Diagnostic>& out_;
    std::set<const void*> active_;
    std::set<std::pair<const Stmt*, std::string>> reported_;
};

}  // namespace

void check_inlined_effects(const FunctionDef& kernel, const std::vector<FuncRef>& calls,
                           std::vector<diag::Diagnostic>& out) {
    InlinedEffects effects(kernel, out);
    for (const FuncRef& f : calls)
        effects.scan(f);
}

std::vector<diag::Diagnostic> validate_with_callees(const FunctionDef& fn,
                                                    const diag::SourceFilePtr& file,
                                                    const Environment& env) {
    std::vector<diag::Diagnostic> out = validate(fn, file, env);
    std::set<const void*> seen = {&fn};
    std::vector<std::pair<const FunctionDef*, const Environment*>> work = {{&fn, &env}};
    std::vector<FuncRef> keep;  // keeps callee modules alive while they are walked
    while (!work.empty()) {
        auto [def, def_env] = work.back();
        work.pop_back();
        for (const CallSite& site : func_calls(*def, *def_env)) {
            if (!seen.insert(site.callee.identity()).second) continue;
            keep.push_back(site.callee);
            for (auto& d : validate(*site.callee.def, site.callee.file, *site.callee.env))
                out.push_back(std::move(d));
            work.push_back({site.callee.def, site.callee.env.get()});
        }
    }
    return out;
}

}  // namespace tack::sema
