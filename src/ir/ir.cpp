// make() validators and small utilities of the IR. Every check here guards an invariant sema
// must already have established: a failure is a compiler bug, so it throws diag::InternalError.

#include "ir/ir.hpp"

#include <string>
#include <utility>

#include "diag/diagnostic.hpp"

namespace tack::ir {
namespace {

void check(bool ok, const char* node, const std::string& what) {
    if (!ok) throw diag::InternalError(std::string("internal error: ir::") + node + ": " + what);
}

void check_expr(const ExprPtr& e, const char* node, const char* operand) {
    check(e != nullptr, node, std::string("null ") + operand);
}

std::string type_name(ScalarType t) {
    return tack::name(t);
}

std::string mismatch(const char* what, ScalarType a, ScalarType b) {
    return std::string(what) + " (" + type_name(a) + " vs " + type_name(b) + ")";
}

void check_i64(const ExprPtr& e, const char* node, const char* operand) {
    check_expr(e, node, operand);
    check(e->type == DType::i64, node,
          std::string(operand) + " must be i64, got " + type_name(e->type));
}

uint64_t width_mask(ScalarType t) {
    int n = tack::bits(t);
    return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
}

template <class T>
std::shared_ptr<T> node(ScalarType t, SourceRange r) {
    return std::make_shared<T>(t, r);
}

template <class T>
std::shared_ptr<T> stmt(SourceRange r) {
    return std::make_shared<T>(r);
}

// Right operands that may have any integer type instead of the result type.
bool rhs_any_integer(BinaryOp op, ScalarType lhs) {
    return op == BinaryOp::Shl || op == BinaryOp::Shr || (op == BinaryOp::Pow && is_integer(lhs));
}

bool integer_only(BinaryOp op) {
    switch (op) {
        case BinaryOp::Shl:
        case BinaryOp::Shr:
        case BinaryOp::BitAnd:
        case BinaryOp::BitOr:
        case BinaryOp::BitXor:
            return true;
        default:
            return false;
    }
}

struct MathInfo {
    const char* name;
    int arity;
};
constexpr MathInfo kMathInfo[] = {
#define TACK_X(e, n, a) {#n, a},
    TACK_IR_MATH(TACK_X)
#undef TACK_X
};

}  // namespace

const char* to_string(MathFn fn) {
    return kMathInfo[static_cast<int>(fn)].name;
}
int arity(MathFn fn) {
    return kMathInfo[static_cast<int>(fn)].arity;
}

std::string to_string(BinaryOp op) {
    static const char* const kNames[] = {"add", "sub", "mul",    "div",   "floordiv", "mod", "pow",
                                         "shl", "shr", "bitand", "bitor", "bitxor",   "min", "max"};
    return kNames[static_cast<int>(op)];
}

std::string to_string(CompareOp op) {
    static const char* const kNames[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    return kNames[static_cast<int>(op)];
}

std::string to_string(UnaryOp op) {
    static const char* const kNames[] = {"neg", "bitnot", "not"};
    return kNames[static_cast<int>(op)];
}

ScalarType Param::type() const {
    return buffer ? buffer->elem : scalar->type;
}

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

int64_t IntImm::as_signed() const {
    int n = tack::bits(type);
    if (n >= 64 || !is_signed(type)) return static_cast<int64_t>(bits);
    uint64_t sign = uint64_t{1} << (n - 1);
    return static_cast<int64_t>((bits ^ sign) - sign);
}

ExprPtr IntImm::make(ScalarType t, uint64_t value_mod_2_64, SourceRange r) {
    check(is_integer(t), "IntImm", "type must be an integer, got " + type_name(t));
    auto n = node<IntImm>(t, r);
    n->bits = value_mod_2_64 & width_mask(t);
    return n;
}

ExprPtr IntImm::make_i64(int64_t v, SourceRange r) {
    return make(DType::i64, static_cast<uint64_t>(v), r);
}

ExprPtr FloatImm::make(ScalarType t, double v, SourceRange r) {
    check(is_float(t), "FloatImm", "type must be a float, got " + type_name(t));
    auto n = node<FloatImm>(t, r);
    n->value = t == DType::f32 ? static_cast<double>(static_cast<float>(v)) : v;
    return n;
}

ExprPtr VarRef::make(VarPtr v, SourceRange r) {
    check(v != nullptr, "VarRef", "null var");
    auto n = node<VarRef>(v->type, r);
    n->var = std::move(v);
    return n;
}

ExprPtr ArrayDim::make(BufferPtr b, int dim, SourceRange r) {
    check(b != nullptr, "ArrayDim", "null buffer");
    check(b->kind == BufferKind::Param, "ArrayDim", "buffer '" + b->name + "' is not a parameter");
    check(dim >= 0 && dim < b->rank, "ArrayDim",
          "dim " + std::to_string(dim) + " out of range for rank " + std::to_string(b->rank));
    auto n = node<ArrayDim>(DType::i64, r);
    n->buffer = std::move(b);
    n->dim = dim;
    return n;
}

ExprPtr Cast::make(ScalarType to, ExprPtr value, SourceRange r) {
    check_expr(value, "Cast", "value");
    auto n = node<Cast>(to, r);
    n->value = std::move(value);
    return n;
}

ExprPtr Unary::make(UnaryOp op, ExprPtr a, SourceRange r) {
    check_expr(a, "Unary", "operand");
    check(op != UnaryOp::BitNot || is_integer(a->type), "Unary",
          "bitnot needs an integer, got " + type_name(a->type));
    auto n = node<Unary>(op == UnaryOp::Not ? DType::i32 : a->type, r);
    n->op = op;
    n->a = std::move(a);
    return n;
}

ExprPtr Binary::make(BinaryOp op, ExprPtr a, ExprPtr b, SourceRange r) {
    const char* kNode = "Binary";
    check_expr(a, kNode, "left operand");
    check_expr(b, kNode, "right operand");
    std::string name = to_string(op);
    check(op != BinaryOp::Div || is_float(a->type), kNode,
          "div needs floats, got " + type_name(a->type));
    check(!integer_only(op) || is_integer(a->type), kNode,
          name + " needs integers, got " + type_name(a->type));
    if (rhs_any_integer(op, a->type)) {
        check(is_integer(b->type), kNode,
              name + " count/exponent must be an integer, got " + type_name(b->type));
    } else {
        check(a->type == b->type, kNode,
              mismatch((name + " operand types differ").c_str(), a->type, b->type));
    }
    auto n = node<Binary>(a->type, r);
    n->op = op;
    n->a = std::move(a);
    n->b = std::move(b);
    return n;
}

ExprPtr Compare::make(CompareOp op, ExprPtr a, ExprPtr b, SourceRange r) {
    check_expr(a, "Compare", "left operand");
    check_expr(b, "Compare", "right operand");
    check(a->type == b->type, "Compare", mismatch("operand types differ", a->type, b->type));
    auto n = node<Compare>(DType::i32, r);
    n->op = op;
    n->a = std::move(a);
    n->b = std::move(b);
    return n;
}

ExprPtr Logical::make(LogicalOp op, ExprPtr a, ExprPtr b, SourceRange r) {
    check_expr(a, "Logical", "left operand");
    check_expr(b, "Logical", "right operand");
    auto n = node<Logical>(DType::i32, r);
    n->op = op;
    n->a = std::move(a);
    n->b = std::move(b);
    return n;
}

ExprPtr Select::make(ExprPtr cond, ExprPtr a, ExprPtr b, SourceRange r) {
    check_expr(cond, "Select", "condition");
    check_expr(a, "Select", "true arm");
    check_expr(b, "Select", "false arm");
    check(a->type == b->type, "Select", mismatch("arm types differ", a->type, b->type));
    auto n = node<Select>(a->type, r);
    n->cond = std::move(cond);
    n->a = std::move(a);
    n->b = std::move(b);
    return n;
}

ExprPtr TableLoad::make(TablePtr table, ExprPtr index, SourceRange r) {
    check(table != nullptr && !table->values.empty(), "TableLoad", "empty table");
    check_i64(index, "TableLoad", "index");
    for (const auto& v : table->values) {
        check(v && v->type == table->elem && (v->as<IntImm>() || v->as<FloatImm>()), "TableLoad",
              "table values must be immediates of the table's type");
    }
    auto n = node<TableLoad>(table->elem, r);
    n->table = std::move(table);
    n->index = std::move(index);
    return n;
}

ExprPtr Load::make(BufferPtr b, ExprPtr index, SourceRange r) {
    check(b != nullptr, "Load", "null buffer");
    check_i64(index, "Load", "index");
    auto n = node<Load>(b->elem, r);
    n->buffer = std::move(b);
    n->index = std::move(index);
    return n;
}

ExprPtr TexSample::make(BufferPtr texture, std::array<ExprPtr, 3> coord,
                        std::array<ExprPtr, 3> extent, SourceRange r) {
    check(texture != nullptr && texture->kind == BufferKind::Param, "TexSample",
          "the texture must be an array parameter");
    check(texture->elem == DType::f32 && texture->rank == 3, "TexSample",
          "the texture must be a rank-3 f32 array");
    for (const auto& c : coord) {
        check_expr(c, "TexSample", "coordinate");
        check(c->type == DType::f32, "TexSample", "coordinates must be f32");
    }
    for (const auto& e : extent)
        check_i64(e, "TexSample", "extent");
    auto n = node<TexSample>(DType::f32, r);
    n->texture = std::move(texture);
    n->coord = std::move(coord);
    n->extent = std::move(extent);
    return n;
}

ExprPtr TexSample::make(BufferPtr texture, std::array<ExprPtr, 3> coord, SourceRange r) {
    check(texture != nullptr, "TexSample", "null texture");
    std::array<ExprPtr, 3> extent = {ArrayDim::make(texture, 2, r), ArrayDim::make(texture, 1, r),
                                     ArrayDim::make(texture, 0, r)};
    return make(std::move(texture), std::move(coord), std::move(extent), r);
}

ExprPtr Call::make(MathFn fn, std::vector<ExprPtr> args, SourceRange r) {
    std::string name = to_string(fn);
    check(static_cast<int>(args.size()) == arity(fn), "Call",
          name + " takes " + std::to_string(arity(fn)) + " argument(s), got " +
              std::to_string(args.size()));
    for (const auto& a : args)
        check_expr(a, "Call", "argument");
    ScalarType t = args[0]->type;
    check(is_float(t) || fn == MathFn::Abs, "Call", name + " needs floats, got " + type_name(t));
    for (const auto& a : args) {
        check(a->type == t, "Call",
              mismatch((name + " argument types differ").c_str(), t, a->type));
    }
    auto n = node<Call>(t, r);
    n->fn = fn;
    n->args = std::move(args);
    return n;
}

ExprPtr ThreadId::make(SourceRange r) {
    return node<ThreadId>(DType::i64, r);
}

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

StmtPtr Assign::make(VarPtr var, ExprPtr value, SourceRange r) {
    check(var != nullptr, "Assign", "null var");
    check_expr(value, "Assign", "value");
    check(
        value->type == var->type, "Assign",
        mismatch(("value type differs from '" + var->name + "'").c_str(), var->type, value->type));
    auto n = stmt<Assign>(r);
    n->var = std::move(var);
    n->value = std::move(value);
    return n;
}

StmtPtr Store::make(BufferPtr b, ExprPtr index, ExprPtr value, SourceRange r) {
    check(b != nullptr, "Store", "null buffer");
    check_i64(index, "Store", "index");
    check_expr(value, "Store", "value");
    check(value->type == b->elem, "Store",
          mismatch(("value type differs from '" + b->name + "'").c_str(), b->elem, value->type));
    auto n = stmt<Store>(r);
    n->buffer = std::move(b);
    n->index = std::move(index);
    n->value = std::move(value);
    return n;
}

StmtPtr Atomic::make(AtomicOp op, BufferPtr b, ExprPtr index, ExprPtr value, VarPtr result,
                     SourceRange r) {
    check(b != nullptr, "Atomic", "null buffer");
    check(b->kind == BufferKind::Param, "Atomic", "buffer '" + b->name + "' is not a parameter");
    check_i64(index, "Atomic", "index");
    check_expr(value, "Atomic", "value");
    check(value->type == b->elem, "Atomic", mismatch("value type differs", b->elem, value->type));
    check(!result || result->type == b->elem, "Atomic",
          "result var '" + (result ? result->name : std::string()) + "' has the wrong type");
    auto n = stmt<Atomic>(r);
    n->op = op;
    n->buffer = std::move(b);
    n->index = std::move(index);
    n->value = std::move(value);
    n->result = std::move(result);
    return n;
}

StmtPtr If::make(ExprPtr cond, Block then_body, Block else_body, SourceRange r) {
    check_expr(cond, "If", "condition");
    auto n = stmt<If>(r);
    n->cond = std::move(cond);
    n->then_body = std::move(then_body);
    n->else_body = std::move(else_body);
    return n;
}

StmtPtr For::make(VarPtr var, ExprPtr start, ExprPtr end, ExprPtr step, Block body, SourceRange r) {
    check(var != nullptr, "For", "null var");
    check(var->type == DType::i64, "For", "loop var must be i64, got " + type_name(var->type));
    check_i64(start, "For", "start");
    check_i64(end, "For", "end");
    check_i64(step, "For", "step");
    auto n = stmt<For>(r);
    n->var = std::move(var);
    n->start = std::move(start);
    n->end = std::move(end);
    n->step = std::move(step);
    n->body = std::move(body);
    return n;
}

StmtPtr While::make(ExprPtr cond, Block body, SourceRange r) {
    check_expr(cond, "While", "condition");
    auto n = stmt<While>(r);
    n->cond = std::move(cond);
    n->body = std::move(body);
    return n;
}

StmtPtr Break::make(SourceRange r) {
    return stmt<Break>(r);
}
StmtPtr Continue::make(SourceRange r) {
    return stmt<Continue>(r);
}
StmtPtr Barrier::make(SourceRange r) {
    return stmt<Barrier>(r);
}

StmtPtr Print::make(std::vector<std::variant<std::string, ExprPtr>> parts, SourceRange r) {
    for (const auto& p : parts) {
        if (auto* e = std::get_if<ExprPtr>(&p)) check_expr(*e, "Print", "part");
    }
    auto n = stmt<Print>(r);
    n->parts = std::move(parts);
    return n;
}

StmtPtr AllocArray::make(BufferPtr b, SourceRange r) {
    check(b != nullptr, "AllocArray", "null buffer");
    check(b->kind != BufferKind::Param, "AllocArray", "'" + b->name + "' is a parameter");
    check(b->size > 0, "AllocArray", "'" + b->name + "' has no elements");
    auto n = stmt<AllocArray>(r);
    n->buffer = std::move(b);
    return n;
}

StmtPtr BlockReduce::make(ReduceOp op, VarPtr result, ExprPtr value, SourceRange r) {
    check(result != nullptr, "BlockReduce", "null result");
    check(result->type == DType::f32, "BlockReduce", "result must be f32");
    check_expr(value, "BlockReduce", "value");
    check(value->type == DType::f32, "BlockReduce", "value must be f32");
    auto n = stmt<BlockReduce>(r);
    n->op = op;
    n->result = std::move(result);
    n->value = std::move(value);
    return n;
}

std::optional<std::vector<ExprPtr>> split_flat_index(const ExprPtr& index, const Buffer& b,
                                                     int rank) {
    if (rank < 1) return std::nullopt;
    auto same = [](SourceRange x, SourceRange y) { return x.begin == y.begin && x.end == y.end; };
    std::vector<ExprPtr> subs(static_cast<size_t>(rank));
    ExprPtr e = index;
    for (int d = rank - 1; d >= 1; --d) {
        const auto* add = e->as<Binary>();
        const auto* mul = add && add->op == BinaryOp::Add ? add->a->as<Binary>() : nullptr;
        const auto* ext = mul && mul->op == BinaryOp::Mul ? mul->b->as<ArrayDim>() : nullptr;
        if (!ext || ext->buffer.get() != &b || ext->dim != d || !same(add->range, mul->range) ||
            !same(mul->range, ext->range))
            return std::nullopt;
        subs[static_cast<size_t>(d)] = add->b;
        e = mul->a;
    }
    subs[0] = e;
    return subs;
}

}  // namespace tack::ir
