// Lane qualification and shape analysis (see lanes.hpp).
//
// The analysis is a fixed point over the body: variable shapes only rise (Bottom < Uniform <
// Linear < Varying) and loops only become divergent, so repeating the walk until nothing changes
// terminates. Rules:
//   * an assignment in a divergent context (inside a varying `if` or a divergent loop) makes the
//     variable varying: lanes that skipped it keep their own value;
//   * a variable is Linear only when its first reference in the body is a top-level assignment
//     (a value carried in from an earlier iteration has no linear form);
//   * Linear arithmetic: i64 add/sub of linear or uniform operands, multiply or shift by a
//     constant, negation; anything else of a non-uniform operand is varying;
//   * a loop is divergent when its condition or bounds vary or a break/continue leaves it under
//     a varying `if`; a `continue` of the parallel loop only retires lanes, which never read
//     anything again, so it diverges nothing.

#include <algorithm>

#include "codegen/llvm/arith.hpp"
#include "codegen/llvm/internal.hpp"
#include "codegen/llvm/lanes_plan.hpp"
#include "ir/visitor.hpp"

namespace tack::codegen::llvm_cpu::detail {
namespace {

// Why a node keeps the kernel on the scalar loop (nullptr: the lane emitter supports it).
// clang-format off
const char* const kExprRefusal[] = {
    nullptr, nullptr, nullptr,                   // IntImm FloatImm VarRef
    "an unspecialized array extent",            // ArrayDim
    nullptr, nullptr, nullptr, nullptr,          // Cast Unary Binary Compare
    nullptr, nullptr, nullptr, nullptr, nullptr, // Logical Select Load TableLoad Call
    "thread_id() (workgroup kernels)",          // ThreadId
    "an unexpanded texture sample",             // TexSample (lower_textures expands them first)
};
const char* const kStmtRefusal[] = {
    nullptr, nullptr, nullptr,                   // Assign Store Atomic (lane by lane)
    nullptr, nullptr, nullptr, nullptr, nullptr, // If For While Break Continue
    "print() (its output keeps the per-iteration order only in the scalar loop)",
    nullptr,                                     // AllocArray (local; shared is refused below)
    "barrier() (workgroup kernels)",
    "a block reduction (workgroup kernels)",
};
// clang-format on
static_assert(std::size(kExprRefusal) == static_cast<size_t>(ir::ExprKind::TexSample) + 1);
static_assert(std::size(kStmtRefusal) == static_cast<size_t>(ir::StmtKind::BlockReduce) + 1);

// Auto takes a loop with lane gathers only when it does this much lane arithmetic per gather.
constexpr int kOpsPerGather = 8;

// Per-lane copies of local arrays live on the worker's stack: W times the scalar size.
constexpr int64_t kMaxLaneArrayBytes = 64 * 1024;

Shape join(Shape a, Shape b) {
    if (a.kind == Shape::Bottom) return b;
    if (b.kind == Shape::Bottom || a == b) return a;
    return Shape::varying();
}

/// Uniform when every operand is, Bottom while one is still unknown, else Varying.
Shape all_uniform(std::initializer_list<Shape> operands) {
    Shape out = Shape::uniform();
    for (Shape s : operands) {
        if (s.kind == Shape::Bottom) return s;
        if (s.kind != Shape::Uniform) out = Shape::varying();
    }
    return out;
}

/// Lanes may disagree (a linear value differs from lane to lane too).
bool lane_varying(Shape s) {
    return s.kind == Shape::Linear || s.kind == Shape::Varying;
}

uint64_t stride_of(Shape s) {
    return s.kind == Shape::Linear ? s.stride : 0;
}

const ir::IntImm* as_constant(const ir::Expr& e) {
    return e.as<ir::IntImm>();
}

/// Collects the first unsupported construct, the variables the body assigns, and whether it
/// has a sequential loop.
class Survey : public ir::IRVisitor {
  public:
    std::string refusal;
    std::unordered_set<const ir::Var*> assigned;
    bool has_loop = false;
    int64_t local_bytes = 0;

