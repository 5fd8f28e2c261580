// Debug variants (DECISIONS "Debug mode"): every array index and integer divisor is checked,
// and the first violation of a launch is written to a small record that the host reads after
// the launch (runtime/debug_mode.cpp). Nothing here is new IR: a check is an `if` over ordinary
// compares, a guarded access is a Select (reads) or an `if` (writes, atomics), and the record is
// an atomic max on word 0 plus plain stores by the one thread that moved it from 0. So every
// code generator emits debug variants unchanged, and a kernel outside debug mode never meets
// this pass: its code stays what it was.
//
// Expressions have no side effects, but Select and Logical evaluate an operand only when it is
// chosen. An operand that needs a check is therefore lowered into statements under the same
// condition (an `if`), never hoisted above it; operands that need none stay trees. Spilled
// values go to fresh variables, and the only memory the new statements write is the record,
// which no user access can reach, so moving a check's loads ahead of the rest of its
// expression changes no result.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <unordered_map>

#include "diag/diagnostic.hpp"
#include "ir/verifier.hpp"
#include "ir/visitor.hpp"
#include "passes/passes.hpp"

namespace tack::passes {
namespace {

using namespace tack::ir;
using Kind = CheckSite::Kind;

bool same_range(SourceRange a, SourceRange b) {
    return a.begin == b.begin && a.end == b.end;
}
ExprPtr i64_imm(int64_t v, SourceRange r = {}) {
    return IntImm::make_i64(v, r);
}
ExprPtr i32_imm(int64_t v, SourceRange r = {}) {
    return IntImm::make(DType::i32, static_cast<uint64_t>(v), r);
}
ExprPtr zero(DType t, SourceRange r) {
    return is_float(t) ? FloatImm::make(t, 0, r) : IntImm::make(t, 0, r);
}
ExprPtr to_i64(const ExprPtr& e) {
    return e->type == DType::i64 ? e : Cast::make(DType::i64, e, e->range);
}

// The flat element index inside a vector or matrix field's base `flat * count` (lower_vector.cpp
// place_of, the vector atomics of lower_call.cpp): the Mul and its IntImm share one range.
const Binary* vector_base(const ExprPtr& def) {
    const auto* mul = def->as<Binary>();
    if (!mul || mul->op != BinaryOp::Mul) return nullptr;
    const auto* count = mul->b->as<IntImm>();
    return count && same_range(mul->range, count->range) ? mul : nullptr;
}

// `t` of an index `t` or `t + k`: how an access reads a materialized base.
const Var* base_var(const ExprPtr& index) {
    if (const auto* v = index->as<VarRef>()) return v->var.get();
    const auto* add = index->as<Binary>();
    if (add && add->op == BinaryOp::Add && add->b->as<IntImm>()) {
        if (const auto* v = add->a->as<VarRef>()) return v->var.get();
    }
    return nullptr;
}

// Sema materializes the index of these fields into a base variable before the accesses
// (vector components; a multi-dimensional place whose subscripts load).
bool may_use_base(const Buffer& b) {
    return b.kind == BufferKind::Param && (b.elem_rank > 0 || b.rank >= 2);
}

struct BaseUse {
    BufferPtr buffer;  // null once two different arrays use the variable
    bool read = false, write = false, atomic = false;
    Kind kind() const {
        if (atomic) return Kind::Atomic;
        if (read && write) return Kind::Update;
        return write ? Kind::Write : Kind::Read;
    }
};

// What the rewrite needs to know before it starts: how often each variable is assigned, which
// variables serve as a base index of which array, and the largest id in use.
class Prescan : public IRVisitor {
  public:
    std::map<const Var*, int> assigned;
    std::map<const Var*, BaseUse> bases;
    int max_id = 0;

