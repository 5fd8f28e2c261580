#pragma once
// Where a pointer handed to a GPU backend lives (CONTRACT C21) and the rule for wrapping one:
// a CUDA, HIP or Level Zero kernel cannot read pageable host memory (on CUDA without HMM it is an
// illegal-address error that ruins the context), so field_from_ptr and DLPack imports take
// device, pinned or managed memory only, and refuse a host address before any launch sees it.

#include <cstddef>

#include "runtime/backend.hpp"

namespace tack::runtime::gpu {

/// RuntimeError naming the backend and the address when `backend.memory_space(ptr)` is "cpu"
/// (an empty range addresses nothing and passes).
void require_device_pointer(const Backend& backend, const void* ptr, std::size_t nbytes);

}  // namespace tack::runtime::gpu