    void visit_expr(const ir::ExprPtr& e) override {
        if (const char* r = kExprRefusal[static_cast<size_t>(e->kind)]; r && refusal.empty())
            refusal = r;
        IRVisitor::visit_expr(e);
    }
    void visit_stmt(const ir::StmtPtr& s) override {
        if (const char* r = kStmtRefusal[static_cast<size_t>(s->kind)]; r && refusal.empty())
            refusal = r;
        IRVisitor::visit_stmt(s);
    }
    void visit(const ir::Assign* n) override {
        assigned.insert(n->var.get());
        IRVisitor::visit(n);
    }
    void visit(const ir::Atomic* n) override {
        if (n->result) assigned.insert(n->result.get());
        IRVisitor::visit(n);
    }
    void visit(const ir::For* n) override {
        has_loop = true;
        assigned.insert(n->var.get());
        IRVisitor::visit(n);
    }
    void visit(const ir::While* n) override {
        has_loop = true;
        IRVisitor::visit(n);
    }
    void visit(const ir::AllocArray* n) override {
        if (n->buffer->kind != ir::BufferKind::Local && refusal.empty())
            refusal = "a shared array (workgroup kernels)";
        local_bytes += n->buffer->size * size_bytes(n->buffer->elem);
        IRVisitor::visit(n);
    }
};

/// Variables whose first reference in the body is a top-level assignment of a value that does
/// not read them: each iteration defines them before any use.
class DefinedFirst : public ir::IRVisitor {
  public:
    explicit DefinedFirst(const ir::Block& body) {
        for (const auto& s : body) {
            const auto* a = s->as<ir::Assign>();
            if (a) visit_expr(a->value);
            if (a && !seen_.count(a->var.get())) defined.insert(a->var.get());
            visit_stmt(s);
        }
    }
    std::unordered_set<const ir::Var*> defined;

    void visit(const ir::VarRef* n) override { seen_.insert(n->var.get()); }
    void visit(const ir::Assign* n) override {
        seen_.insert(n->var.get());
        IRVisitor::visit(n);
    }
    void visit(const ir::Atomic* n) override {
        if (n->result) seen_.insert(n->result.get());
        IRVisitor::visit(n);
    }
    void visit(const ir::For* n) override {
        seen_.insert(n->var.get());
        IRVisitor::visit(n);
    }

  private:
    std::unordered_set<const ir::Var*> seen_;
};

class Analysis {
  public:
    Analysis(const ir::Kernel& k, LanePlan& plan, const Survey& survey)
        : plan_(plan), defined_first_(DefinedFirst(k.body).defined) {
        // A variable an iteration may read before assigning it starts from the scalar value
        // carried in (the prologue's, or an earlier iteration's): uniform.
        for (const ir::Var* v : survey.assigned)
            plan_.vars[v] = defined_first_.count(v) ? Shape{} : Shape::uniform();
        const ir::ExprPtr& step = k.dims.back().step;
        const ir::IntImm* constant_step = as_constant(*step);
        lane_shape_ = constant_step ? Shape::linear(constant_step->bits) : Shape::varying();
        if (lane_shape_.kind != Shape::Uniform) plan_.vars[plan_.lane_var] = lane_shape_;
    }

    void run(const ir::Block& body) {
        do {
            changed_ = false;
            block(body, Ctx{});
        } while (changed_);
    }

  private:
    struct Ctx {
        bool divergent = false;           // some live lane may be inactive here
        const ir::Stmt* loop = nullptr;   // target of break/continue
        bool varying_since_loop = false;  // under a varying `if` inside that loop
    };

    Shape var(const ir::Var& v) const {
        if (&v == plan_.lane_var) return lane_shape_;
        auto it = plan_.vars.find(&v);
        return it == plan_.vars.end() ? Shape::uniform() : it->second;
    }