    void note(const VarPtr& v) {
        if (v) max_id = std::max(max_id, v->id);
    }
    void note(const BufferPtr& b) {
        if (b) max_id = std::max(max_id, b->id);
    }
    void target(const VarPtr& v) {
        note(v);
        if (v) ++assigned[v.get()];
    }
    void use(const BufferPtr& b, const ExprPtr& index, Kind kind) {
        note(b);
        const Var* v = may_use_base(*b) ? base_var(index) : nullptr;
        if (!v) return;
        BaseUse& u = bases.try_emplace(v, BaseUse{b}).first->second;
        if (u.buffer != b) u.buffer = nullptr;
        (kind == Kind::Read ? u.read : kind == Kind::Write ? u.write : u.atomic) = true;
    }
    void visit(const VarRef* n) override { note(n->var); }
    void visit(const Load* n) override {
        use(n->buffer, n->index, Kind::Read);
        IRVisitor::visit(n);
    }
    void visit(const Store* n) override {
        use(n->buffer, n->index, Kind::Write);
        IRVisitor::visit(n);
    }
    void visit(const Atomic* n) override {
        use(n->buffer, n->index, Kind::Atomic);
        target(n->result);
        IRVisitor::visit(n);
    }
    void visit(const Assign* n) override {
        target(n->var);
        IRVisitor::visit(n);
    }
    void visit(const For* n) override {
        target(n->var);
        IRVisitor::visit(n);
    }
    void visit(const BlockReduce* n) override {
        target(n->result);
        IRVisitor::visit(n);
    }
    void visit(const AllocArray* n) override { note(n->buffer); }
};

class DebugChecks {
  public:
    explicit DebugChecks(Kernel k) : k_(std::move(k)), file_(k_.file) {}

    DebugChecked run() {
        Prescan scan;
        for (const auto& p : k_.params)
            p.is_array() ? scan.note(p.buffer) : scan.note(p.scalar);
        for (const auto& d : k_.dims)
            scan.note(d.var);
        for (const auto& v : k_.locals)
            scan.note(v);
        scan.visit_kernel(k_);
        next_id_ = scan.max_id + 1;
        assigned_ = std::move(scan.assigned);
        bases_ = std::move(scan.bases);

        DebugChecked out;
        out.errors_param = static_cast<int>(k_.params.size());
        errors_ =
            std::make_shared<const Buffer>(Buffer{"debug_errors", DType::i32, 1, BufferKind::Param,
                                                  out.errors_param, 0, next_id_++, k_.range});
        k_.params.push_back({errors_->name, nullptr, errors_});
        old_ = var("debug_first", DType::i32);

        in_prologue_ = true;
        Block prologue = block(k_.prologue);
        in_prologue_ = false;
        Block body = block(k_.body);
        if (pending_site_) {
            // The prologue may not store: its violation waits in variables for the body.
            Block init = {Assign::make(pending_site_, i32_imm(0))};
            for (const auto& v : pending_values_)
                init.push_back(Assign::make(v, i64_imm(0)));
            prologue.insert(prologue.begin(), init.begin(), init.end());
            std::vector<ExprPtr> values;
            for (const auto& v : pending_values_)
                values.push_back(VarRef::make(v));
            Block flush = record(VarRef::make(pending_site_), values, k_.range);
            body.insert(
                body.begin(),
                If::make(Compare::make(CompareOp::Ne, VarRef::make(pending_site_), i32_imm(0)),
                         flush, {}, k_.range));
        }
        k_.prologue = std::move(prologue);
        k_.body = std::move(body);
        for (const auto& [key, v] : extent_vars_) {
            out.extents.push_back(key);
            k_.params.push_back({v->name, v, nullptr});
        }
        k_.stmt_files.clear();
        verify(k_, "debug_checks");
        out.kernel = std::move(k_);
        out.sites = std::move(sites_);
        return out;
    }

  private:
    VarPtr var(const std::string& name, DType t, bool local = true) {
        auto v = std::make_shared<const Var>(Var{name, t, next_id_++, k_.range});
        if (local) k_.locals.push_back(v);
        return v;
    }

    ExprPtr spill(const ExprPtr& e, Block& out) {
        if (e->as<VarRef>() || e->as<IntImm>() || e->as<FloatImm>()) return e;
        VarPtr t = var("debug_value", e->type);
        out.push_back(Assign::make(t, e, e->range));
        return VarRef::make(t, e->range);
    }

    // Extent `dim` of an array (dim -1: its element count). A parameter's extents reach the
    // kernel as hidden scalars rather than ArrayDim, so a debug variant is specialized on
    // exactly the extents its plain variant is (the launch length still never recompiles).
    ExprPtr extent(const Buffer& b, int dim) {
        if (b.kind != BufferKind::Param) return i64_imm(b.size);
        std::pair<int, int> key{b.param_index, dim};
        auto it = extent_vars_.find(key);
        if (it == extent_vars_.end()) {
            std::string name =
                "debug_" + b.name + (dim < 0 ? "_size" : "_dim" + std::to_string(dim));
            it = extent_vars_.emplace(key, var(name, DType::i64, false)).first;
        }
        return VarRef::make(it->second);
    }

