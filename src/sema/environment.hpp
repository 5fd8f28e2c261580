#pragma once
// The environment interface: how sema learns what a name outside the kernel means.
//
// Upstream Tack resolves names through the defining function's closure and globals (CONTRACT A6,
// A22). The C++ core does not know Python, so it asks an Environment: the Python package answers
// from the function's real namespace, C++ callers get a ModuleEnvironment built from the parsed
// module (its imports, tack.constant assignments and @tack.func definitions) plus a map of extra
// constants.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast.hpp"
#include "tack/dtype.hpp"

namespace tack::sema {

/// A compile-time constant: `tack.constant(v[, dtype])` or math.pi/e/tau.
struct Constant {
    enum class Kind { Int, Float, Tuple };
    Kind kind = Kind::Int;
    __int128 ival = 0;           // Int: the Python value (bool is 0/1)
    double fval = 0;             // Float: the Python value
    std::optional<DType> dtype;  // explicit dtype: acts as the literal under that cast
    // Tuple: a vector (rows = n, cols = 0) or matrix (rows x cols) constant, its Int/Float
    // components row-major; `dtype` applies to every component (CONTRACT A27).
    std::vector<Constant> items;
    int rows = 0;
    int cols = 0;
    static Constant integer(__int128 v, std::optional<DType> dt = std::nullopt);
    static Constant floating(double v, std::optional<DType> dt = std::nullopt);
};

class Environment;

/// A statically bound @tack.func: its definition and the namespace its body resolves in.
struct FuncRef {
    const frontend::FunctionDef* def = nullptr;
    diag::SourceFilePtr file;                // the file `def` was parsed from
    std::shared_ptr<const Environment> env;  // the callee's own namespace
    std::shared_ptr<const void> keep_alive;  // owns `def` (a parsed module)
    const void* identity() const { return def; }
};

struct Resolution {
    enum class Kind {
        Unbound,    // nothing by that name: a bare unbound name may be an intrinsic
        Intrinsic,  // bound to the same-named object of `tack`, `math` or `builtins`
        Constant,   // a tack.constant or math.pi/e/tau
        Func,       // a @tack.func
        Other,      // bound to something the kernel language cannot use
    };
    Kind kind = Kind::Unbound;
    std::string intrinsic;  // canonical name for Intrinsic: "sqrt", "atomic_add", "f32", "ndrange"
    Constant constant;
    FuncRef func;
    std::string other_description;  // e.g. "<class 'numpy.ufunc'>", for the error message
};

class Environment {
  public:
    virtual ~Environment() = default;
    /// Resolves a name as spelled in source: "SCALE", "cfg.SCALE", "tack.sqrt", "helpers.norm2".
    virtual Resolution resolve(std::string_view dotted_name) const = 0;
};

/// Environment for a module parsed by the C++ front end.
class ModuleEnvironment : public Environment,
                          public std::enable_shared_from_this<ModuleEnvironment> {
  public:
    /// `module` must outlive the environment (hold it in `keep_alive`).
    ModuleEnvironment(std::shared_ptr<const frontend::Module> module,
                      std::map<std::string, Constant> extra_constants = {});
    /// The namespace of the definitions inside host function `scope` (Module::scopes): its own
    /// imports, constants and definitions, then `enclosing` (the enclosing function's or the
    /// module's environment), as a Python closure sees names.
    ModuleEnvironment(std::shared_ptr<const frontend::Module> module, int scope,
                      std::shared_ptr<const Environment> enclosing);
    Resolution resolve(std::string_view dotted_name) const override;

  private:
    void evaluate_constants(const std::vector<frontend::ConstantDef>& defs);
    /// What a host-code `NAME = value` is, for the error of a kernel that reads NAME.
    std::string global_description(const frontend::ConstantDef& global, bool attribute) const;

    std::shared_ptr<const frontend::Module> module_;
    int scope_ = -1;
    std::shared_ptr<const Environment> enclosing_;
    std::map<std::string, Constant> constants_;         // module constants (evaluated) + extras
    std::map<std::string, std::string> bad_constants_;  // tack.constant names -> why unusable
};

}  // namespace tack::sema