    void assign(const ir::Var& v, Shape s, const Ctx& c) {
        if (c.divergent) s = Shape::varying();
        if (s.kind == Shape::Linear && !defined_first_.count(&v)) s = Shape::varying();
        Shape& slot = plan_.vars[&v];
        Shape next = join(slot, s);
        if (next != slot) {
            slot = next;
            changed_ = true;
        }
    }

    void mark_divergent(const ir::Stmt* loop) {
        if (plan_.divergent_loops.insert(loop).second) changed_ = true;
    }

    // ---- expressions ------------------------------------------------------------------------

    Shape expr(const ir::Expr& e) {
        Shape s = ir::dispatch(e, [this](const auto* n) { return shape(n); });
        plan_.exprs[&e] = s;
        return s;
    }

    Shape shape(const ir::IntImm*) { return Shape::uniform(); }
    Shape shape(const ir::FloatImm*) { return Shape::uniform(); }
    Shape shape(const ir::VarRef* n) { return var(*n->var); }
    Shape shape(const ir::ArrayDim*) { return Shape::uniform(); }
    Shape shape(const ir::ThreadId*) { return Shape::varying(); }
    Shape shape(const ir::TexSample*) { return Shape::varying(); }
    Shape shape(const ir::Cast* n) { return all_uniform({expr(*n->value)}); }
    Shape shape(const ir::Unary* n) {
        Shape a = expr(*n->a);
        if (n->op == ir::UnaryOp::Neg && n->type == DType::i64 && a.kind == Shape::Linear)
            return Shape::linear(0 - a.stride);
        return all_uniform({a});
    }
    Shape shape(const ir::Binary* n) {
        Shape a = expr(*n->a), b = expr(*n->b);
        Shape plain = all_uniform({a, b});
        if (n->type != DType::i64 || plain.kind != Shape::Varying) return plain;
        if (a.kind == Shape::Varying || b.kind == Shape::Varying) return plain;
        switch (n->op) {
            case ir::BinaryOp::Add:
                return Shape::linear(stride_of(a) + stride_of(b));
            case ir::BinaryOp::Sub:
                return Shape::linear(stride_of(a) - stride_of(b));
            case ir::BinaryOp::Mul:
                if (const ir::IntImm* k = as_constant(*n->b))
                    return Shape::linear(a.stride * k->bits);
                if (const ir::IntImm* k = as_constant(*n->a))
                    return Shape::linear(b.stride * k->bits);
                return plain;
            case ir::BinaryOp::Shl:
                if (const ir::IntImm* k = as_constant(*n->b); k && a.kind == Shape::Linear)
                    return Shape::linear(a.stride << (k->bits & 63));
                return plain;
            default:
                return plain;
        }
    }
    Shape shape(const ir::Compare* n) { return all_uniform({expr(*n->a), expr(*n->b)}); }
    Shape shape(const ir::Logical* n) { return all_uniform({expr(*n->a), expr(*n->b)}); }
    Shape shape(const ir::Select* n) {
        return all_uniform({expr(*n->cond), expr(*n->a), expr(*n->b)});
    }
    // A local array is per iteration: what a lane reads from it is its own, at any index.
    Shape shape(const ir::Load* n) {
        Shape index = expr(*n->index);
        if (n->buffer->kind != ir::BufferKind::Param) return Shape::varying();
        return all_uniform({index});
    }
    Shape shape(const ir::TableLoad* n) { return all_uniform({expr(*n->index)}); }
    Shape shape(const ir::Call* n) {
        Shape s = Shape::uniform();
        for (const auto& a : n->args) {
            Shape sa = all_uniform({expr(*a)});
            if (sa.kind == Shape::Bottom) return sa;
            if (sa.kind == Shape::Varying) s = sa;
        }
        return s;
    }

    // ---- statements -------------------------------------------------------------------------

