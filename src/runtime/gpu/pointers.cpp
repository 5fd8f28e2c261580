#include "runtime/gpu/pointers.hpp"

#include <cstdint>
#include <cstdio>

#include "runtime/errors.hpp"

namespace tack::runtime::gpu {

void require_device_pointer(const Backend& backend, const void* ptr, std::size_t nbytes) {
    if (nbytes == 0) return;
    auto address = reinterpret_cast<std::uintptr_t>(ptr);
    if (backend.memory_space(address) != "cpu") return;
    char hex[32];
    std::snprintf(hex, sizeof hex, "%#llx", static_cast<unsigned long long>(address));
    throw RuntimeError("The " + std::string(backend.display_name()) +
                       " backend wraps device memory only: pointer " + hex +
                       " is host memory its kernels cannot read (tack.memory_space() says "
                       "'cpu'); copy the data in (tack.field_like) or use the CPU backend");
}

}  // namespace tack::runtime::gpu