    int add_site(CheckSite s) {
        sites_.push_back(std::move(s));
        return static_cast<int>(sites_.size());
    }

    // Writes (site, values) to the record unless an earlier violation holds it. In the prologue
    // the values go to the pending variables instead (first one wins there too).
    Block record(const ExprPtr& site, const std::vector<ExprPtr>& values, SourceRange r) {
        TACK_ASSERT(values.size() <= kDebugRecordValues, "debug_checks: too many record values");
        if (in_prologue_) {
            if (!pending_site_) {
                pending_site_ = var("debug_pending_site", DType::i32);
                for (int k = 0; k < kDebugRecordValues; ++k)
                    pending_values_.push_back(var("debug_pending_value", DType::i64));
            }
            Block set = {Assign::make(pending_site_, site, r)};
            for (size_t k = 0; k < values.size(); ++k)
                set.push_back(Assign::make(pending_values_[k], values[k], r));
            return {
                If::make(Compare::make(CompareOp::Eq, VarRef::make(pending_site_), i32_imm(0), r),
                         set, {}, r)};
        }
        Block first = {Store::make(errors_, i64_imm(1), site, r)};
        for (size_t k = 0; k < values.size(); ++k) {
            int64_t word = 2 + 2 * static_cast<int64_t>(k);
            ExprPtr high = Binary::make(BinaryOp::Shr, values[k], i64_imm(32), r);
            first.push_back(
                Store::make(errors_, i64_imm(word), Cast::make(DType::i32, values[k], r), r));
            first.push_back(
                Store::make(errors_, i64_imm(word + 1), Cast::make(DType::i32, high, r), r));
        }
        return {Atomic::make(AtomicOp::Max, errors_, i64_imm(0), i32_imm(1), old_, r),
                If::make(Compare::make(CompareOp::Eq, VarRef::make(old_), i32_imm(0), r), first, {},
                         r)};
    }

    // An i32 variable that is 1 when every subscript is within [0, extent) of its axis, after
    // the `if` that records the violation when it is not.
    ExprPtr check_bounds(const std::vector<ExprPtr>& subs, const std::vector<ExprPtr>& extents,
                         CheckSite site, Block& out) {
        SourceRange r = site.range;
        ExprPtr ok;
        for (size_t d = 0; d < subs.size(); ++d) {
            ExprPtr axis = Binary::make(BinaryOp::BitAnd,
                                        Compare::make(CompareOp::Ge, subs[d], i64_imm(0, r), r),
                                        Compare::make(CompareOp::Lt, subs[d], extents[d], r), r);
            ok = ok ? Binary::make(BinaryOp::BitAnd, ok, axis, r) : axis;
        }
        VarPtr flag = var("debug_in_bounds", DType::i32);
        out.push_back(Assign::make(flag, ok, r));
        int id = add_site(std::move(site));
        out.push_back(If::make(Compare::make(CompareOp::Eq, VarRef::make(flag), i32_imm(0), r),
                               record(i32_imm(id), subs, r), {}, r));
        return VarRef::make(flag);
    }

    std::vector<ExprPtr> axis_extents(const Buffer& b, size_t rank) {
        std::vector<ExprPtr> e;
        for (size_t d = 0; d < rank; ++d)
            e.push_back(extent(b, static_cast<int>(d)));
        return e;
    }

    // The sema chain again, over the spilled subscripts.
    static ExprPtr flatten(const BufferPtr& b, const std::vector<ExprPtr>& subs, SourceRange r) {
        ExprPtr flat = subs[0];
        for (size_t d = 1; d < subs.size(); ++d) {
            ExprPtr scaled =
                Binary::make(BinaryOp::Mul, flat, ArrayDim::make(b, static_cast<int>(d), r), r);
            flat = Binary::make(BinaryOp::Add, scaled, subs[d], r);
        }
        return flat;
    }