    void block(const ir::Block& b, const Ctx& c) {
        for (const auto& s : b)
            ir::dispatch(*s, [&](const auto* n) { stmt(n, c); });
    }

    void stmt(const ir::Assign* s, const Ctx& c) { assign(*s->var, expr(*s->value), c); }
    void stmt(const ir::Store* s, const Ctx&) {
        expr(*s->index);
        expr(*s->value);
    }
    void stmt(const ir::Atomic* s, const Ctx& c) {
        expr(*s->index);
        expr(*s->value);
        if (s->result) assign(*s->result, Shape::varying(), c);
    }
    void stmt(const ir::If* s, const Ctx& c) {
        bool varying = lane_varying(expr(*s->cond));
        Ctx arm = c;
        arm.divergent |= varying;
        arm.varying_since_loop |= varying;
        block(s->then_body, arm);
        block(s->else_body, arm);
    }
    Ctx loop_body(const ir::Stmt* loop, bool bounds_vary, const Ctx& c) {
        if (bounds_vary) mark_divergent(loop);
        return Ctx{c.divergent || plan_.divergent_loops.count(loop) > 0, loop, false};
    }
    void stmt(const ir::For* s, const Ctx& c) {
        Shape bounds = all_uniform({expr(*s->start), expr(*s->end), expr(*s->step)});
        Ctx body = loop_body(s, lane_varying(bounds), c);
        assign(*s->var, bounds, body);
        block(s->body, body);
    }
    void stmt(const ir::While* s, const Ctx& c) {
        Ctx body = loop_body(s, lane_varying(expr(*s->cond)), c);
        block(s->body, body);
    }
    void stmt(const ir::Break*, const Ctx& c) {
        if (c.loop && c.varying_since_loop) mark_divergent(c.loop);
    }
    void stmt(const ir::Continue*, const Ctx& c) {
        if (c.loop && c.varying_since_loop) mark_divergent(c.loop);
    }
    void stmt(const ir::Print*, const Ctx&) {}
    void stmt(const ir::AllocArray*, const Ctx&) {}
    void stmt(const ir::Barrier*, const Ctx&) {}
    void stmt(const ir::BlockReduce*, const Ctx&) {}

    LanePlan& plan_;
    std::unordered_set<const ir::Var*> defined_first_;
    Shape lane_shape_;
    bool changed_ = false;
};

/// Inside the body's sequential loops: lane gathers and scatters (an access whose index is
/// neither uniform nor contiguous, or any varying access to a local array) that the loops
/// repeat (their index reads a variable the loops assign; others LLVM hoists), against the
/// lane arithmetic around them (a libm call counts as 8 operations).
struct LoopWork {
    int gathers = 0;
    int ops = 0;
};

/// Variables a statement list assigns (nested statements included).
std::unordered_set<const ir::Var*> assigned_in(const ir::Block& b) {
    Survey s;
    s.visit_block(b);
    return s.assigned;
}

bool reads_any(const ir::Expr& e, const std::unordered_set<const ir::Var*>& vars) {
    struct Scan : ir::IRVisitor {
        const std::unordered_set<const ir::Var*>& vars;
        bool found = false;
        explicit Scan(const std::unordered_set<const ir::Var*>& v) : vars(v) {}
        void visit(const ir::VarRef* n) override { found |= vars.count(n->var.get()) > 0; }
    } scan(vars);
    ir::dispatch(e, [&](const auto* n) { static_cast<ir::IRVisitor&>(scan).visit(n); });
    return scan.found;
}

class LoopWorkScan : public ir::IRVisitor {
  public:
    explicit LoopWorkScan(const LanePlan& p) : plan_(p) {}
    LoopWork work;

