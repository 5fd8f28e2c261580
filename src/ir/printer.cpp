// Text form of the IR. Format (byte-stable; golden tests depend on it):
//
//   kernel saxpy(x: f32[1], y: f32[1], a.2: f32) -> f32
//     locals t.3: f32, j.4: i64
//     prologue:
//       t.3 = (f32 mul a.2 2f32)
//     parallel i.0 in [0i64, dim(x,0)) step 1i64:
//       store y[i.0] = (f32 add (f32 mul a.2 (f32 load x[i.0])) (f32 load y[i.0]))
//     return t.3
//
// Every operation shows its result type; constants carry a type suffix and floats are printed
// with the fewest digits that read back to the same value; variables are `name.id`; parameter
// arrays show their rank in brackets, local/shared arrays their element count.

#include "ir/printer.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "ir/visitor.hpp"

namespace tack::ir {
namespace {

std::string var_name(const Var& v) {
    return v.name + "." + std::to_string(v.id);
}

std::string buffer_name(const Buffer& b) {
    if (b.kind == BufferKind::Param) return b.name;
    return b.name + "." + std::to_string(b.id);
}

// Shortest %.Ng that reads back (as float for f32) to the same value.
std::string float_text(ScalarType t, double v) {
    char buf[64];
    int first = t == DType::f32 ? 6 : 15, last = t == DType::f32 ? 9 : 17;
    for (int digits = first; digits <= last; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        double back = t == DType::f32 ? std::strtof(buf, nullptr) : std::strtod(buf, nullptr);
        if (back == v || std::isnan(v)) break;
    }
    return std::string(buf) + tack::name(t);
}

std::string int_text(const IntImm& i) {
    std::string digits = is_signed(i.type) ? std::to_string(i.as_signed()) : std::to_string(i.bits);
    return digits + tack::name(i.type);
}

std::string quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out + "\"";
}

const char* logical_name(LogicalOp op) {
    return op == LogicalOp::And ? "and" : "or";
}
const char* atomic_name(AtomicOp op) {
    static const char* const kNames[] = {"add", "min", "max"};
    return kNames[static_cast<int>(op)];
}
const char* reduce_name(ReduceOp op) {
    static const char* const kNames[] = {"block_sum", "block_min", "block_max"};
    return kNames[static_cast<int>(op)];
}

class ExprPrinter {
  public:
    std::string print(const ExprPtr& e) {
        if (!e) return "<null>";
        return dispatch(*e, [this](const auto* n) { return text(n); });
    }

  private:
    std::string op(ScalarType t, const std::string& name, std::initializer_list<ExprPtr> args) {
        std::string s = "(" + std::string(tack::name(t)) + " " + name;
        for (const auto& a : args)
            s += " " + print(a);
        return s + ")";
    }

    std::string text(const IntImm* n) { return int_text(*n); }
    std::string text(const FloatImm* n) { return float_text(n->type, n->value); }
    std::string text(const VarRef* n) { return var_name(*n->var); }
    std::string text(const ThreadId*) { return "thread_id"; }
    std::string text(const ArrayDim* n) {
        return "dim(" + buffer_name(*n->buffer) + "," + std::to_string(n->dim) + ")";
    }
    std::string text(const Cast* n) { return op(n->type, "cast", {n->value}); }
    std::string text(const Unary* n) { return op(n->type, to_string(n->op), {n->a}); }
    std::string text(const Binary* n) { return op(n->type, to_string(n->op), {n->a, n->b}); }
    std::string text(const Compare* n) { return op(n->type, to_string(n->op), {n->a, n->b}); }
    std::string text(const Logical* n) { return op(n->type, logical_name(n->op), {n->a, n->b}); }
    std::string text(const Select* n) { return op(n->type, "select", {n->cond, n->a, n->b}); }
    std::string text(const Load* n) {
        return "(" + std::string(tack::name(n->type)) + " load " + buffer_name(*n->buffer) + "[" +
               print(n->index) + "])";
    }
    std::string text(const TableLoad* n) {
        // The values are part of the text (the disk cache keys on it).
        std::string s = "(" + std::string(tack::name(n->type)) + " Table[" +
                        std::string(tack::name(n->type)) + "]#" + std::to_string(n->table->id) +
                        "{";
        for (size_t k = 0; k < n->table->values.size(); ++k)
            s += (k ? "," : "") + print(n->table->values[k]);
        return s + "}[" + print(n->index) + "])";
    }
    std::string text(const TexSample* n) {
        return "(f32 sample " + buffer_name(*n->texture) + " " + print(n->coord[0]) + " " +
               print(n->coord[1]) + " " + print(n->coord[2]) + " extent " + print(n->extent[0]) +
               " " + print(n->extent[1]) + " " + print(n->extent[2]) + ")";
    }
    std::string text(const Call* n) {
        std::string s = "(" + std::string(tack::name(n->type)) + " " + to_string(n->fn);
        for (const auto& a : n->args)
            s += " " + print(a);
        return s + ")";
    }
};

class StmtPrinter {
  public:
    explicit StmtPrinter(std::ostringstream& out) : out_(out) {}

