#pragma once
// The launch length: the parallel loop's start/end/step evaluated on the host from the call's
// scalar values and array extents, with the IR's own semantics (ir/eval.hpp).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ir/ir.hpp"
#include "tack/tack.hpp"

namespace tack::driver {

/// What the host knows about the call: scalar bits and array shapes per parameter.
struct CallValues {
    const ir::Kernel* kernel;
    std::span<const detail::Arg> args;
};

/// Number of flattened iterations of the parallel loop (product of the dims' trip counts; a
/// dimension with step <= 0 or end <= start runs nothing). Throws ValueError when the product
/// exceeds 2^63 - 1.
int64_t launch_count(const CallValues& call);

/// launch_count() for one lowered kernel, prepared once: when every start/end/step is an integer
/// constant, an integer scalar parameter or an array extent (nearly every kernel), a call reads
/// those directly instead of walking the IR through the evaluator (a third of a 1-element
/// launch's time in the core); anything else falls back to launch_count().
class LaunchPlan {
  public:
    LaunchPlan() = default;
    explicit LaunchPlan(const ir::Kernel& kernel);
    int64_t count(const CallValues& call) const;

  private:
    struct Term {
        enum class Kind { Constant, Scalar, Extent } kind = Kind::Constant;
        int64_t value = 0;  // Constant: the value; Scalar/Extent: the parameter index
        int dim = 0;        // Extent: which dimension
        DType dtype = DType::i64;
    };
    struct Dim {
        Term start, end, step;
    };
    static std::optional<Term> term(const ir::Kernel& kernel, const ir::ExprPtr& e);
    static int64_t value(const Term& t, const CallValues& call);

    bool direct_ = false;
    std::vector<Dim> dims_;
};

}  // namespace tack::driver
