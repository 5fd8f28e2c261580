#pragma once
// Internal to lower_kernel (sema.hpp): the state of one lowering round and the helpers the
// lower_*.cpp files share. Not a public interface.
//
// Lowering is statement-emission style: lower_expr(ast, out) returns a pure ir::Expr and appends
// to `out` whatever statements the expression needs (inlined @tack.func bodies, atomics used as
// values, temporaries). Left-to-right evaluation (CONTRACT B25) is kept by spilling earlier
// operands into temporaries when a later operand emits statements.
//
// One storage type per local (CONTRACT B8) is found by re-running the whole lowering: every
// assignment records the type it stores; LocalTypes::settle() joins them and, when a local's
// type changed, lower_kernel runs another round with the wider types.

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "builtins/builtins.hpp"
#include "diag/diagnostic.hpp"
#include "frontend/ast.hpp"
#include "ir/ir.hpp"
#include "sema/sema.hpp"
#include "sema/templates.hpp"
#include "sema/validate.hpp"

namespace tack::sema::lower {

namespace ast = tack::frontend;
using diag::ErrorKind;
using diag::SourceRange;

/// The float type a weak literal expression adopts from its context (CONTRACT B4); nullopt
/// lets it default to f32.
using Hint = std::optional<DType>;

/// A lowered value: its shape and one pure IR expression per component (row-major). All
/// components have one scalar type. An empty `c` means "no value" (a call used as a statement).
struct Val {
    Shape shape;
    std::vector<ir::ExprPtr> c;
    DType type() const { return c.at(0)->type; }
    bool empty() const { return c.empty(); }
    static Val of(ir::ExprPtr e) { return Val{{}, {std::move(e)}}; }
};

/// What a name means at one point of a function body: a scalar or vector local (one Var per
/// component), an array, a texture or a template instance, or nothing (`type` empty: a name not
/// bound on this path). Make one with the factories.
struct Binding {
    std::optional<Type> type;
    ir::VarPtr var;                // Scalar
    std::vector<ir::VarPtr> vars;  // Vector, Matrix: one Var per component, row-major
    ir::BufferPtr buffer;          // Array, Texture
    std::string key;  // LocalTypes key; empty for pinned variables (params, loop vars, copies)
    // Array: a local or shared array allocated inside a loop or if body, read after that body
    // ended (its storage is the body's; see end_block_arrays).
    bool block_ended = false;

    static Binding scalar(ir::VarPtr v, std::string key = {}) {
        Type t = Type::scalar(v->type);
        return Binding{t, std::move(v), {}, nullptr, std::move(key)};
    }
    static Binding components(std::vector<ir::VarPtr> vars, Shape s, std::string key = {}) {
        Type t = Type::value(vars.at(0)->type, s);
        return Binding{t, nullptr, std::move(vars), nullptr, std::move(key)};
    }
    static Binding array(ir::BufferPtr buf, Shape element = {}) {
        Type t = Type::array(buf->elem, buf->rank - element.rank(), element);
        return Binding{t, nullptr, {}, std::move(buf), {}};
    }
    static Binding texture(ir::BufferPtr buf) {
        return Binding{Type::texture(), nullptr, {}, std::move(buf), {}};
    }
    static Binding of_template(int id) {
        return Binding{Type::of_template(id), nullptr, {}, nullptr, {}};
    }

