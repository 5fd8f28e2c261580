// The `cpu` backend of a TACK_LLVM=OFF build: listed like every backend, so tack.device("cpu"),
// tackc devices and tack.inspect explain that this build has no LLVM instead of failing to
// link. Selected by cmake/TackTargets.cmake in place of runtime/cpu.
#include "runtime/cpu/cost_model.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/errors.hpp"

namespace tack::runtime::cpu {

namespace {

constexpr const char* kWhy =
    "this Tack was built with TACK_LLVM=OFF (no LLVM 19): the CPU backend is not available; use "
    "a GPU backend, or rebuild with LLVM";

std::shared_ptr<Backend> create(const DeviceOptions&) {
    throw RuntimeError(std::string("Cannot initialize 'cpu' backend: ") + kWhy);
}

constexpr std::string_view kOptions[] = {"num_threads"};
const BackendEntry kEntry{"cpu", kOptions, &create};

}  // namespace

const BackendEntry& backend_entry() {
    return kEntry;
}

std::string render_llvm_ir(const ir::Kernel&, bool, bool) {
    throw NotImplementedError(std::string("LLVM IR for the CPU: ") + kWhy);
}

uint64_t fan_out_count() {
    return 0;  // no CPU backend, no pool
}

}  // namespace tack::runtime::cpu
