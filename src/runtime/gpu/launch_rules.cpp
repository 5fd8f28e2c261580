#include "runtime/gpu/launch_rules.hpp"

#include <algorithm>
#include <string>

#include "codegen/cfamily/reduction.hpp"
#include "passes/passes.hpp"
#include "runtime/errors.hpp"

namespace tack::runtime::gpu {

void check_launch_size(std::string_view kernel, std::int64_t total, const Geometry& g) {
    if (total <= 0 || static_cast<std::uint64_t>(total) <= g.limit) return;
    throw ValueError("Kernel '" + std::string(kernel) + "': " + std::to_string(total) +
                     " iterations exceed the " + std::to_string(g.limit) + " that one " +
                     std::string(g.api) +
                     " launch can index; split the work across several launches.");
}

void check_collective_lanes(std::string_view kernel, std::uint64_t group) {
    if (group >= kCollectiveLanes) return;
    throw ValueError("Kernel '" + std::string(kernel) +
                     "': workgroup collectives require 256 lanes; this device selects " +
                     std::to_string(group) + ".");
}

void check_complete_groups(std::string_view kernel, std::int64_t total) {
    if (total <= 0 || total % static_cast<std::int64_t>(kCollectiveLanes) == 0) return;
    throw ValueError("Kernel '" + std::string(kernel) +
                     "': workgroup collectives require complete 256-lane groups; iteration "
                     "count " +
                     std::to_string(total) + " would create a partial workgroup.");
}

void check_dispatch(std::string_view kernel, const codegen::cfamily::KernelAbi& abi,
                    std::int64_t total, const Geometry& g) {
    check_launch_size(kernel, total, g);
    if (abi.uses_collectives) check_complete_groups(kernel, total);
}

codegen::cfamily::GeneratedSource generate(const ir::Kernel& kernel,
                                           const codegen::cfamily::Dialect& dialect,
                                           const Geometry& g) {
    std::string participation = passes::check_participation(kernel);
    if (!participation.empty()) throw ValueError(participation);
    auto gen =
        translate_compile_errors([&] { return codegen::cfamily::generate(kernel, dialect); });
    if (gen.abi.uses_collectives) check_collective_lanes(kernel.name, g.group);
    return gen;
}

ReduceDecision plan_reduction(std::int64_t count, ir::ReduceOp op, const Geometry& g,
                              std::uint64_t max_groups) {
    if (count <= 0) {
        if (op == ir::ReduceOp::Sum) return {.empty = true};
        throw ValueError(std::string(op == ir::ReduceOp::Min ? "min" : "max") +
                         " reduction requires a nonempty field");
    }
    std::uint64_t n = static_cast<std::uint64_t>(count);
    std::uint64_t cap = std::min<std::uint64_t>(max_groups, g.limit / kCollectiveLanes);
    std::uint64_t groups = std::clamp<std::uint64_t>((n + kCollectiveLanes - 1) / kCollectiveLanes,
                                                     1, std::max<std::uint64_t>(cap, 1));
    return {.plan = {.groups = groups,
                     .count = count,
                     .stride = static_cast<std::int64_t>(groups * kCollectiveLanes),
                     .identity = codegen::cfamily::reduction_identity(op)}};
}

}  // namespace tack::runtime::gpu