    void visit_expr(const ir::ExprPtr& e) override {
        bool op = e->kind == ir::ExprKind::Binary || e->kind == ir::ExprKind::Unary ||
                  e->kind == ir::ExprKind::Compare || e->kind == ir::ExprKind::Cast;
        if (depth_ > 0 && shape(*e).kind == Shape::Varying) {
            if (op) work.ops += 1;
            if (const auto* c = e->as<ir::Call>())
                work.ops += math_calls_libm(c->fn, c->type) ? 8 : 2;
        }
        IRVisitor::visit_expr(e);
    }
    void visit(const ir::Load* n) override {
        access(*n->buffer, *n->index);
        IRVisitor::visit(n);
    }
    void visit(const ir::Store* n) override {
        access(*n->buffer, *n->index);
        IRVisitor::visit(n);
    }
    void visit(const ir::For* n) override { loop(n, n->var.get()); }
    void visit(const ir::While* n) override { loop(n, nullptr); }

  private:
    Shape shape(const ir::Expr& e) const {
        auto it = plan_.exprs.find(&e);
        return it == plan_.exprs.end() ? Shape::uniform() : it->second;
    }
    void access(const ir::Buffer& b, const ir::Expr& index) {
        Shape s = shape(index);
        bool contiguous =
            s.kind == Shape::Uniform || (b.kind == ir::BufferKind::Param && s == Shape::linear(1));
        if (depth_ > 0 && !contiguous && reads_any(index, loop_vars_)) ++work.gathers;
    }
    template <class Loop>
    void loop(const Loop* n, const ir::Var* var) {
        auto saved = loop_vars_;
        for (const ir::Var* v : assigned_in(n->body))
            loop_vars_.insert(v);
        if (var) loop_vars_.insert(var);
        ++depth_;
        IRVisitor::visit(n);
        --depth_;
        loop_vars_ = std::move(saved);
    }

