#include "kernel_zoo.hpp"

#include <cmath>
#include <string>

namespace tack::cfamily_test {

namespace {
ExprPtr add(ExprPtr a, ExprPtr b) {
    return bin(BinaryOp::Add, std::move(a), std::move(b));
}
ExprPtr at(const VarPtr& i, int64_t stride, int64_t k) {
    return add(bin(BinaryOp::Mul, vr(i), i64c(stride)), i64c(k));
}
diag::SourceRange range_of(const std::string& text, const std::string& needle) {
    auto pos = static_cast<uint32_t>(text.find(needle));
    return {pos, pos + static_cast<uint32_t>(needle.size())};
}
}  // namespace

Kernel zoo_saxpy(DType t) {
    static const std::string kText =
        "@tack.kernel\n"
        "def saxpy(x: tack.Field, y: tack.Field, a: float):\n"
        "    for i in range(len(x)):\n"
        "        y[i] = a * x[i] + y[i]\n";
    KernelBuilder b("saxpy");
    b.k.file = std::make_shared<diag::SourceFile>("examples/saxpy.py", kText);
    b.k.range = {0, static_cast<uint32_t>(kText.size())};
    auto x = b.array("x", t);
    auto y = b.array("y", t);
    auto a = b.scalar("a", t);
    auto i = b.dim("i", 0, 0);
    auto value = add(bin(BinaryOp::Mul, vr(a), ld(x, vr(i))), ld(y, vr(i)));
    b.k.body = {Store::make(y, vr(i), value, range_of(kText, "y[i] = a * x[i] + y[i]"))};
    return b.k;
}

Kernel zoo_integer(DType t) {
    KernelBuilder b(std::string("int_ops_") + name(t));
    auto pa = b.array("a", t), pb = b.array("b", t), po = b.array("out", t);
    auto pc = b.array("count", DType::i32);
    auto pw = b.array("wide", DType::u64);
    auto i = b.dim("i", 0, 0);
    auto x = ld(pa, vr(i)), y = ld(pb, vr(i)), c = ld(pc, vr(i));
    std::vector<ExprPtr> values;
    for (BinaryOp op :
         {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::FloorDiv, BinaryOp::Mod,
          BinaryOp::Min, BinaryOp::Max, BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor})
        values.push_back(bin(op, x, y));
    values.push_back(bin(BinaryOp::Shl, x, c));
    values.push_back(bin(BinaryOp::Shr, x, c));
    values.push_back(bin(BinaryOp::Pow, x, c));
    values.push_back(bin(BinaryOp::Pow, x, ld(pw, vr(i))));
    values.push_back(Unary::make(UnaryOp::Neg, x));
    values.push_back(Unary::make(UnaryOp::BitNot, x));
    values.push_back(Call::make(MathFn::Abs, {x}));
    values.push_back(Cast::make(t, Unary::make(UnaryOp::Not, x)));
    values.push_back(Cast::make(t, Compare::make(CompareOp::Le, x, y)));
    values.push_back(Select::make(Logical::make(LogicalOp::Or, x, y), x, y));
    values.push_back(Cast::make(t, Cast::make(DType::f32, x)));
    values.push_back(IntImm::make(t, ~uint64_t{0}));
    values.push_back(IntImm::make(t, uint64_t{1} << (bits(t) - 1)));
    for (size_t k = 0; k < values.size(); ++k)
        b.k.body.push_back(st(po, at(i, static_cast<int64_t>(values.size()), k), values[k]));
    return b.k;
}

Kernel zoo_float(DType f) {
    KernelBuilder b(std::string("float_ops_") + name(f));
    auto pa = b.array("a", f), pb = b.array("b", f), po = b.array("out", f);
    auto pi = b.array("ints", DType::i64);
    auto i = b.dim("i", 0, 0);
    auto x = ld(pa, vr(i)), y = ld(pb, vr(i));
    std::vector<ExprPtr> values;
    for (BinaryOp op :
         {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div, BinaryOp::FloorDiv,
          BinaryOp::Mod, BinaryOp::Pow, BinaryOp::Min, BinaryOp::Max})
        values.push_back(bin(op, x, y));
    values.push_back(add(bin(BinaryOp::Mul, x, y), Unary::make(UnaryOp::Neg, x)));
    for (int fn = 0; fn <= static_cast<int>(MathFn::Copysign); ++fn) {
        auto m = static_cast<MathFn>(fn);
        values.push_back(arity(m) == 1 ? Call::make(m, {x}) : Call::make(m, {x, y}));
    }
    values.push_back(FloatImm::make(f, INFINITY));
    values.push_back(FloatImm::make(f, -INFINITY));
    values.push_back(FloatImm::make(f, NAN));
    values.push_back(FloatImm::make(f, -0.0));
    values.push_back(FloatImm::make(f, 0.1));
    values.push_back(FloatImm::make(f, 1e-45));
    if (f == DType::f64) values.push_back(Cast::make(f, Cast::make(DType::f32, x)));
    values.push_back(Cast::make(f, ld(pi, vr(i))));
    for (size_t k = 0; k < values.size(); ++k)
        b.k.body.push_back(st(po, at(i, static_cast<int64_t>(values.size()), k), values[k]));
    const DType ints[] = {DType::i8,  DType::u8,  DType::i16, DType::u16,
                          DType::i32, DType::u32, DType::i64, DType::u64};
    for (int k = 0; k < 8; ++k)
        b.k.body.push_back(st(pi, at(i, 8, k), Cast::make(DType::i64, Cast::make(ints[k], x))));
    return b.k;
}

Kernel zoo_atomics(const std::vector<DType>& types) {
    KernelBuilder b("atomics");
    auto i = b.dim("i", 0, 0);
    for (DType t : types) {
        auto p = b.array(std::string("acc_") + name(t), t);
        auto old = b.local(std::string("old_") + name(t), t);
        auto one = is_float(t) ? fc(t, 1.0) : ic(t, 1);
        auto idx = bin(BinaryOp::Mod, vr(i), i64c(4));
        for (AtomicOp op : {AtomicOp::Add, AtomicOp::Min, AtomicOp::Max}) {
            b.k.body.push_back(Atomic::make(op, p, idx, one, nullptr));
            b.k.body.push_back(Atomic::make(op, p, idx, one, old));
        }
        b.k.body.push_back(st(p, add(idx, i64c(4)), vr(old)));
    }
    return b.k;
}

Kernel zoo_workgroup() {
    KernelBuilder b("workgroup");
    auto pa = b.array("a", DType::f32), po = b.array("out", DType::f32);
    auto i = b.dim("i", 0, 0);
    auto s = b.alloc("s", DType::f32, 256, BufferKind::Shared);
    auto r = b.local("r", DType::f32);
    auto tid = ThreadId::make();
    auto mirror = bin(BinaryOp::Sub, i64c(255), tid);
    b.k.body = {AllocArray::make(s),
                st(s, tid, ld(pa, vr(i))),
                Barrier::make(),
                BlockReduce::make(ReduceOp::Sum, r, ld(s, mirror)),
                st(po, vr(i), vr(r)),
                BlockReduce::make(ReduceOp::Min, r, vr(r)),
                BlockReduce::make(ReduceOp::Max, r, vr(r)),
                st(po, vr(i), add(ld(po, vr(i)), vr(r)))};
    return b.k;
}

Kernel zoo_control() {
    KernelBuilder b("control flow");  // a name that needs encoding
    auto po = b.array("out", DType::i64);
    auto n = b.scalar("n", DType::i64);
    auto lo = b.scalar("lo", DType::i32);
    auto y = b.dim("y", 0, 0);
    auto xv = b.k.dims
                  .emplace_back(LoopDim{b.var("x", DType::i64), Cast::make(DType::i64, vr(lo)),
                                        vr(n), i64c(2)})
                  .var;
    auto j = b.local("j", DType::i64);
    auto acc = b.local("acc", DType::i64);
    auto tmp = b.alloc("tmp", DType::i64, 4, BufferKind::Local);
    auto cond = Compare::make(CompareOp::Gt, vr(j), i64c(10));
    b.k.body = {
        AllocArray::make(tmp),
        Assign::make(acc, i64c(0)),
        For::make(
            j, i64c(0), vr(n), i64c(1),
            {If::make(Compare::make(CompareOp::Eq, bin(BinaryOp::Mod, vr(j), i64c(3)), i64c(0)),
                      {Continue::make()}, {}),
             If::make(cond, {Break::make()}, {}),
             st(tmp, bin(BinaryOp::Mod, vr(j), i64c(4)), vr(j)),
             Assign::make(acc, add(vr(acc), ld(tmp, bin(BinaryOp::Mod, vr(j), i64c(4)))))}),
        While::make(Logical::make(LogicalOp::And, Compare::make(CompareOp::Lt, vr(acc), vr(n)),
                                  Compare::make(CompareOp::Ne, vr(acc), i64c(-1))),
                    {Assign::make(acc, add(vr(acc), i64c(7)))}),
        Print::make({std::string("acc 100% \"done\""), vr(acc), vr(lo),
                     Cast::make(DType::f32, vr(acc)), Cast::make(DType::u8, vr(acc))}),
        If::make(Unary::make(UnaryOp::Not, vr(y)), {Continue::make()}, {}),
        st(po, add(bin(BinaryOp::Mul, vr(y), vr(n)), vr(xv)),
           Select::make(cond, vr(acc), Unary::make(UnaryOp::Neg, vr(acc))))};
    return b.k;
}

}  // namespace tack::cfamily_test