    struct Guard {
        ExprPtr index;  // the access's index, over the checked values
        ExprPtr ok;     // i32: nonzero when the access is in bounds
    };

    // Checks one access of `b` at `index` and says how to guard it.
    Guard guard(const BufferPtr& b, const ExprPtr& index, Kind kind, SourceRange r, Block& out) {
        if (const Var* v = base_var(index)) {
            auto it = base_ok_.find(v);
            if (it != base_ok_.end())
                return {index, VarRef::make(it->second)};  // checked at its def
        }
        CheckSite site{kind, file_, r, b, false, 1};
        std::vector<ExprPtr> subs, extents;
        ExprPtr flat;
        std::optional<std::vector<ExprPtr>> chain;
        if (b->kind == BufferKind::Param && b->elem_rank == 0)
            chain = split_flat_index(index, *b, b->rank);
        if (b->kind != BufferKind::Param) {
            subs = {spill(lin(index, out), out)};
            extents = {extent(*b, 0)};
            site.per_axis = true;
            flat = subs[0];
        } else if (chain) {
            for (const auto& s : *chain)
                subs.push_back(spill(lin(s, out), out));
            extents = axis_extents(*b, subs.size());
            site.per_axis = true;
            flat = flatten(b, subs, index->range);
        } else {
            subs = {spill(lin(index, out), out)};
            extents = {extent(*b, -1)};
            flat = subs[0];
        }
        site.values = static_cast<int>(subs.size());
        ExprPtr ok = check_bounds(subs, extents, std::move(site), out);
        return {flat, ok};
    }

    // `t = flat * count` (or a multi-dimensional field's chain) that later accesses read as
    // `t + k`: checked here, per axis, where the subscripts are evaluated; the accesses are
    // guarded by the result. False when the assignment is not such a base.
    bool checked_base(const Assign& n, Block& out) {
        auto use = bases_.find(n.var.get());
        if (use == bases_.end() || !use->second.buffer || assigned_[n.var.get()] != 1) return false;
        const BufferPtr& b = use->second.buffer;
        const Binary* mul = b->elem_rank > 0 ? vector_base(n.value) : nullptr;
        if (b->elem_rank > 0 && !mul) return false;
        const ExprPtr& flat = mul ? mul->a : n.value;
        auto chain = split_flat_index(flat, *b, b->rank - b->elem_rank);
        if (!chain) return false;
        std::vector<ExprPtr> subs;
        for (const auto& s : *chain)
            subs.push_back(spill(lin(s, out), out));
        CheckSite site{use->second.kind(), file_, n.range, b, true, static_cast<int>(subs.size())};
        ExprPtr ok = check_bounds(subs, axis_extents(*b, subs.size()), std::move(site), out);
        ExprPtr value = flatten(b, subs, flat->range);
        if (mul) value = Binary::make(BinaryOp::Mul, value, mul->b, mul->range);
        out.push_back(Assign::make(n.var, value, n.range));
        base_ok_[n.var.get()] = ok->as<VarRef>()->var;
        return true;
    }

    static bool divides(const Binary& n) {
        if (!is_integer(n.type) || (n.op != BinaryOp::FloorDiv && n.op != BinaryOp::Mod))
            return false;
        const auto* c = n.b->as<IntImm>();
        return !c || c->bits == 0;
    }

    bool needs(const ExprPtr& e) {
        auto it = needs_.find(e.get());
        if (it != needs_.end()) return it->second;
        bool r = false;
        if (e->as<Load>()) {
            r = true;
        } else if (const auto* n = e->as<Cast>()) {
            r = needs(n->value);
        } else if (const auto* n = e->as<Unary>()) {
            r = needs(n->a);
        } else if (const auto* n = e->as<Binary>()) {
            r = divides(*n) || needs(n->a) || needs(n->b);
        } else if (const auto* n = e->as<Compare>()) {
            r = needs(n->a) || needs(n->b);
        } else if (const auto* n = e->as<Logical>()) {
            r = needs(n->a) || needs(n->b);
        } else if (const auto* n = e->as<Select>()) {
            r = needs(n->cond) || needs(n->a) || needs(n->b);
        } else if (const auto* n = e->as<TableLoad>()) {
            r = needs(n->index);
        } else if (const auto* n = e->as<Call>()) {
            r = std::any_of(n->args.begin(), n->args.end(),
                            [&](const auto& a) { return needs(a); });
        } else if (const auto* n = e->as<TexSample>()) {
            r = std::any_of(n->coord.begin(), n->coord.end(),
                            [&](const auto& a) { return needs(a); });
        }
        needs_.emplace(e.get(), r);
        return r;
    }