    const LanePlan& plan_;
    int depth_ = 0;
    std::unordered_set<const ir::Var*> loop_vars_;  // assigned by the enclosing loops
};

LoopWork loop_work(const LanePlan& plan, const ir::Block& body) {
    LoopWorkScan scan(plan);
    scan.visit_block(body);
    return scan.work;
}

/// Bytes of the widest lane element: varying values and the elements of non-uniform accesses.
int widest_lane_bytes(const LanePlan& plan, const ir::Block& body) {
    struct Scan : ir::IRVisitor {
        const LanePlan& plan;
        int bytes = 0;
        explicit Scan(const LanePlan& p) : plan(p) {}
        bool varies(const ir::Expr& e) const {
            auto it = plan.exprs.find(&e);
            return it != plan.exprs.end() && it->second.kind != Shape::Uniform;
        }
        void visit_expr(const ir::ExprPtr& e) override {
            if (varies(*e) && e->type != DType::i64) bytes = std::max(bytes, size_bytes(e->type));
            IRVisitor::visit_expr(e);
        }
        void visit(const ir::Load* n) override {
            if (varies(*n->index)) bytes = std::max(bytes, size_bytes(n->buffer->elem));
            IRVisitor::visit(n);
        }
        void visit(const ir::Store* n) override {
            if (varies(*n->index)) bytes = std::max(bytes, size_bytes(n->buffer->elem));
            IRVisitor::visit(n);
        }
    } scan(plan);
    scan.visit_block(body);
    for (const auto& [v, s] : plan.vars) {
        if (s.kind == Shape::Varying) scan.bytes = std::max(scan.bytes, size_bytes(v->type));
    }
    return scan.bytes ? scan.bytes : 4;
}

/// Iterations of the innermost parallel dimension when the specialization made it a constant
/// (an inner dimension of an ndrange), else 0.
uint64_t constant_row(const ir::Kernel& k) {
    if (k.dims.size() < 2) return 0;
    const ir::LoopDim& d = k.dims.back();
    const ir::IntImm *start = as_constant(*d.start), *end = as_constant(*d.end),
                     *step = as_constant(*d.step);
    if (!start || !end || !step || step->as_signed() <= 0) return 0;
    int64_t span = end->as_signed() - start->as_signed();
    return span > 0 ? uint64_t((span + step->as_signed() - 1) / step->as_signed()) : 0;
}

// W is one vector register of the widest lane element times an unroll factor: several
// registers per value hide the latency of a loop-carried chain (a Mandelbrot iteration is a
// chain of dependent multiplies and adds; measured on a Zen 5 with AVX-512, 2026-12, CPU time
// of one thread: W = 16 / 32 / 64 / 128 ran 17.1 / 10.0 / 7.1 / 7.1 ms, an n-body step
// 2.0 / 2.0 / 2.0 / 2.6 ms once registers spilled). The factor keeps the varying variables
// within the register file and a constant row (ndrange) within one or two groups.
int lane_width(const LanePlan& plan, const ir::Kernel& k, int vector_bytes, int bytes) {
    constexpr int kMaxFactor = 4;
    const int registers = vector_bytes >= 64 ? 32 : 16;  // zmm0-31 with AVX-512
    int varying = 0;
    for (const auto& [v, s] : plan.vars)
        varying += s.kind == Shape::Varying;
    int native = std::clamp(vector_bytes / bytes, 4, 16);
    int factor = kMaxFactor;
    while (factor > 1 && varying * factor > registers)
        factor /= 2;
    uint64_t row = constant_row(k);
    while (factor > 1 && row && uint64_t(native * factor / 2) >= row)
        factor /= 2;
    return native * factor;
}

}  // namespace

LanePlan plan_lanes(const ir::Kernel& k, Lanes mode, int vector_bytes) {
    LanePlan plan;
    if (mode == Lanes::Off) {
        plan.reason = "lanes are off (TACK_CPU_LANES=0)";
        return plan;
    }
    if (k.dims.empty()) {
        plan.reason = "no parallel loop";
        return plan;
    }
    Survey survey;
    survey.visit_block(k.body);
    if (!survey.refusal.empty()) {
        plan.reason = survey.refusal;
        return plan;
    }
    for (const auto& d : k.dims) {
        if (survey.assigned.count(d.var.get())) {
            plan.reason = "the body assigns the parallel loop variable '" + d.var->name + "'";
            return plan;
        }
    }
    if (mode == Lanes::Auto && !survey.has_loop) {
        plan.reason = "no sequential loop in the body (LLVM's loop vectorizer takes it)";
        return plan;
    }
    plan.lane_var = k.dims.back().var.get();
    Analysis(k, plan, survey).run(k.body);
    // Gathers run about one element per cycle on the x86 cores we measured, slower than the
    // scalar loop's loads: a CSR sparse matrix-vector product (three gathers and two operations
    // per nonzero) ran 4x slower as lanes on a Zen 5 (2026-12).
    if (LoopWork w = loop_work(plan, k.body);
        mode == Lanes::Auto && w.ops < kOpsPerGather * w.gathers) {
        plan.reason = "gathers dominate its loops (" + std::to_string(w.gathers) + " gathers, " +
                      std::to_string(w.ops) + " lane operations): the scalar loop is faster";
        plan.vars.clear();
        plan.exprs.clear();
        plan.divergent_loops.clear();
        return plan;
    }
    int bytes = widest_lane_bytes(plan, k.body);
    int width = lane_width(plan, k, vector_bytes, bytes);
    if (survey.local_bytes * width > kMaxLaneArrayBytes) {
        plan.reason = "local arrays of " + std::to_string(survey.local_bytes) +
                      " bytes need too much stack for " + std::to_string(width) + " lanes";
        return plan;
    }
    plan.width = width;
    plan.reason = std::to_string(width) + " lanes of " + std::to_string(bytes) + "-byte elements";
    return plan;
}

int host_vector_bytes() {
    const HostTarget& host = host_identity();
    if (host.wide_vectors) return 64;
    if (host.features.find("+avx2") != std::string::npos) return 32;
    return 16;
}

}  // namespace tack::codegen::llvm_cpu::detail
