#pragma once
// The Level Zero backend's device option `external_context` (CONTRACT E7): adopt another
// library's driver, device and context instead of creating a context. Tack then allocates and
// queues in that context and never destroys anything of it.

#include <optional>

#include "tack/tack.hpp"

namespace tack::runtime::level_zero {

/// The three handles (ze_driver_handle_t, ze_device_handle_t, ze_context_handle_t as void*).
struct ExternalContext {
    void* driver = nullptr;
    void* device = nullptr;
    void* context = nullptr;
};

/// Reads options["external_context"], given either as a pointer to an ExternalContext (C++,
/// the bindings) or as the text "driver=0x...,device=0x...,context=0x..." (a dict formatted by a
/// tool). nullopt when absent. ValueError "external_context requires ..." when a handle is
/// missing or null, a key is unknown or the value has another type.
std::optional<ExternalContext> parse_external_context(const DeviceOptions& options);

}  // namespace tack::runtime::level_zero