    // `e` with its checks emitted into `out`, in evaluation order.
    ExprPtr lin(const ExprPtr& e, Block& out) {
        if (!needs(e)) return e;
        SourceRange r = e->range;
        if (const auto* n = e->as<Load>()) {
            Guard g = guard(n->buffer, n->index, Kind::Read, r, out);
            return Select::make(g.ok, Load::make(n->buffer, g.index, r), zero(n->type, r), r);
        }
        if (const auto* n = e->as<Cast>()) return Cast::make(n->type, lin(n->value, out), r);
        if (const auto* n = e->as<Unary>()) return Unary::make(n->op, lin(n->a, out), r);
        if (const auto* n = e->as<Binary>()) {
            if (divides(*n)) return lin_divide(*n, out);
            ExprPtr a = lin(n->a, out);
            ExprPtr b = lin(n->b, out);
            return Binary::make(n->op, a, b, r);
        }
        if (const auto* n = e->as<Compare>()) {
            ExprPtr a = lin(n->a, out);
            ExprPtr b = lin(n->b, out);
            return Compare::make(n->op, a, b, r);
        }
        if (const auto* n = e->as<Logical>()) return lin_logical(*n, out);
        if (const auto* n = e->as<Select>()) return lin_select(*n, out);
        if (const auto* n = e->as<TableLoad>())
            return TableLoad::make(n->table, lin(n->index, out), r);
        if (const auto* n = e->as<Call>()) {
            std::vector<ExprPtr> args;
            for (const auto& a : n->args)
                args.push_back(lin(a, out));
            return Call::make(n->fn, std::move(args), r);
        }
        if (const auto* n = e->as<TexSample>()) {
            // The sample itself clamps (never out of bounds); its coordinates may read fields.
            std::array<ExprPtr, 3> coord;
            for (size_t k = 0; k < coord.size(); ++k)
                coord[k] = lin(n->coord[k], out);
            return TexSample::make(n->texture, coord, n->extent, r);
        }
        return e;
    }

    ExprPtr lin_divide(const Binary& n, Block& out) {
        ExprPtr a = spill(lin(n.a, out), out);
        ExprPtr b = spill(lin(n.b, out), out);
        CheckSite site{n.op == BinaryOp::FloorDiv ? Kind::FloorDiv : Kind::Mod,
                       file_,
                       n.range,
                       nullptr,
                       false,
                       1,
                       n.type};
        int id = add_site(std::move(site));
        out.push_back(If::make(Compare::make(CompareOp::Eq, b, zero(b->type, n.range), n.range),
                               record(i32_imm(id), {to_i64(a)}, n.range), {}, n.range));
        return Binary::make(n.op, a, b, n.range);  // 0 by the IR's definition
    }

    ExprPtr lin_logical(const Logical& n, Block& out) {
        ExprPtr a = lin(n.a, out);
        if (!needs(n.b)) return Logical::make(n.op, a, n.b, n.range);
        bool is_and = n.op == LogicalOp::And;
        VarPtr v = var("debug_logical", DType::i32);
        Block rhs;
        ExprPtr b = lin(n.b, rhs);
        rhs.push_back(Assign::make(v, Logical::make(n.op, i32_imm(is_and ? 1 : 0), b, n.range)));
        Block decided = {Assign::make(v, i32_imm(is_and ? 0 : 1), n.range)};
        out.push_back(is_and ? If::make(a, rhs, decided, n.range)
                             : If::make(a, decided, rhs, n.range));
        return VarRef::make(v, n.range);
    }

    ExprPtr lin_select(const Select& n, Block& out) {
        ExprPtr cond = lin(n.cond, out);
        if (!needs(n.a) && !needs(n.b)) return Select::make(cond, n.a, n.b, n.range);
        VarPtr v = var("debug_select", n.type);
        Block then_body, else_body;
        ExprPtr a = lin(n.a, then_body);
        then_body.push_back(Assign::make(v, a, n.range));
        ExprPtr b = lin(n.b, else_body);
        else_body.push_back(Assign::make(v, b, n.range));
        out.push_back(If::make(cond, then_body, else_body, n.range));
        return VarRef::make(v, n.range);
    }