    bool bound() const { return type.has_value(); }
    bool is(Type::Kind k) const { return type && type->kind == k; }
    /// A vector or matrix local: `vars` holds its components.
    bool has_components() const { return is(Type::Kind::Vector) || is(Type::Kind::Matrix); }
    bool is_buffer() const { return type && type->is_buffer(); }
    int template_id() const { return is(Type::Kind::Template) ? type->template_id : -1; }
    /// A vector or matrix's own shape, an array's element shape; scalar otherwise.
    Shape shape() const { return type ? type->shape : Shape{}; }
};

/// An assignable place (CONTRACT A32, A33): storage components of a local or of a field
/// element, all or a few of them, or one chosen at run time.
struct Place {
    Shape shape;                   // the shape a value stored here must have (or a scalar)
    std::vector<ir::VarPtr> vars;  // a local's storage: one Var per component
    ir::BufferPtr buffer;          // or a field's: components at base + k
    ir::ExprPtr base;              // i64, evaluated once (a literal or a Var)
    std::vector<int> comps;        // the storage components this place covers, row-major
    ir::ExprPtr sel;  // set: the place is ONE of `comps`, chosen at run time (i64, evaluated once);
                      // out of range reads the last and writes nothing
    std::string key;  // the local's LocalTypes key (locals only)
    std::string what;  // for messages: "field 'vf'", "'v'"
};

/// One function body being lowered: the kernel, or one inlined @tack.func call.
struct Scope {
    const Environment* env = nullptr;
    diag::SourceFilePtr file;
    std::string prefix;      // "Kernel 'k': " or "Device function 'f' (inlined into kernel 'k'): "
    std::string key_prefix;  // "" for the kernel, "f#3/" for the third inlined call
    std::set<std::string> assigned;  // names the body assigns or has as parameters (shadowing)
    std::map<std::string, Binding> names;
    std::map<std::string, ir::VarPtr> locals;  // the one Var of each named local
    std::map<std::string, std::vector<ir::VarPtr>> vector_locals;  // ... of each vector local
    // Names assigned exactly once, to a weak literal expression: read as that literal (the
    // public float-literal rule: `alone = 0.1; x * alone` is `x * 0.1`).
    std::map<std::string, const ast::Expr*> literal_locals;
    // Inlined functions: one slot per returned value ("$ret0", ...), created at the first return.
    bool is_kernel = true;
    int return_arity = -1;
    std::vector<ir::VarPtr> returns;
    SourceRange def_range;
};

/// Types assigned to each local across a round, and the settled storage types across rounds.
class LocalTypes {
  public:
    struct Record {
        std::optional<DType> strong;  // nullopt: a weak float
        SourceRange range;
        diag::SourceFilePtr file;
        std::string prefix;
    };
    /// The settled type of `key`, if an earlier round settled it.
    std::optional<DType> settled(const std::string& key) const;
    void record(const std::string& key, Record r) { records_[key].push_back(std::move(r)); }
    void used(const std::string& key, DType t) { used_[key] = t; }
    /// The shape of a local (scalar unless a vector or matrix was assigned to it).
    Shape shape(const std::string& key) const;
    /// Records a vector/matrix assignment; false when it contradicts the settled shape.
    bool record_shape(const std::string& key, Shape s);
    /// Joins this round's records into the settled types; true when another round is needed.
    /// Throws TypeError at the assignment where a join is impossible (signed with u64).
    bool settle();
    void begin_round();
    void set_default_float(DType t) { default_float_ = t; }

  private:
    DType default_float_ = DType::f32;
    std::map<std::string, DType> settled_;
    std::map<std::string, std::vector<Record>> records_;
    std::map<std::string, DType> used_;
    std::map<std::string, Shape> shapes_;  // settled across rounds, grown by record_shape
    bool new_shape_ = false;
};

/// Lowers one kernel for one signature, once (one round of the type fixpoint).
class Lowerer {
  public:
    Lowerer(const ast::FunctionDef& fn, const diag::SourceFilePtr& file, const Environment& env,
            const std::vector<Type>& args, LocalTypes& types);
    ir::Kernel run();

    // ---- errors (lower_types.cpp) -------------------------------------------------------
    [[noreturn]] void fail(ErrorKind kind, const std::string& what, SourceRange r) const;
    [[noreturn]] void type_error(const std::string& what, SourceRange r) const {
        fail(ErrorKind::TypeError, what, r);
    }

