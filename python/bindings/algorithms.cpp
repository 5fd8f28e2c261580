// Backend primitives of tack.algorithms (python/tack/algorithms): the package asks for them
// first and runs its Tack kernels where the backend answers None.
#include "bindings.hpp"
#include "runtime/backend.hpp"
#include "runtime/registry.hpp"

namespace tack::python {

namespace {

// Byte offset of the array's first element inside its buffer.
std::size_t offset_in_buffer(const Array& a) {
    return static_cast<std::size_t>(a.address() - a.buffer()->address());
}

/// _scan_array(src, dst, n, inclusive): dst[:n] = the scan of src[:n] by the backend's native
/// scan (CONTRACT C33), returning the total as a Python int or float; None when the backend
/// has none or the call is one it does not take (different dtypes or backends, a read-only or
/// texture output, partly overlapping ranges, n outside the fields), which the kernels then
/// run or reject with the usual errors.
nb::object scan_array(const Field& src, const Field& dst, int64_t n, bool inclusive) {
    const Array& s = src.array;
    const Array& d = dst.array;
    if (!s.valid() || !d.valid() || s.is_texture() || d.is_texture() || !d.writable())
        return nb::none();
    if (s.dtype() != d.dtype() || n <= 0 || n > s.size() || n > d.size()) return nb::none();
    runtime::Backend& backend = d.buffer()->backend();
    if (!backend.binds(*s.buffer()) || !backend.binds(*d.buffer())) return nb::none();
    const uint64_t bytes = static_cast<uint64_t>(n) * size_bytes(d.dtype());
    const bool same = s.address() == d.address() && s.same_storage(d);
    const bool overlap = s.address() < d.address() + bytes && d.address() < s.address() + bytes;
    if (overlap && !same) return nb::none();
    std::optional<Scalar> total;
    {
        nb::gil_scoped_release release;
        total = backend.scan_array(*s.buffer(), offset_in_buffer(s), *d.buffer(),
                                   offset_in_buffer(d), d.dtype(), n, inclusive);
    }
    return total ? scalar_to_python(*total) : nb::none();
}

}  // namespace

void init_algorithms(nb::module_& m) {
    m.def("_scan_array", &scan_array, nb::arg("src"), nb::arg("dst"), nb::arg("n"),
          nb::arg("inclusive"));
    // Threads host-side work on the default device spreads over (the CPU pool's size): the
    // benchmarks give their OpenMP baselines as many.
    m.def("_host_threads", [] { return runtime::default_backend_ptr()->host_threads(); });
}

}  // namespace tack::python
