#pragma once
// The device registry: which backends exist, the one plain device per name, the default device
// and the set of live devices tack::sync() waits for.

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/backend.hpp"

namespace tack::runtime {

/// Every backend compiled into the library (backend_list.cpp), in registration order.
std::span<const BackendEntry* const> backend_entries();
/// nullptr when no backend has that name.
const BackendEntry* find_backend(std::string_view name);

/// The device of `name` with `options` (ValueError for an unknown name or option, before
/// anything is constructed). `fresh` builds a new backend even without options (tack::init).
std::shared_ptr<Backend> open_device(std::string_view name, const DeviceOptions& options,
                                     bool fresh);

/// The default device, creating the CPU device on first use. The calling thread holds it: the
/// reference stays valid until this thread has asked twice more after the default changed.
Backend& default_backend();
std::shared_ptr<Backend> default_backend_ptr();
void set_default_backend(std::shared_ptr<Backend> backend);

/// synchronize() on every live device.
void synchronize_all();
/// mark_queue() of every live device that has one (tack.sync_async).
std::vector<std::unique_ptr<QueueMark>> mark_all();

}  // namespace tack::runtime