    // ---- types, literals, conversions (lower_types.cpp) -------------------------------------
    DType promote_or_fail(DType a, DType b, SourceRange r) const;
    ir::ExprPtr convert(ir::ExprPtr e, DType to) const;
    ir::ExprPtr int_literal(__int128 value, SourceRange r) const;
    ir::ExprPtr float_literal(double value, Hint hint, SourceRange r) const;
    ir::ExprPtr constant_expr(const Constant& c, Hint hint, SourceRange r) const;
    ir::ExprPtr truth(ir::ExprPtr e) const;  // i32 0/1 of a value's truthiness
    bool is_weak(const ast::Expr& e) const;
    bool is_literal_expr(const ast::Expr& e, bool* has_float) const;
    std::optional<Constant> constant_of(const ast::Expr& e) const;
    std::optional<DType> dtype_of(const ast::Expr& e) const;  // tack.f32, float, int, ...
    std::optional<__int128> static_int(const ast::Expr& e) const;

    // ---- variables (lower_types.cpp) --------------------------------------------------------
    ir::VarPtr new_var(const std::string& name, DType t, SourceRange r, bool is_local = true);
    ir::VarPtr temp(DType t, SourceRange r) { return new_var("tmp", t, r); }
    ir::ExprPtr spill(ir::ExprPtr e, ir::Block& out);        // fresh temp holding e
    ir::ExprPtr materialize(ir::ExprPtr e, ir::Block& out);  // spill unless Imm/VarRef
    ir::VarPtr local_var(const std::string& name, std::optional<DType> guess, SourceRange r);
    std::vector<ir::VarPtr> vector_local(const std::string& name, Shape shape, DType guess,
                                         SourceRange r);
    void assign_name(const std::string& name, const ir::ExprPtr& value, bool weak, SourceRange r,
                     ir::Block& out);
    void assign_name(const std::string& name, Val value, bool weak, SourceRange r, ir::Block& out);
    /// The literal-locals table of a function body (see Scope::literal_locals).
    void find_literal_locals(const ast::StmtList& body, const std::vector<ast::Param>& params,
                             Scope& scope);
    Hint name_hint(const std::string& name) const;

    // ---- expressions (lower_expr.cpp) -------------------------------------------------------
    /// A scalar-valued expression; a vector or matrix here is an error naming its shape.
    ir::ExprPtr lower_expr(const ast::Expr& e, ir::Block& out, Hint hint = {});
    /// Any expression: a scalar, vector or matrix value.
    Val lower_value(const ast::Expr& e, ir::Block& out, Hint hint = {});
    /// Operands in order, spilling earlier ones when a later one emits statements. Weak
    /// operands adopt `hint` when given, else the float type of the strong float operands.
    std::vector<Val> lower_values(const std::vector<const ast::Expr*>& es, ir::Block& out,
                                  Hint hint = {});
    std::vector<ir::ExprPtr> lower_operands(const std::vector<const ast::Expr*>& es, ir::Block& out,
                                            Hint hint = {});
    /// The one component of a scalar value; `v` of another shape is rejected at `r`.
    ir::ExprPtr scalar_of(const Val& v, SourceRange r) const;
    /// A condition (if, while, conditional expression): scalar, with a remedy for vectors.
    ir::ExprPtr lower_condition(const ast::Expr& e, ir::Block& out, const char* what);
    Val lower_literal(const ast::Expr& e, Hint hint);
    Val lower_name(const ast::Name& e, Hint hint);
    Val lower_unary(const ast::Unary& e, ir::Block& out, Hint hint);
    Val lower_binary(const ast::Binary& e, ir::Block& out, Hint hint);
    ir::ExprPtr arith(ast::BinaryOp op, ir::ExprPtr a, ir::ExprPtr b, SourceRange r) const;
    ir::ExprPtr unary(ast::UnaryOp op, ir::ExprPtr a, SourceRange r) const;
    ir::ExprPtr compare(ast::CompareOp op, ir::ExprPtr a, ir::ExprPtr b, SourceRange r) const;
    Val lower_compare(const ast::Compare& e, ir::Block& out);
    Val lower_boolop(const ast::BoolOp& e, ir::Block& out);
    Val lower_ifexp(const ast::IfExp& e, ir::Block& out, Hint hint);
    Val lower_subscript(const ast::Subscript& e, ir::Block& out, Hint hint = {});
    Val lower_attribute(const ast::Attribute& e, ir::Block& out, Hint hint);
    ir::ExprPtr lower_shape(const ast::Subscript& e);
    const Binding* array_binding(const ast::Expr& e) const;  // Name bound to an array, or null
    const Binding& array_of(const ast::Expr& e, const char* what) const;
    ir::ExprPtr array_extent(const ir::BufferPtr& b, int dim, SourceRange r) const;
    /// Flat row-major ELEMENT index of `idx` (one per logical dimension, or one flat index).
    ir::ExprPtr flat_index(const Binding& a, std::vector<ir::ExprPtr> idx, SourceRange r) const;
    /// The index expressions of a field subscript: a tuple, a vector of integers (A34), None.
    std::vector<ir::ExprPtr> field_indices(const ast::Subscript& s, ir::Block& out);
    std::vector<const ast::Expr*> index_list(const ast::Expr& e) const;
    void join_arms(ir::ExprPtr* a, ir::ExprPtr* b, SourceRange r) const;

