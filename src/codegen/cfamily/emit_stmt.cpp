// Statements. Each statement is preceded by a `#line` directive naming the user's file and line,
// so vendor compiler messages point at the kernel source (as Warp's generated CUDA does).
#include <string>

#include "codegen/cfamily/emitter_impl.hpp"
#include "diag/diagnostic.hpp"
#include "ir/visitor.hpp"

namespace tack::codegen::cfamily::detail {

void Emitter::line(const std::string& text) {
    body_.append(static_cast<size_t>(indent_) * 4, ' ');
    body_ += text;
    body_ += '\n';
}

namespace {
std::string escape(std::string_view s, bool percent) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '%' && percent) out += '%';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}
}  // namespace

void Emitter::line_directive(const ir::Stmt& s) {
    if (!k_.file || !s.range.valid()) return;
    body_ += "#line " + std::to_string(k_.file->line_of(s.range.begin)) + " \"" +
             escape(k_.file->path(), false) + "\"\n";
}

void Emitter::block(const ir::Block& b) {
    ++indent_;
    for (const auto& s : b)
        stmt(s);
    --indent_;
}

void Emitter::stmt(const ir::StmtPtr& s) {
    line_directive(*s);
    ir::dispatch(*s, [&](const auto* n) { emit_node(n); });
}

void Emitter::emit_node(const ir::Assign* n) {
    line(var(*n->var) + " = " + expr(n->value) + ";");
}

void Emitter::emit_node(const ir::Store* n) {
    line(buf(*n->buffer) + "[" + expr(n->index) + "] = " + expr(n->value) + ";");
}

std::string Emitter::atomic_call(const ir::Atomic* n) {
    DType t = n->buffer->elem;
    const AtomicSpelling& sp = d_.atomic[static_cast<int>(t)];
    std::string_view native = n->op == ir::AtomicOp::Add   ? sp.add
                              : n->op == ir::AtomicOp::Min ? sp.min
                                                           : sp.max;
    std::string ptr = "&" + buf(*n->buffer) + "[" + expr(n->index) + "]";
    std::string v = expr(n->value);
    if (!native.empty()) return fill(native, {{"p", ptr}, {"v", v}, {"t", type(t)}});
    auto kind = static_cast<AtomicKind>(static_cast<int>(n->op));
    if (!d_.cas_support.empty()) use({"tack_cas_support", std::string(d_.cas_support)});
    return use(atomic_cas_helper(d_, kind, t)) + "(" + ptr + ", " + v + ")";
}

void Emitter::emit_node(const ir::Atomic* n) {
    std::string call = atomic_call(n);
    line(n->result ? var(*n->result) + " = " + call + ";" : call + ";");
}

void Emitter::emit_node(const ir::If* n) {
    line("if " + truthy(n->cond) + " {");
    block(n->then_body);
    if (!n->else_body.empty()) {
        line("} else {");
        block(n->else_body);
    }
    line("}");
}

// start/end/step are evaluated once; the trip count is computed in u64 so that neither it nor
// the loop variable can overflow (ir.hpp: a step <= 0 runs nothing), and the variable is set
// from the counter each iteration, so assigning to it in the body does not change the count.
void Emitter::for_loop(const ir::For* n) {
    std::string id = std::to_string(next_temp_++);
    std::string i64 = type(DType::i64), u64 = type(DType::u64);
    std::string s = "tack_s" + id, e = "tack_e" + id, st = "tack_st" + id;
    std::string cnt = "tack_n" + id, k = "tack_k" + id;
    std::string one = int_literal(d_, DType::u64, 1), zero = int_literal(d_, DType::u64, 0);
    line("{");
    ++indent_;
    line(i64 + " " + s + " = " + expr(n->start) + ";");
    line(i64 + " " + e + " = " + expr(n->end) + ";");
    line(i64 + " " + st + " = " + expr(n->step) + ";");
    line(u64 + " " + cnt + " = (" + st + " > 0 && " + e + " > " + s + ") ? ((" + u64 + ")" + e +
         " - (" + u64 + ")" + s + " - " + one + ") / (" + u64 + ")" + st + " + " + one + " : " +
         zero + ";");
    line("for (" + u64 + " " + k + " = " + zero + "; " + k + " < " + cnt + "; ++" + k + ") {");
    ++indent_;
    std::string step = k + " * (" + u64 + ")" + st;
    if (d_.loop_add64_decl.empty())
        line(var(*n->var) + " = (" + i64 + ")((" + u64 + ")" + s + " + " + step + ");");
    else  // CONTRACT B17: the loop variable's add too
        line(var(*n->var) + " = (" + i64 + ")" + use(loop_add64_helper(d_, DType::u64)) + "((" +
             u64 + ")" + s + ", " + step + ");");
    --indent_;
    ++loop_depth_;
    block(n->body);
    --loop_depth_;
    line("}");
    --indent_;
    line("}");
}

