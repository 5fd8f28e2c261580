// The one list of backends compiled into the library. Each backend defines its BackendEntry in
// its own folder; this list only names them. (Registration by static initializers would be
// dropped by the linker: an object file of a static archive that nothing references is never
// linked in.)
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/hip/hip_backend.hpp"
#include "runtime/level_zero/level_zero_backend.hpp"
#include "runtime/metal/metal_backend.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#include "runtime/registry.hpp"

namespace tack::runtime {

std::span<const BackendEntry* const> backend_entries() {
    static const BackendEntry* const kEntries[] = {
        &cpu::backend_entry(),
        &cuda::backend_entry(),  // driver API + NVRTC by dlopen; unavailable without a driver
        &hip::backend_entry(),   // libamdhip64 + hipRTC by dlopen; unavailable without ROCm
        &level_zero::backend_entry(),
        &metal::backend_entry(),  // libobjc + Metal by dlopen; unavailable off macOS
        &opencl::backend_entry(),
    };
    return kEntries;
}

}  // namespace tack::runtime
