// The kernel skeleton: header, prelude of helpers, entry signature (the launch ABI), the 64-bit
// iteration index, the guard, scalar unpacking, declarations and the row-major decomposition of
// the index into the parallel loop's variables. See emitter.hpp for the launch contract.
#include "codegen/cfamily/emitter.hpp"

#include <cstring>
#include <map>

#include "codegen/cfamily/emitter_impl.hpp"
#include "codegen/cfamily/identifiers.hpp"
#include "diag/diagnostic.hpp"
#include "ir/visitor.hpp"

namespace tack::codegen::cfamily {

namespace detail {

namespace {

/// Everything the skeleton must know before the body is emitted, and every Var and Buffer in
/// first-seen order (for naming and declarations).
class Scanner : public ir::IRVisitor {
  public:
    KernelFacts facts;
    std::vector<const ir::Var*> vars;
    std::vector<const ir::Buffer*> buffers;
    std::vector<const ir::Atomic*> atomics;
    int loops = 0;  // sequential loops around the node being visited

    void note(const ir::VarPtr& v) {
        if (!v) return;
        if (v->type == DType::f64) facts.f64 = true;
        for (const auto* seen : vars)
            if (seen == v.get()) return;
        vars.push_back(v.get());
    }
    void note(const ir::BufferPtr& b) {
        if (b->elem == DType::f64) facts.f64 = true;
        for (const auto* seen : buffers)
            if (seen == b.get()) return;
        buffers.push_back(b.get());
    }
    void visit_expr(const ir::ExprPtr& e) override {
        if (e->type == DType::f64) facts.f64 = true;
        IRVisitor::visit_expr(e);
    }
    void visit(const ir::VarRef* n) override { note(n->var); }
    void visit(const ir::Load* n) override {
        note(n->buffer);
        IRVisitor::visit(n);
    }
    void visit(const ir::ThreadId*) override { facts.workgroups = true; }
    void visit(const ir::TexSample* n) override {
        facts.textures.emplace(n->texture.get(), n);
        IRVisitor::visit(n);
    }
    void visit(const ir::Assign* n) override {
        note(n->var);
        IRVisitor::visit(n);
    }
    void visit(const ir::Store* n) override {
        note(n->buffer);
        if (loops > 0) facts.loop_stores = true;
        IRVisitor::visit(n);
    }
    void visit(const ir::Atomic* n) override {
        note(n->buffer);
        note(n->result);
        atomics.push_back(n);
        if (loops > 0) facts.loop_stores = true;
        if (is_integer(n->buffer->elem) && bits(n->buffer->elem) == 64) facts.int64_atomics = true;
        IRVisitor::visit(n);
    }
    void visit(const ir::For* n) override {
        note(n->var);
        ++loops;
        IRVisitor::visit(n);
        --loops;
    }
    void visit(const ir::While* n) override {
        ++loops;
        IRVisitor::visit(n);
        --loops;
    }
    void visit(const ir::Print* n) override {
        facts.print = true;
        IRVisitor::visit(n);
    }
    void visit(const ir::AllocArray* n) override {
        note(n->buffer);
        bool shared = n->buffer->kind == ir::BufferKind::Shared;
        (shared ? facts.shared_arrays : facts.local_arrays).push_back(n->buffer);
        if (shared) facts.workgroups = true;
    }
    void visit(const ir::Barrier*) override { facts.collectives = facts.workgroups = true; }
    void visit(const ir::BlockReduce* n) override {
        facts.collectives = facts.workgroups = facts.block_reduce = true;
        note(n->result);
        IRVisitor::visit(n);
    }
};

/// `text` without its C++11 attributes (" [[buffer(0)]]"): a parameter list as a plain
/// function declares it.
std::string without_attributes(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        if (text.compare(i, 2, "[[") == 0) {
            size_t end = text.find("]]", i);
            i = end == std::string::npos ? text.size() : end + 2;
            while (!out.empty() && out.back() == ' ')
                out.pop_back();
            continue;
        }
        out += text[i++];
    }
    return out;
}

/// "a, b" -> {"a", "b"} (parameter declarations have no commas of their own here).
std::vector<std::string> split_params(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string one =
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        while (!one.empty() && one.front() == ' ')
            one.erase(0, 1);
        if (!one.empty()) out.push_back(one);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

}  // namespace

Emitter::Emitter(const ir::Kernel& k, const Dialect& d) : k_(k), d_(d) {}

const std::string& Emitter::var(const ir::Var& v) const {
    auto it = var_names_.find(&v);
    TACK_ASSERT(it != var_names_.end(), "variable '" + v.name + "' was never declared");
    return it->second;
}

const std::string& Emitter::buf(const ir::Buffer& b) const {
    auto it = buf_names_.find(&b);
    TACK_ASSERT(it != buf_names_.end(), "array '" + b.name + "' was never declared");
    return it->second;
}

std::string Emitter::use(const Helper& h) {
    if (helper_names_.insert(h.name).second) prelude_ += h.text;
    return h.name;
}

void Emitter::scan() {
    Scanner s;
    for (const auto& p : k_.params)
        p.is_array() ? s.note(p.buffer) : s.note(p.scalar);
    for (const auto& dim : k_.dims)
        s.note(dim.var);
    for (const auto& v : k_.locals)
        s.note(v);
    s.visit_kernel(k_);
    facts_ = s.facts;
    check_supported();
    for (const auto* a : s.atomics) {
        DType t = a->buffer->elem;
        if (d_.atomic_ok[static_cast<int>(t)]) continue;
        static constexpr const char* kOp[] = {"atomic_add", "atomic_min", "atomic_max"};
        diag::raise(diag::ErrorKind::TypeError,
                    "Kernel '" + k_.name + "': " + std::string(d_.name) + " " +
                        kOp[static_cast<int>(a->op)] + " does not support target dtype tack." +
                        tack::name(t),
                    k_.file, a->range);
    }
    // Python names are unique within a kernel except after inlining; only a repeated name gets
    // a suffix, which the identifier encoding can never produce ("_v" + id, "_b" + id).
    std::map<std::string, int> uses;
    for (const auto* v : s.vars)
        ++uses[v->name];
    for (const auto* b : s.buffers)
        ++uses[b->name];
    for (const auto* v : s.vars)
        var_names_[v] = "tack_var_" + encode_identifier(v->name) +
                        (uses[v->name] > 1 ? "_v" + std::to_string(v->id) : "");
    for (const auto* b : s.buffers)
        buf_names_[b] = "tack_var_" + encode_identifier(b->name) +
                        (uses[b->name] > 1 ? "_b" + std::to_string(b->id) : "");
    declared_vars_ = s.vars;
}

void Emitter::check_supported() {
    if (facts_.f64 && d_.type[static_cast<int>(DType::f64)].empty())
        diag::raise(diag::ErrorKind::TypeError,
                    "Kernel '" + k_.name + "': tack.f64 is not supported on " +
                        std::string(d_.display_name),
                    k_.file, k_.range);
    TACK_ASSERT(facts_.textures.empty() || !d_.texture_sample.empty(),
                "a texture sample reached the " + std::string(d_.display_name) +
                    " generator, which has no hardware form");
}

int64_t Emitter::texture_extent(const ir::TexSample& t, int axis) const {
    const auto* n = t.extent[static_cast<size_t>(axis)]->as<ir::IntImm>();
    TACK_ASSERT(n, "texture '" + t.texture->name + "' reached the C generator unspecialized");
    return n->as_signed();
}

void Emitter::build_abi() {
    abi_.entry = kernel_entry_name(k_.name);
    abi_.uses_collectives = facts_.collectives;
    abi_.uses_workgroups = facts_.workgroups;
    abi_.uses_f64 = facts_.f64;
    abi_.uses_int64_atomics = facts_.int64_atomics;
    abi_.uses_print = facts_.print;
    int arg = 0;
    int counts[kNumDTypes] = {};
    for (const auto& p : k_.params) {
        AbiParam ap{p.name, p.is_array(), p.type(), -1, -1};
        if (p.is_array())
            ap.arg_index = arg++;
        else
            ap.pack_slot = counts[static_cast<int>(ap.dtype)]++;
        if (auto t = p.is_array() ? facts_.textures.find(p.buffer.get()) : facts_.textures.end();
            t != facts_.textures.end()) {
            ap.is_texture = true;
            for (int i = 0; i < 3; ++i)
                ap.texture_extent[i] = texture_extent(*t->second, i);
        }
        abi_.params.push_back(ap);
    }
    for (int t = 0; t < kNumDTypes; ++t)
        if (counts[t] > 0) abi_.packs.push_back({static_cast<DType>(t), counts[t], arg++});
    if (d_.exact_index.empty()) abi_.n_arg_index = arg++;  // an exact grid needs no count
    abi_.num_args = arg;
}

std::vector<Emitter::Argument> Emitter::arguments() const {
    std::vector<Argument> out;
    for (size_t i = 0; i < k_.params.size(); ++i) {
        const AbiParam& ap = abi_.params[i];
        if (!ap.is_array) continue;
        const std::string& name = buf(*k_.params[i].buffer);
        if (ap.is_texture)
            out.push_back(
                {fill(d_.texture_param, {{"name", name}, {"i", std::to_string(ap.arg_index)}}),
                 name, ap.arg_index, true});
        else
            out.push_back({std::string(d_.global_qual) + type(ap.dtype) + "* " + name, name,
                           ap.arg_index, false});
    }
    for (const AbiPack& pack : abi_.packs) {
        std::string name = "__pack_" + std::string(tack::name(pack.dtype)) + "__";
        out.push_back({std::string(d_.global_qual) + "const " + type(pack.dtype) + "* " + name,
                       name, pack.arg_index, false});
    }
    if (abi_.n_arg_index >= 0)
        out.push_back({fill(d_.n_param, {{"i", std::to_string(abi_.n_arg_index)}}), "__n__",
                       abi_.n_arg_index, true});
    return out;
}

std::string Emitter::argument_struct() const {
    std::string out = "struct " + args_struct_name() + " {\n";
    for (const Argument& a : arguments())
        out += "    " + a.decl + ";\n";
    return out + "};\n";
}

std::vector<std::string> Emitter::entry_params() const {
    std::vector<std::string> params;
    if (!d_.argument_buffer.empty()) {
        params.push_back(fill(d_.argument_buffer, {{"s", args_struct_name()}}));
    } else {
        // A texture's and __n__'s patterns carry their own index; the others take the suffix.
        for (const Argument& a : arguments())
            params.push_back(
                a.decl +
                (a.own_index ? "" : fill(d_.param_suffix, {{"i", std::to_string(a.index)}})));
    }
    for (const std::string& one : split_params(std::string(d_.builtin_params)))
        params.push_back(one);
    return params;
}

std::string Emitter::signature(const std::string& decl, const std::string& name,
                               const std::vector<std::string>& params) {
    std::string out = decl + " " + name + "(";
    for (size_t i = 0; i < params.size(); ++i)
        out += (i ? ",\n        " : "") + params[i];
    return out + ") {\n";
}

// Row-major, last dimension fastest, exactly as the CPU's flattened t: inner dimensions' counts
// come from their start/end/step; var_d = start_d + idx_d * step_d in wrapping u64.
void Emitter::decompose_index() {
    if (k_.dims.empty()) return;
    std::string i64 = type(DType::i64), u64 = type(DType::u64);
    std::string one = int_literal(d_, DType::u64, 1), zero = int_literal(d_, DType::u64, 0);
    line(u64 + " tack_t = (" + u64 + ")tack_idx;");
    for (size_t j = k_.dims.size(); j-- > 0;) {
        const ir::LoopDim& dim = k_.dims[j];
        std::string id = std::to_string(j);
        std::string s = "tack_ds" + id, st = "tack_dst" + id;
        line(i64 + " " + s + " = " + expr(dim.start) + ";");
        line(i64 + " " + st + " = " + expr(dim.step) + ";");
        if (j == 0) {
            line(var(*dim.var) + " = (" + i64 + ")((" + u64 + ")" + s + " + tack_t * (" + u64 +
                 ")" + st + ");");
            break;
        }
        std::string e = "tack_de" + id, c = "tack_dc" + id;
        line(i64 + " " + e + " = " + expr(dim.end) + ";");
        line(u64 + " " + c + " = (" + st + " > 0 && " + e + " > " + s + ") ? ((" + u64 + ")" + e +
             " - (" + u64 + ")" + s + " - " + one + ") / (" + u64 + ")" + st + " + " + one + " : " +
             one + ";");
        line(var(*dim.var) + " = (" + i64 + ")((" + u64 + ")" + s + " + (tack_t % " + c + ") * (" +
             u64 + ")" + st + ");");
        line("tack_t = tack_t / " + c + ";");
    }
}

std::vector<std::pair<std::string, std::string>> Emitter::group_arrays() const {
    std::vector<std::pair<std::string, std::string>> out;  // (element type, name[size])
    for (const auto& b : facts_.shared_arrays)
        out.push_back({type(b->elem), buf(*b) + "[" + std::to_string(b->size) + "]"});
    if (facts_.block_reduce) out.push_back({"float", "tack_red[256]"});
    return out;
}

void Emitter::kernel_body() {
    std::string i64 = type(DType::i64);
    if (!separate_body())
        for (const auto& [elem, decl] : group_arrays())
            line(std::string(d_.shared_qual) + elem + " " + decl + ";");
    if (!d_.argument_buffer.empty())
        for (const Argument& a : arguments())
            line(a.decl + " = tack_args." + a.name + ";");
    line("const " + i64 + " tack_lid = (" + i64 + ")" + std::string(d_.local_id) + ";");
    if (!d_.exact_index.empty()) {
        line("const " + i64 + " tack_idx = (" + i64 + ")" + std::string(d_.exact_index) + ";");
    } else {
        line("const " + i64 + " tack_idx = (" + i64 + ")" + std::string(d_.group_id) + " * (" +
             i64 + ")" + std::string(d_.group_size) + " + tack_lid;");
        // Collectives need every lane of the group; the host guarantees complete groups (D12).
        if (!facts_.collectives) line("if (tack_idx >= __n__) return;");
    }
    for (size_t i = 0; i < k_.params.size(); ++i) {
        const AbiParam& ap = abi_.params[i];
        if (ap.is_array) continue;
        line(type(ap.dtype) + " " + var(*k_.params[i].scalar) + " = __pack_" +
             tack::name(ap.dtype) + "__[" + std::to_string(ap.pack_slot) + "];");
    }
    for (const auto* v : declared_vars_) {
        bool is_param = false;
        for (const auto& p : k_.params)
            is_param = is_param || p.scalar.get() == v;
        if (!is_param) line(type(v->type) + " " + var(*v) + " = 0;");
    }
    for (const auto& b : facts_.local_arrays)
        line(type(b->elem) + " " + buf(*b) + "[" + std::to_string(b->size) + "];");
    for (const auto& s : k_.prologue)
        stmt(s);
    decompose_index();
    for (const auto& s : k_.body)
        stmt(s);
}

GeneratedSource Emitter::run() {
    scan();
    build_abi();
    kernel_body();
    std::string out(d_.header);
    if (facts_.f64) out += d_.fp64_header;
    if (facts_.int64_atomics) out += d_.int64_atomics_header;
    out += prelude_;
    if (!d_.argument_buffer.empty()) out += argument_struct();
    std::vector<std::string> params = entry_params();
    if (!separate_body()) {
        out += signature(std::string(d_.kernel_decl), abi_.entry, params);
        out += body_;
        out += "}\n";
        return {out, abi_};
    }
    // CONTRACT E15: the body in a noinline function of its own, called by the entry, which
    // declares the group memory (MSL allows it in a kernel's scope only) and passes it down.
    std::vector<std::string> body_params, call_args;
    for (const std::string& p : params)
        for (const std::string& one : split_params(without_attributes(p))) {
            body_params.push_back(one);
            call_args.push_back(one.substr(one.find_last_of(' ') + 1));
        }
    std::string entry_lines;
    for (const auto& [elem, decl] : group_arrays()) {
        std::string name = decl.substr(0, decl.find('['));
        body_params.push_back(std::string(d_.shared_qual) + elem + "* " + name);
        call_args.push_back(name);
        entry_lines += "    " + std::string(d_.shared_qual) + elem + " " + decl + ";\n";
    }
    std::string body_name = "tack_body_" + encode_identifier(k_.name);
    out += signature(std::string(d_.body_decl), body_name, body_params);
    out += body_;
    out += "}\n";
    out += signature(std::string(d_.kernel_decl), abi_.entry, params);
    out += entry_lines;
    std::string call;
    for (const std::string& a : call_args)
        call += (call.empty() ? "" : ", ") + a;
    out += "    " + body_name + "(" + call + ");\n}\n";
    return {out, abi_};
}

}  // namespace detail

GeneratedSource generate(const ir::Kernel& k, const Dialect& d) {
    return detail::Emitter(k, d).run();
}

std::string emit(const ir::Kernel& k, const Dialect& d) {
    return generate(k, d).source;
}

std::vector<std::vector<uint8_t>> KernelAbi::pack_scalars(
    const std::vector<uint64_t>& scalar_bits) const {
    std::vector<std::vector<uint8_t>> out;
    for (const AbiPack& pack : packs)
        out.emplace_back(static_cast<size_t>(pack.count) * size_bytes(pack.dtype), 0);
    for (size_t i = 0; i < params.size() && i < scalar_bits.size(); ++i) {
        const AbiParam& p = params[i];
        if (p.is_array) continue;
        for (size_t j = 0; j < packs.size(); ++j) {
            if (packs[j].dtype != p.dtype) continue;
            int n = size_bytes(p.dtype);
            uint64_t v = scalar_bits[i];
            // Little-endian hosts and devices: the low bytes of the slot are the value.
            std::memcpy(out[j].data() + static_cast<size_t>(p.pack_slot) * n, &v, n);
        }
    }
    return out;
}

}  // namespace tack::codegen::cfamily