    Block block(const Block& b) {
        Block out;
        for (const auto& s : b)
            stmt(s, out);
        return out;
    }

    void stmt(const StmtPtr& s, Block& out) {
        diag::SourceFilePtr saved = file_;
        if (auto it = k_.stmt_files.find(s); it != k_.stmt_files.end()) file_ = it->second;
        rewrite(s, out);
        file_ = saved;
    }

    void rewrite(const StmtPtr& s, Block& out) {
        SourceRange r = s->range;
        if (const auto* n = s->as<Assign>()) {
            if (!checked_base(*n, out)) out.push_back(Assign::make(n->var, lin(n->value, out), r));
        } else if (const auto* n = s->as<Store>()) {
            ExprPtr value = lin(n->value, out);  // Python evaluates the right side first
            Guard g = guard(n->buffer, n->index, Kind::Write, r, out);
            out.push_back(If::make(g.ok, {Store::make(n->buffer, g.index, value, r)}, {}, r));
        } else if (const auto* n = s->as<Atomic>()) {
            ExprPtr value = lin(n->value, out);
            Guard g = guard(n->buffer, n->index, Kind::Atomic, r, out);
            Block skipped;
            if (n->result) skipped.push_back(Assign::make(n->result, zero(n->result->type, r), r));
            out.push_back(If::make(
                g.ok, {Atomic::make(n->op, n->buffer, g.index, value, n->result, r)}, skipped, r));
        } else if (const auto* n = s->as<If>()) {
            ExprPtr cond = lin(n->cond, out);
            out.push_back(If::make(cond, block(n->then_body), block(n->else_body), r));
        } else if (const auto* n = s->as<For>()) {
            ExprPtr start = lin(n->start, out);
            ExprPtr end = lin(n->end, out);
            ExprPtr step = lin(n->step, out);
            out.push_back(For::make(n->var, start, end, step, block(n->body), r));
        } else if (const auto* n = s->as<While>()) {
            rewrite_while(*n, out);
        } else if (const auto* n = s->as<Print>()) {
            auto parts = n->parts;
            for (auto& p : parts) {
                if (auto* e = std::get_if<ExprPtr>(&p)) *e = lin(*e, out);
            }
            out.push_back(Print::make(std::move(parts), r));
        } else if (const auto* n = s->as<BlockReduce>()) {
            out.push_back(BlockReduce::make(n->op, n->result, lin(n->value, out), r));
        } else {
            out.push_back(s);  // AllocArray, Barrier, Break, Continue
        }
    }

    // A condition that needs checks runs at the top of every iteration:
    // `while 1: <checks>; if not cond: break; body` (a `continue` in body reaches the checks).
    void rewrite_while(const While& n, Block& out) {
        if (!needs(n.cond)) {
            out.push_back(While::make(n.cond, block(n.body), n.range));
            return;
        }
        Block body;
        ExprPtr cond = lin(n.cond, body);
        body.push_back(If::make(Unary::make(UnaryOp::Not, cond, n.range), {Break::make(n.range)},
                                {}, n.range));
        for (auto& s : block(n.body))
            body.push_back(std::move(s));
        out.push_back(While::make(i32_imm(1, n.range), std::move(body), n.range));
    }

    Kernel k_;
    diag::SourceFilePtr file_;  // of the statement being rewritten
    int next_id_ = 0;
    bool in_prologue_ = false;
    BufferPtr errors_;
    VarPtr old_;  // the record flag's value before this thread's atomic max
    VarPtr pending_site_;
    std::vector<VarPtr> pending_values_;
    std::map<std::pair<int, int>, VarPtr> extent_vars_;
    std::vector<CheckSite> sites_;
    std::map<const Var*, int> assigned_;
    std::map<const Var*, BaseUse> bases_;
    std::map<const Var*, VarPtr> base_ok_;  // checked base -> its in-bounds flag
    std::unordered_map<const Expr*, bool> needs_;
};

}  // namespace

DebugChecked debug_checks(Kernel k) {
    return DebugChecks(std::move(k)).run();
}

}  // namespace tack::passes