    void block(const Block& b, int indent) {
        if (b.empty()) line(indent, "pass");
        for (const auto& s : b) {
            dispatch(*s, [&](const auto* n) { stmt(n, indent); });
        }
    }

  private:
    std::ostringstream& out_;
    ExprPrinter ex_;

    void line(int indent, const std::string& text) {
        out_ << std::string(2 * indent, ' ') << text << "\n";
    }
    std::string e(const ExprPtr& x) { return ex_.print(x); }
    std::string slot(const BufferPtr& b, const ExprPtr& index) {
        return buffer_name(*b) + "[" + e(index) + "]";
    }

    void stmt(const Assign* n, int in) { line(in, var_name(*n->var) + " = " + e(n->value)); }
    void stmt(const Store* n, int in) {
        line(in, "store " + slot(n->buffer, n->index) + " = " + e(n->value));
    }
    void stmt(const Atomic* n, int in) {
        std::string lhs = n->result ? var_name(*n->result) + " = " : "";
        line(in, lhs + "atomic_" + atomic_name(n->op) + " " + slot(n->buffer, n->index) + ", " +
                     e(n->value));
    }
    void stmt(const If* n, int in) {
        line(in, "if " + e(n->cond) + ":");
        block(n->then_body, in + 1);
        if (n->else_body.empty()) return;
        line(in, "else:");
        block(n->else_body, in + 1);
    }
    void stmt(const For* n, int in) {
        line(in, "for " + var_name(*n->var) + " in [" + e(n->start) + ", " + e(n->end) + ") step " +
                     e(n->step) + ":");
        block(n->body, in + 1);
    }
    void stmt(const While* n, int in) {
        line(in, "while " + e(n->cond) + ":");
        block(n->body, in + 1);
    }
    void stmt(const Break*, int in) { line(in, "break"); }
    void stmt(const Continue*, int in) { line(in, "continue"); }
    void stmt(const Barrier*, int in) { line(in, "barrier"); }
    void stmt(const Print* n, int in) {
        std::string s;
        for (const auto& p : n->parts) {
            if (!s.empty()) s += ", ";
            auto* x = std::get_if<ExprPtr>(&p);
            s += x ? e(*x) : quote(std::get<std::string>(p));
        }
        line(in, "print(" + s + ")");
    }
    void stmt(const AllocArray* n, int in) {
        const Buffer& b = *n->buffer;
        std::string kind = b.kind == BufferKind::Shared ? "shared " : "local ";
        line(in, "alloc " + kind + buffer_name(b) + ": " + tack::name(b.elem) + "[" +
                     std::to_string(b.size) + "]");
    }
    void stmt(const BlockReduce* n, int in) {
        line(in, var_name(*n->result) + " = " + reduce_name(n->op) + " " + e(n->value));
    }
};

std::string param_text(const Param& p) {
    if (p.is_array()) {
        return p.buffer->name + ": " + tack::name(p.buffer->elem) + "[" +
               std::to_string(p.buffer->rank) + "]";
    }
    return var_name(*p.scalar) + ": " + tack::name(p.scalar->type);
}

std::string header(const Kernel& k) {
    std::string s = "kernel " + k.name + "(";
    for (size_t i = 0; i < k.params.size(); ++i) {
        s += (i ? ", " : "") + param_text(k.params[i]);
    }
    s += ")";
    if (k.result) s += std::string(" -> ") + tack::name(k.result->type);
    return s;
}

std::string dims_text(const Kernel& k) {
    ExprPrinter ex;
    std::string s = "parallel";
    for (size_t i = 0; i < k.dims.size(); ++i) {
        const LoopDim& d = k.dims[i];
        s += (i ? ", " : " ") + var_name(*d.var) + " in [" + ex.print(d.start) + ", " +
             ex.print(d.end) + ") step " + ex.print(d.step);
    }
    return s + ":";
}

}  // namespace

std::string print(const ExprPtr& e) {
    return ExprPrinter().print(e);
}

std::string print(const Block& b, int indent) {
    std::ostringstream out;
    StmtPrinter(out).block(b, indent);
    return out.str();
}

std::string print(const Kernel& k) {
    std::ostringstream out;
    StmtPrinter sp(out);
    out << header(k) << "\n";
    if (!k.locals.empty()) {
        out << "  locals ";
        for (size_t i = 0; i < k.locals.size(); ++i) {
            out << (i ? ", " : "") << var_name(*k.locals[i]) << ": "
                << tack::name(k.locals[i]->type);
        }
        out << "\n";
    }
    if (!k.prologue.empty()) {
        out << "  prologue:\n";
        sp.block(k.prologue, 2);
    }
    out << "  " << dims_text(k) << "\n";
    sp.block(k.body, 2);
    if (k.result) out << "  return " << print(k.result) << "\n";
    return out.str();
}

}  // namespace tack::ir
