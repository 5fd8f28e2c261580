// tack::Device and the device free functions.
#include <algorithm>

#include "runtime/backend.hpp"
#include "runtime/debug_mode.hpp"
#include "runtime/fork_guard.hpp"
#include "runtime/registry.hpp"
#include "tack/tack.hpp"

namespace tack {

Device::Device(std::shared_ptr<runtime::Backend> backend) : backend_(std::move(backend)) {}

namespace {
runtime::Backend& backend_of(const std::shared_ptr<runtime::Backend>& b) {
    return b ? *b : runtime::default_backend();
}
}  // namespace

std::string Device::name() const {
    return std::string(backend_of(backend_).name());
}
std::string Device::display_name() const {
    return std::string(backend_of(backend_).display_name());
}
DTypeSet Device::supported_dtypes() const {
    return backend_of(backend_).supported_dtypes();
}
bool Device::supports_f64() const {
    return backend_of(backend_).supports_f64();
}
DTypeSet Device::supported_atomic_dtypes() const {
    return backend_of(backend_).supported_atomic_dtypes();
}
bool Device::supports_device_reductions() const {
    return backend_of(backend_).supports_device_reductions();
}
bool Device::supports_workgroups() const {
    return backend_of(backend_).supports_workgroups();
}
std::vector<std::string> Device::device_memory_spaces() const {
    return backend_of(backend_).device_memory_spaces();
}
std::vector<std::string> Device::device_options() const {
    auto opts = backend_of(backend_).device_options();
    return {opts.begin(), opts.end()};
}
void Device::synchronize() const {
    runtime::require_unforked(backend_of(backend_));
    backend_of(backend_).synchronize();
}
bool Device::debug() const {
    return backend_of(backend_).debug();
}

DebugScope::DebugScope(bool enabled) : previous_(runtime::exchange_thread_debug(enabled ? 1 : 0)) {}
DebugScope::~DebugScope() {
    runtime::exchange_thread_debug(previous_);
}

Device device(std::string_view name, const DeviceOptions& options) {
    auto b = runtime::open_device(name, options, /*fresh=*/false);
    runtime::set_default_backend(b);
    return Device(std::move(b));
}

Device init(std::string_view arch, const DeviceOptions& options) {
    // Built before the previous default is released; on failure the previous one stays (C1).
    auto b = runtime::open_device(arch, options, /*fresh=*/true);
    runtime::set_default_backend(b);
    return Device(std::move(b));
}

Device default_device() {
    return Device(runtime::default_backend_ptr());
}

std::vector<std::string> available_backends() {
    std::vector<std::string> names;
    for (const auto* e : runtime::backend_entries())
        names.emplace_back(e->name);
    std::sort(names.begin(), names.end());
    return names;
}

void sync() {
    runtime::synchronize_all();
}

}  // namespace tack
