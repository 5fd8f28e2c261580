// CONTRACT D13: collectives (barrier, block_sum/min/max) must sit on control flow that every
// lane of a workgroup takes alike. A forward dataflow over the structured IR tracks which
// variables may differ between lanes; a collective under a lane-varying condition, loop bound or
// after a lane-varying break/continue is refused with the path of the collective in the IR.
//
// Uniform: constants, extents, scalar parameters, collective results and operations on uniform
// operands. Varying: the parallel loop variables, thread_id(), every array load, atomic results
// and anything derived from them or assigned under varying control. Loops iterate to a fixed
// point, so a varying assignment late in a loop body reaches a collective earlier in it.
#include <set>

#include "passes/passes.hpp"

namespace tack::passes {

namespace {

using ir::Expr;
using ir::Stmt;

// Why control is lane-varying at a point; empty when every lane is there together.
using Divergence = std::string;

class Participation {
  public:
    explicit Participation(const ir::Kernel& k) : kernel_(k) {}

    std::string run() {
        for (const auto& d : kernel_.dims)
            varying_.insert(d.var.get());
        walk_block(kernel_.prologue, "prologue", "");
        walk_block(kernel_.body, "body", "");
        return error_;
    }

  private:
    int line(ir::SourceRange r) const {
        return kernel_.file && r.valid() ? kernel_.file->line_of(r.begin) : 0;
    }
    std::string where(ir::SourceRange r) const { return "at line " + std::to_string(line(r)); }

    bool varying(const ir::ExprPtr& e) const {
        if (!e) return false;
        if (auto v = e->as<ir::VarRef>()) return varying_.count(v->var.get()) > 0;
        if (e->as<ir::Load>() || e->as<ir::ThreadId>() || e->as<ir::TexSample>()) return true;
        if (auto c = e->as<ir::Cast>()) return varying(c->value);
        if (auto u = e->as<ir::Unary>()) return varying(u->a);
        if (auto b = e->as<ir::Binary>()) return varying(b->a) || varying(b->b);
        if (auto c = e->as<ir::Compare>()) return varying(c->a) || varying(c->b);
        if (auto l = e->as<ir::Logical>()) return varying(l->a) || varying(l->b);
        if (auto s = e->as<ir::Select>()) return varying(s->cond) || varying(s->a) || varying(s->b);
        if (auto c = e->as<ir::Call>()) {
            for (const auto& a : c->args)
                if (varying(a)) return true;
        }
        return false;  // IntImm, FloatImm, ArrayDim
    }

    void set(const ir::VarPtr& v, bool is_varying) {
        if (is_varying)
            varying_.insert(v.get());
        else
            varying_.erase(v.get());
    }

    void collective(const char* name, const std::string& path, const Divergence& why) {
        if (why.empty() || !error_.empty()) return;
        error_ = "Kernel '" + kernel_.name + "': " + name + " at " + path +
                 " requires uniform workgroup participation: " + why;
    }

    // Returns the divergence a lane-varying break/continue leaves behind ("" when none).
    Divergence walk_block(const ir::Block& block, const std::string& path, Divergence why) {
        Divergence left;
        for (std::size_t i = 0; i < block.size(); ++i) {
            Divergence d =
                walk(*block[i], path + "[" + std::to_string(i) + "]", why.empty() ? left : why);
            if (left.empty()) left = d;
        }
        return left;
    }

    Divergence walk(const Stmt& s, const std::string& path, const Divergence& why) {
        if (auto a = s.as<ir::Assign>()) {
            set(a->var, !why.empty() || varying(a->value));
        } else if (auto a = s.as<ir::Atomic>()) {
            if (a->result) set(a->result, true);
        } else if (s.as<ir::Barrier>()) {
            collective("barrier", path, why);
        } else if (auto r = s.as<ir::BlockReduce>()) {
            static const char* const kNames[] = {"block_sum", "block_min", "block_max"};
            collective(kNames[static_cast<int>(r->op)], path, why);
            set(r->result, !why.empty());
        } else if (auto f = s.as<ir::If>()) {
            return walk_if(*f, path, why);
        } else if (auto f = s.as<ir::For>()) {
            walk_for(*f, path, why);
        } else if (auto w = s.as<ir::While>()) {
            walk_while(*w, path, why);
        } else if (s.as<ir::Break>() || s.as<ir::Continue>()) {
            // A lane leaving under varying control makes the rest of the enclosing body varying.
            if (!why.empty())
                return std::string(s.as<ir::Break>() ? "a lane-varying `break` "
                                                     : "a lane-varying `continue` ") +
                       where(s.range) + " precedes it";
        }
        return "";
    }

    Divergence walk_if(const ir::If& f, const std::string& path, const Divergence& why) {
        Divergence inner = !why.empty() ? why
                           : varying(f.cond)
                               ? "the `if` condition " + where(f.range) + " varies across lanes"
                               : "";
        std::set<const ir::Var*> before = varying_;
        Divergence d1 = walk_block(f.then_body, path + ".then", inner);
        std::set<const ir::Var*> after_then = std::move(varying_);
        varying_ = before;
        Divergence d2 = walk_block(f.else_body, path + ".else", inner);
        varying_.insert(after_then.begin(), after_then.end());  // join
        return d1.empty() ? d2 : d1;
    }

    // Runs `body` until the varying set and the loop's own divergence stop growing.
    template <class Bounds>
    void fixed_point(const ir::Block& body, const std::string& path, const Divergence& why,
                     Bounds&& bounds) {
        Divergence exited;
        for (int round = 0; round < 64; ++round) {
            std::set<const ir::Var*> before = varying_;
            Divergence control = !why.empty() ? why : bounds();
            if (control.empty()) control = exited;
            Divergence d = walk_block(body, path, control);
            bool grew = exited.empty() && !d.empty();
            if (exited.empty()) exited = d;
            varying_.insert(before.begin(), before.end());
            if (!grew && varying_ == before) return;
        }
    }

    void walk_for(const ir::For& f, const std::string& path, const Divergence& why) {
        fixed_point(f.body, path + ".body", why, [&]() -> Divergence {
            bool v = varying(f.start) || varying(f.end) || varying(f.step);
            set(f.var, v || !why.empty());
            return v ? "the `for` bounds " + where(f.range) + " vary across lanes" : "";
        });
    }

    void walk_while(const ir::While& w, const std::string& path, const Divergence& why) {
        fixed_point(w.body, path + ".body", why, [&]() -> Divergence {
            return varying(w.cond)
                       ? "the `while` condition " + where(w.range) + " varies across lanes"
                       : "";
        });
    }

    const ir::Kernel& kernel_;
    std::set<const ir::Var*> varying_;
    std::string error_;
};

}  // namespace

std::string check_participation(const ir::Kernel& k) {
    return Participation(k).run();
}

}  // namespace tack::passes