    // ---- vectors and matrices (lower_vector.cpp) ----------------------------------------------
    /// `[a, b, c]` / `[[a, b], [c, d]]` / `[u, v]`: a vector or a matrix (rows).
    Val lower_list(const std::vector<const ast::Expr*>& elts, ir::Block& out, Hint hint,
                   SourceRange r, const char* what);
    Val constant_value(const Constant& c, Hint hint, SourceRange r) const;
    /// Component-wise `f` with scalar broadcasting; mismatched shapes are rejected with `verb`.
    Val zip(const Val& a, const Val& b, ir::Block& out, SourceRange r, const std::string& verb,
            const std::function<ir::ExprPtr(ir::ExprPtr, ir::ExprPtr)>& f);
    Val map(const Val& a, const std::function<ir::ExprPtr(ir::ExprPtr)>& f) const;
    /// The common shape of `vals` (scalars broadcast), each broadcast to it.
    Shape common_shape(std::vector<Val>& vals, ir::Block& out, SourceRange r,
                       const std::string& verb);
    Val broadcast(const Val& v, Shape to, ir::Block& out);
    Val keep(Val v, ir::Block& out);  // every component an immediate or a Var
    Val convert(Val v, DType to) const;
    Val matmul(Val a, Val b, ir::Block& out, SourceRange r);
    ir::ExprPtr sum_of(const std::vector<ir::ExprPtr>& terms, SourceRange r) const;
    ir::ExprPtr dot(const Val& a, const Val& b, SourceRange r) const;
    Val lower_method(const ast::Call& e, const ast::Attribute& callee, ir::Block& out, Hint hint);
    /// v[c], m[i, j], with static or runtime indices (A32).
    /// `as_table`: a runtime index into `v`'s immediates is one TableLoad (typed and integer
    /// constants, A27) rather than a select chain.
    Val component(const Val& v, const ast::Subscript& s, ir::Block& out, bool as_table = false);
    ir::TablePtr table_for(const Val& v);
    Val named_component(const Val& v, const std::string& attr, SourceRange r) const;
    /// A place for an assignment target other than a bare name.
    Place place_of(const ast::Expr& target, ir::Block& out);
    Place narrow(Place p, const ast::Subscript& s, ir::Block& out);
    Val read(const Place& p, SourceRange r) const;
    void write(const Place& p, Val v, ir::Block& out, SourceRange r);
    Val lower_any_all(const ast::Call& e, const std::string& name, ir::Block& out);
    Val lower_constructor(const ast::Call& e, const std::string& name, ir::Block& out, Hint hint);
    /// tex.sample(u, v, w): trilinear interpolation over the texture's texels (A39).
    Val lower_sample(const ast::Call& e, const Binding& tex, ir::Block& out);

