#pragma once
// What dispatch needs to know about one lowered kernel, computed once per argument signature
// from the IR before optimization (so unreachable statements count, CONTRACT D11/D14).

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.hpp"

namespace tack::driver {

struct AtomicTarget {
    int param = 0;
    ir::AtomicOp op = ir::AtomicOp::Add;
    DType dtype = DType::i32;
    diag::SourceFilePtr file;  // where the call is written (an inlined @tack.func's file)
    diag::SourceRange range;
};

struct WorkgroupUse {
    std::string construct;  // "barrier", "thread_id", "block_sum", "shared"
    int line = 0;
};

struct LocalArrayUse {
    std::string name;
    std::uint64_t bytes = 0;
    diag::SourceFilePtr file;
    diag::SourceRange range;
};

struct KernelFacts {
    std::vector<int> written_params;  // array params stored to or atomically updated, sorted
    std::vector<AtomicTarget> atomics;
    std::vector<WorkgroupUse> workgroup_uses;  // in source order
    std::vector<LocalArrayUse> local_arrays;   // per-iteration arrays (not shared), in order
    /// Each iteration does the same work on every call of one variant, so a launch's length can
    /// be predicted from earlier calls: no print (output may block), no while loop, and every
    /// sequential loop's bounds are constants or array extents (the variant fixes the extents).
    /// A loop bounded by a scalar argument takes as long as the value asks.
    bool fixed_cost = true;
};

KernelFacts collect_facts(const ir::Kernel& kernel);

const char* atomic_op_name(ir::AtomicOp op);  // "atomic_add"

}  // namespace tack::driver
