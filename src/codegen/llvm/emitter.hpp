#pragma once
// FunctionEmitter: IR statements and expressions -> LLVM IR inside one llvm::Function.
//
// Scalar variables live in allocas of the function's first block, zero-initialized (SROA and
// mem2reg turn them into SSA values); local arrays are allocas there too, so a loop never grows
// the stack, up to kStackArrayBytes; larger ones come from the heap (local_arrays.cpp).
// Break/Continue jump to the innermost loop's targets; code after a jump goes into an unreachable
// block that the optimizer deletes.

#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/llvm/arith.hpp"
#include "ir/ir.hpp"

namespace tack::codegen::llvm_cpu::detail {

class FunctionEmitter {
  public:
    /// Emission starts in a fresh block after the allocas' block; call finish() once the last
    /// block is terminated.
    FunctionEmitter(llvm::Function* fn, const ir::Kernel& kernel);

    Builder& builder() { return b_; }
    llvm::LLVMContext& context() { return b_.getContext(); }
    llvm::BasicBlock* new_block(const char* name);

    /// Gives a parameter or loop variable its value (stored into its alloca).
    void set_var(const ir::Var& v, llvm::Value* value);
    void bind_buffer(const ir::Buffer& buffer, llvm::Value* base);

    /// Loop targets for Break (may be null: no break allowed) and Continue.
    void push_loop(llvm::BasicBlock* continue_to, llvm::BasicBlock* break_to);
    void pop_loop();

    void emit(const ir::Block& block);
    llvm::Value* emit(const ir::Expr& e);
    /// Truthiness of `e` as i1 (ir.hpp: != 0, NaN true).
    llvm::Value* emit_condition(const ir::Expr& e);

    /// Ends the function: frees the heap's local arrays, returns.
    void emit_return();
    /// Call once the last block is terminated (by emit_return).
    void finish();

    // For the lane emitter (lanes.cpp), which reuses this one for uniform values.
    /// The variable's current scalar value.
    llvm::Value* get_var(const ir::Var& v);
    /// An uninitialized alloca in the function's first block.
    llvm::AllocaInst* entry_alloca(llvm::Type* type, const std::string& name);
    /// Uninitialized storage for a local array, made once at the function's start: an alloca,
    /// or a heap block past kStackArrayBytes (local_arrays.cpp).
    llvm::Value* local_array_storage(llvm::Type* type, const std::string& name, llvm::Align align);
    llvm::GlobalVariable* table_global(const ir::Table& t);
    llvm::Value* buffer_base(const ir::Buffer& buffer) const;
    llvm::Align access_align(const ir::Buffer& buffer) const;

  private:
    // Expressions (emit_expr.cpp).
    llvm::Value* visit(const ir::IntImm* e);
    llvm::Value* visit(const ir::FloatImm* e);
    llvm::Value* visit(const ir::VarRef* e);
    llvm::Value* visit(const ir::ArrayDim* e);
    llvm::Value* visit(const ir::Cast* e);
    llvm::Value* visit(const ir::Unary* e);
    llvm::Value* visit(const ir::Binary* e);
    llvm::Value* visit(const ir::Compare* e);
    llvm::Value* visit(const ir::Logical* e);
    llvm::Value* visit(const ir::Select* e);
    llvm::Value* visit(const ir::Load* e);
    llvm::Value* visit(const ir::TableLoad* e);
    llvm::Value* visit(const ir::Call* e);
    llvm::Value* visit(const ir::ThreadId* e);
    llvm::Value* visit(const ir::TexSample* e);

    // Statements (emit_stmt.cpp).
    void visit(const ir::Assign* s);
    void visit(const ir::Store* s);
    void visit(const ir::Atomic* s);
    void visit(const ir::If* s);
    void visit(const ir::For* s);
    void visit(const ir::While* s);
    void visit(const ir::Break* s);
    void visit(const ir::Continue* s);
    void visit(const ir::Print* s);
    void visit(const ir::AllocArray* s);
    void visit(const ir::Barrier* s);
    void visit(const ir::BlockReduce* s);

    llvm::AllocaInst* var_slot(const ir::Var& v);
    llvm::Value* element_ptr(const ir::Buffer& buffer, const ir::Expr& index);
    llvm::Value* printf_format(const ir::Print& s, std::vector<llvm::Value*>& args);
    /// Branches to `target` and continues in a block nothing reaches.
    void jump(llvm::BasicBlock* target);
    [[noreturn]] void not_on_cpu(const char* primitive, diag::SourceRange range) const;

    std::unordered_map<int, llvm::GlobalVariable*> tables_;  // by ir::Table::id
    struct LoopTargets {
        llvm::BasicBlock* continue_to;
        llvm::BasicBlock* break_to;
    };

    const ir::Kernel& kernel_;
    llvm::Function* fn_;
    llvm::BasicBlock* alloca_block_;
    llvm::BasicBlock* first_block_;
    Builder b_;
    Builder alloca_b_;  // appends to alloca_block_
    std::unordered_map<const ir::Var*, llvm::AllocaInst*> vars_;
    std::unordered_map<const ir::Buffer*, llvm::Value*> buffers_;  // local arrays
    std::vector<llvm::Value*> param_bases_;                        // by Buffer::param_index
    std::vector<LoopTargets> loops_;
    std::vector<llvm::Value*> heap_arrays_;  // local arrays past kStackArrayBytes
};

/// Local arrays up to this size live on the stack: a pool thread's stack (8 MiB) holds several
/// at once with room for the rest of the frame. Larger ones are heap blocks, taken once per
/// piece of the parallel loop (not per iteration) and freed at its end.
inline constexpr std::uint64_t kStackArrayBytes = 64 * 1024;

}  // namespace tack::codegen::llvm_cpu::detail