    // ---- calls and intrinsics (lower_call.cpp) ----------------------------------------------
    /// `want_value`: the call's value is used; atomics then return the old value (G6). An empty
    /// Val when the call has no value and none is wanted.
    Val lower_call(const ast::Call& e, ir::Block& out, Hint hint, bool want_value = true);
    std::vector<Val> lower_call_multi(const ast::Call& e, ir::Block& out);
    /// The results of inlining the @tack.func `e` calls (a resolved name or a template's
    /// method or function attribute); nullopt when `e` calls something else.
    std::optional<std::vector<Val>> inline_callee(const ast::Call& e, ir::Block& out);
    std::string dotted(const ast::Expr& e) const;  // "tack.sqrt"; "" when not a dotted name
    Resolution resolve_callee(const ast::Call& e) const;
    const builtins::Builtin* intrinsic_of(const ast::Call& e) const;
    Val lower_intrinsic(const builtins::Builtin& b, const ast::Call& e, ir::Block& out, Hint hint,
                        bool want_value);
    Val lower_math(const ast::Call& e, const std::string& name, ir::Block& out, Hint hint);
    Val lower_minmax(const ast::Call& e, const std::string& name, ir::Block& out, Hint hint);
    Val lower_cast(const ast::Call& e, const std::string& name, ir::Block& out);
    Val lower_helper(const ast::Call& e, const std::string& name, ir::Block& out, Hint hint);
    Val lower_atomic(const ast::Call& e, const std::string& name, ir::Block& out, bool want_value);
    ir::ExprPtr lower_workgroup(const ast::Call& e, const std::string& name, ir::Block& out);
    void lower_print(const ast::Call& e, ir::Block& out);
    ir::ExprPtr lower_len(const ast::Call& e);
    Val lower_select(const ast::Call& e, ir::Block& out, Hint hint);
    ir::BufferPtr lower_alloc(const ast::Call& e, const std::string& name, const std::string& var,
                              ir::Block& out);
    /// A TypeError naming the signature's call form when `e` passes a count it refuses.
    void check_arity(const ast::Call& e, const builtins::Signature& s) const;
    DType float_result(const std::vector<ir::ExprPtr>& args) const;

    // ---- @tack.func inlining (lower_inline.cpp) ---------------------------------------------
    std::string call_chain(const std::string& callee) const;
    /// `self`: a method's receiver (a template), bound to the callee's first parameter.
    std::vector<Val> inline_call(const ast::Call& e, const FuncRef& f, ir::Block& out,
                                 const Binding* self = nullptr);
    Scope callee_scope(const ast::Call& e, const FuncRef& f, const std::vector<Val>& values,
                       ir::Block& out, const Binding* self);
    // ---- templates (lower_template.cpp) -------------------------------------------------------
    /// The template a name or attribute chain denotes (`cfg`, `self.grid`), or nullopt.
    std::optional<Binding> template_of(const ast::Expr& e) const;
    /// The member `a` names on a template (`cfg.size`), or null.
    const TemplateMember* member_of(const ast::Attribute& a) const;
    /// Names of the extra arguments of the declared template parameters, by argument index.
    void name_template_args(int template_id, const std::string& path,
                            std::map<int, std::string>& names) const;
    /// `for c in obj` (the class's __tack_iterate__): the extents, fastest first, as i64; the
    /// loop target must be one name. `obj` is a template (template_of(*loop.iter)).
    std::vector<ir::ExprPtr> iteration_extents(const ast::For& loop, int template_id);
    /// Binds a loop over an object's index: the one loop variable, or the vector of `vars`.
    void bind_object_index(const std::string& name, const std::vector<ir::VarPtr>& vars,
                           const ast::StmtList& body, ir::Block& body_out);
    /// A sequential `for c in obj`: one nested range loop per extent, c[0] innermost.
    void lower_object_for(const ast::For& s, int template_id, ir::Block& out);
    /// A loop over something that is neither a range nor an iterable template.
    [[noreturn]] void not_iterable(const ast::For& s) const;
    void lower_func_body(const ast::StmtList& body, ir::Block& out);
    void lower_with_tail(std::vector<std::pair<const ast::StmtList*, size_t>> conts,
                         ir::Block& out);
    void lower_return(const ast::Return& s, ir::Block& out);