void Emitter::emit_node(const ir::For* n) {
    for_loop(n);
}

void Emitter::emit_node(const ir::While* n) {
    line("while " + truthy(n->cond) + " {");
    ++loop_depth_;
    block(n->body);
    --loop_depth_;
    line("}");
}

void Emitter::emit_node(const ir::Break*) {
    line("break;");
}

// Outside any sequential loop, `continue` ends this lane's iteration of the parallel loop.
void Emitter::emit_node(const ir::Continue*) {
    line(loop_depth_ > 0 ? "continue;" : "return;");
}

void Emitter::emit_node(const ir::Print* n) {
    if (d_.printf_fn.empty()) {
        line("/* print: not available on " + std::string(d_.display_name) + " */");
        return;
    }
    std::string format, args;
    for (const auto& part : n->parts) {
        if (!format.empty()) format += ' ';
        if (const auto* text = std::get_if<std::string>(&part)) {
            format += escape(*text, true);
            continue;
        }
        const ir::ExprPtr& e = std::get<ir::ExprPtr>(part);
        // The CPU's formats (codegen/llvm): %.9g / %.17g, integers widened to 64 bits.
        DType t = e->type;
        std::string cast;
        if (is_float(t)) {
            format += t == DType::f32 ? "%.9g" : "%.17g";  // C promotes a float to double
        } else {
            DType wide = is_signed(t) ? DType::i64 : DType::u64;
            format += is_signed(t) ? d_.i64_format : d_.u64_format;
            cast = "(" + type(wide) + ")";
        }
        args += ", " + cast + expr(e);
    }
    line(std::string(d_.printf_fn) + "(\"" + format + "\\n\"" + args + ");");
}

// Local and shared arrays are declared at the top of the kernel (OpenCL and Metal allow
// workgroup memory only at kernel scope; Python scoping lets a later block use them). A local
// array is zero-filled where its declaration runs, as the CPU's is: reading an element before
// writing it gives 0 on every backend (an uninitialized read is undefined, and PoCL showed
// another work-item's values). The compilers drop the fill where the code overwrites first.
// Shared arrays stay uninitialized (CONTRACT A36).
void Emitter::emit_node(const ir::AllocArray* n) {
    const ir::Buffer& b = *n->buffer;
    if (b.kind != ir::BufferKind::Local) return;
    std::string i64 = type(DType::i64);
    line("for (" + i64 + " tack_z = 0; tack_z < " + std::to_string(b.size) + "; ++tack_z) " +
         buf(b) + "[tack_z] = 0;");
}

void Emitter::emit_node(const ir::Barrier*) {
    line(std::string(d_.barrier));
}

// A 256-lane tree in workgroup memory (CONTRACT A37, D12: groups are complete). The barrier
// after every lane has read the result lets the scratch be reused by the next reduction.
void Emitter::emit_node(const ir::BlockReduce* n) {
    std::string combine = "tack_red[tack_lid] + tack_red[tack_lid + tack_w]";
    if (n->op != ir::ReduceOp::Sum) {
        std::string fn = use(block_extremum_helper(d_, n->op == ir::ReduceOp::Min));
        combine = fn + "(tack_red[tack_lid], tack_red[tack_lid + tack_w])";
    }
    std::string barrier(d_.barrier);
    line("tack_red[tack_lid] = " + expr(n->value) + ";");
    line(barrier);
    line("for (int tack_w = 128; tack_w > 0; tack_w >>= 1) {");
    line("    if (tack_lid < tack_w) tack_red[tack_lid] = " + combine + ";");
    line("    " + barrier);
    line("}");
    line(var(*n->result) + " = tack_red[0];");
    line(barrier);
}

}  // namespace tack::codegen::cfamily::detail
