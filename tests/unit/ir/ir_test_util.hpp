#pragma once
// Small constructors for building IR directly in tests (ir and passes unit tests).

#include <memory>
#include <string>

#include "ir/ir.hpp"

namespace tack::ir::test {

inline VarPtr var(const std::string& name, DType t, int id) {
    return std::make_shared<const Var>(Var{name, t, id, {}});
}

inline BufferPtr param_array(const std::string& name, DType elem, int rank, int param_index,
                             int id = 0) {
    Buffer b{name, elem, rank, BufferKind::Param, param_index, 0, id, {}};
    return std::make_shared<const Buffer>(b);
}

inline BufferPtr local_array(const std::string& name, DType elem, int64_t size, int id,
                             BufferKind kind = BufferKind::Local) {
    Buffer b{name, elem, 1, kind, -1, size, id, {}};
    return std::make_shared<const Buffer>(b);
}

inline ExprPtr ci(DType t, int64_t v) {
    return IntImm::make(t, static_cast<uint64_t>(v));
}
inline ExprPtr i32c(int64_t v) {
    return ci(DType::i32, v);
}
inline ExprPtr i64c(int64_t v) {
    return IntImm::make_i64(v);
}
inline ExprPtr f32c(double v) {
    return FloatImm::make(DType::f32, v);
}
inline ExprPtr f64c(double v) {
    return FloatImm::make(DType::f64, v);
}
inline ExprPtr vref(const VarPtr& v) {
    return VarRef::make(v);
}
inline ExprPtr bin(BinaryOp op, ExprPtr a, ExprPtr b) {
    return Binary::make(op, std::move(a), std::move(b));
}

inline Param scalar_param(const VarPtr& v) {
    return Param{v->name, v, nullptr};
}
inline Param array_param(const BufferPtr& b) {
    return Param{b->name, nullptr, b};
}

/// kernel k(x: <elem>[1]) with `parallel i.0 in [0, dim(x,0)) step 1` and the given body.
struct OneDim {
    BufferPtr x;
    VarPtr i;
    Kernel k;
    explicit OneDim(DType elem = DType::f32) {
        x = param_array("x", elem, 1, 0);
        i = var("i", DType::i64, 0);
        k.name = "k";
        k.params = {array_param(x)};
        k.dims = {LoopDim{i, i64c(0), ArrayDim::make(x, 0), i64c(1)}};
    }
};

}  // namespace tack::ir::test