    // ---- statements (lower_stmt.cpp) --------------------------------------------------------
    void lower_stmts(const ast::StmtList& stmts, ir::Block& out);
    void lower_stmt(const ast::Stmt& s, ir::Block& out);
    void lower_expr_stmt(const ast::ExprStmt& s, ir::Block& out);
    void lower_assign(const ast::Assign& s, ir::Block& out);
    void assign_target(const ast::Expr& target, const Val& value, bool weak, ir::Block& out);
    Hint target_hint(const ast::Expr& target) const;
    void lower_tuple_assign(const ast::Tuple& target, const ast::Expr& value, ir::Block& out);
    void lower_aug_assign(const ast::AugAssign& s, ir::Block& out);
    void lower_store(const ast::Expr& target, Val value, ir::Block& out);
    void lower_if(const ast::If& s, ir::Block& out);
    void lower_while(const ast::While& s, ir::Block& out);
    void lower_for(const ast::For& s, ir::Block& out);
    void lower_ndrange_for(const ast::For& s, const ast::Call& call, ir::Block& out);
    std::vector<ir::ExprPtr> range_args(const ast::Call& call, ir::Block& out);
    void end_block_arrays(const std::map<std::string, Binding>& before);
    void merge_bindings(const std::map<std::string, Binding>& a,
                        const std::map<std::string, Binding>& b);
    ir::VarPtr bind_loop_var(const std::string& name, ir::VarPtr v, const ast::StmtList& body,
                             ir::Block& body_out);

    // ---- the kernel (lower_kernel.cpp) ------------------------------------------------------
    void bind_params(ir::Kernel& k);
    void lower_parallel_loop(const ast::For& loop, ir::Kernel& k);
    void lower_parallel_object_loop(const ast::For& loop, int template_id, ir::Kernel& k);
    std::vector<ir::LoopDim> loop_dims(const ast::For& loop);
    ir::ExprPtr host_value(const ir::ExprPtr& e) const;  // null when not host-evaluable
    ir::ExprPtr dim_expr(const ast::Expr& e);
    void per_iteration_copies(const ast::StmtList& body, ir::Block& out);
    void lower_result(const ast::Return& ret, ir::Kernel& k);

    // ---- state -------------------------------------------------------------------------------
    const ast::FunctionDef& fn_;
    const std::vector<Type>& args_;
    LocalTypes& types_;
    std::string kernel_name_;
    Scope* scope_ = nullptr;  // the function body being lowered
    int next_var_id_ = 0;     // shared by Vars and Buffers so printed names are unambiguous
    int next_inline_ = 0;
    std::map<std::string, ir::TablePtr> tables_;  // by printed contents: one table per constant
    std::map<int, Binding> arg_bindings_;         // template fields and scalars, by argument index
    std::vector<ir::VarPtr> locals_;
    std::map<ir::StmtPtr, diag::SourceFilePtr> stmt_files_;  // ir::Kernel::stmt_files
    // FuncRef identities being inlined, with the template bound to `self` (-1: none): a method
    // calling the same method of a nested template is not recursion (templates are finite).
    std::vector<std::pair<const void*, int>> call_stack_;
    std::vector<std::string> call_names_;
    int inlined_calls_ = 0;  // this lowering's, against kMaxInlinedCalls
    int loop_depth_ = 0;     // sequential loops around the current statement
    bool in_prologue_ = false;
    // Host-evaluable value of each kernel variable the prologue assigned (null: not host
    // evaluable), for the parallel loop's bounds (A15).
    std::map<const ir::Var*, ir::ExprPtr> host_values_;
    std::set<const ir::Var*> param_vars_;
    int block_depth_ = 0;  // if/loop nesting (prologue assignments there are not host values)
    Scope kernel_scope_;
};

/// Names a statement list assigns (targets of =, op=, for), recursively.
void collect_assigned(const ast::StmtList& body, std::set<std::string>& out);
/// True when the list contains a `return` outside loops (recursively through if/else).
bool contains_return(const ast::StmtList& body);
/// True when the expression tree reads memory (such operands are spilled before a later
/// operand's statements run).
bool has_load(const ir::Expr& e);

}  // namespace tack::sema::lower
