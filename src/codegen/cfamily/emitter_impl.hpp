#pragma once
// The emitter's private state, shared by emitter.cpp (kernel skeleton and ABI),
// emit_expr.cpp (expressions) and emit_stmt.cpp (statements).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "codegen/cfamily/emitter.hpp"
#include "codegen/cfamily/helpers.hpp"
#include "codegen/cfamily/identifiers.hpp"

namespace tack::codegen::cfamily::detail {

/// What a pre-pass found in the kernel; it decides the header, the guard and the hoisted
/// declarations.
struct KernelFacts {
    bool f64 = false;
    bool int64_atomics = false;
    bool collectives = false;  // Barrier, BlockReduce
    bool workgroups = false;   // collectives, shared arrays, ThreadId
    bool print = false;
    bool block_reduce = false;
    bool loop_stores = false;  // a sequential loop stores or does an atomic (CONTRACT E15)
    std::vector<ir::BufferPtr> shared_arrays, local_arrays;
    std::map<const ir::Buffer*, const ir::TexSample*> textures;  // sampled in hardware
};

class Emitter {
  public:
    Emitter(const ir::Kernel& k, const Dialect& d);
    GeneratedSource run();

    // emit_expr.cpp. `fusable`: the consumer is a float add/sub of the same expression, so a
    // product here may be contracted with it (see "Contraction" in emit_expr.cpp).
    std::string expr(const ir::ExprPtr& e, bool fusable = false);
    std::string truthy(const ir::ExprPtr& e);

    // emit_stmt.cpp
    void block(const ir::Block& b);
    void stmt(const ir::StmtPtr& s);

  private:
#define TACK_X(n) std::string emit_node(const ir::n* node, bool fusable);
    TACK_IR_EXPRS(TACK_X)
#undef TACK_X
#define TACK_X(n) void emit_node(const ir::n* node);
    TACK_IR_STMTS(TACK_X)
#undef TACK_X
    std::string int_binary(const ir::Binary* n);
    std::string float_binary(const ir::Binary* n, bool fusable);
    std::string atomic_call(const ir::Atomic* n);
    void for_loop(const ir::For* n);

    std::string type(DType t) const {
        return std::string(d_.type[static_cast<int>(t)]);
    }
    const std::string& var(const ir::Var& v) const;
    const std::string& buf(const ir::Buffer& b) const;
    /// Adds the helper to the prelude (once) and returns its name.
    std::string use(const Helper& h);
    std::string use_int(IntOp op, DType t) {
        return use(int_helper(d_, op, t));
    }
    std::string fresh(const char* stem) {
        return "tack_" + std::string(stem) + std::to_string(next_temp_++);
    }

    void line(const std::string& text);
    void line_directive(const ir::Stmt& s);

    // emitter.cpp
    void scan();
    void check_supported();
    int64_t texture_extent(const ir::TexSample& t, int axis) const;
    void build_abi();
    /// One kernel argument: its declaration (no suffix), its name, its index, and whether the
    /// dialect's pattern for it placed the index itself (textures, __n__).
    struct Argument {
        std::string decl, name;
        int index = -1;
        bool own_index = false;
    };
    std::vector<Argument> arguments() const;
    std::string args_struct_name() const {
        return "tack_args_" + encode_identifier(k_.name);
    }
    std::string argument_struct() const;
    std::vector<std::string> entry_params() const;
    static std::string signature(const std::string& decl, const std::string& name,
                                 const std::vector<std::string>& params);
    /// Group memory declarations: (element type, "name[size]").
    std::vector<std::pair<std::string, std::string>> group_arrays() const;
    /// CONTRACT E15: whether the body is a function of its own.
    bool separate_body() const {
        return facts_.loop_stores && !d_.body_decl.empty();
    }
    void kernel_body();
    void decompose_index();

    const ir::Kernel& k_;
    const Dialect& d_;
    KernelFacts facts_;
    KernelAbi abi_;
    std::map<const ir::Var*, std::string> var_names_;
    std::map<const ir::Buffer*, std::string> buf_names_;
    std::vector<const ir::Var*> declared_vars_;
    std::set<std::string> helper_names_;
    std::string prelude_;
    std::string body_;
    int indent_ = 1;
    int loop_depth_ = 0;
    int next_temp_ = 0;
    int last_line_ = -1;
};

}  // namespace tack::codegen::cfamily::detail
