#pragma once
// A device's capabilities as the driver reads them (driver/targets.hpp): its backend's answers,
// which default to its target's row and may only narrow it.

#include "driver/targets.hpp"

namespace tack::runtime {

class Backend;

/// `backend`'s answers; the texture choice asks Backend::texture_in_hardware, so `backend`
/// must outlive the result.
driver::Capabilities capabilities_of(const Backend& backend);

/// The driver's texture choice for variants built on `backend`; `backend` must outlive it.
passes::TextureInHardware textures_of(const Backend& backend);

}  // namespace tack::runtime
