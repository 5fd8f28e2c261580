// Shape specialization (CONTRACT D3): every array extent that reaches generated code becomes a
// constant, except the outermost parallel end, which the host evaluates on every call so that
// the launch length alone never recompiles.

#include <set>
#include <string>

#include "diag/diagnostic.hpp"
#include "ir/visitor.hpp"
#include "passes/passes.hpp"

namespace tack::passes {
namespace {

using namespace tack::ir;

// Runs `w` over every expression tree of the kernel except dims[0].end.
template <class Walker>
Kernel over_specializable(Kernel k, Walker& w) {
    ExprPtr kept_end;
    if (!k.dims.empty()) std::swap(kept_end, k.dims[0].end);  // hidden from the walker
    k = w.mutate_kernel(std::move(k));
    if (!k.dims.empty()) k.dims[0].end = kept_end;
    return k;
}

class DimCollector : public IRMutator {
  public:
    std::set<std::pair<int, int>> used;
    ExprPtr visit(const ArrayDim* n, const ExprPtr& self) override {
        used.emplace(n->buffer->param_index, n->dim);
        return self;
    }
};

class DimReplacer : public IRMutator {
  public:
    explicit DimReplacer(const ShapeValues& s) : shapes_(s) {}
    ExprPtr visit(const ArrayDim* n, const ExprPtr& self) override {
        auto it = shapes_.find({n->buffer->param_index, n->dim});
        TACK_ASSERT(it != shapes_.end(), "specialize_shapes: no extent for '" + n->buffer->name +
                                             "' dim " + std::to_string(n->dim));
        return IntImm::make_i64(it->second, n->range);
    }

  private:
    const ShapeValues& shapes_;
};

}  // namespace

std::vector<std::pair<int, int>> shape_dims_used(const Kernel& k) {
    DimCollector c;
    over_specializable(k, c);
    return {c.used.begin(), c.used.end()};
}

Kernel specialize_shapes(Kernel k, const ShapeValues& shapes) {
    DimReplacer r(shapes);
    return over_specializable(std::move(k), r);
}

}  // namespace tack::passes
