// NumPy scalars (np.float32(0.01), a value read out of an array) as kernel arguments at the speed
// of Python numbers. The first scalar of each NumPy type takes the general path
// (scalar_from_python), which learns the type; later ones are read straight from the object.
// NumPy's C API fixes the layout of its scalars (numpy/arrayscalars.h: PyObject_HEAD, then the
// value in the dtype's native byte order), so reading it needs neither a Python call nor NumPy's
// headers. A type is learned only when the value read that way equals the general path's, so a
// NumPy whose layout differed would keep the general path instead of giving wrong values.
#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "bindings.hpp"

namespace tack::python {

namespace {

struct ScalarType {
    PyTypeObject* type;  // a reference is kept: the pointer is never reused for another type
    char kind;           // NumPy's dtype.kind: 'b', 'i', 'u' or 'f'
    std::uint8_t size;   // dtype.itemsize
};

// A process has at most a dozen NumPy scalar types; entries are published once, never changed.
constexpr std::size_t kMaxTypes = 16;
std::array<ScalarType, kMaxTypes> g_types{};
std::atomic<std::size_t> g_count{0};
std::mutex g_learn;

// CONTRACT B2's integer rule on a value already known to be in the 64-bit range.
Scalar signed_scalar(std::int64_t v) {
    if (v >= INT32_MIN && v <= INT32_MAX) return {DType::i32, uint64_t(uint32_t(int32_t(v)))};
    return {DType::i64, static_cast<uint64_t>(v)};
}
Scalar unsigned_scalar(std::uint64_t v) {
    if (v <= INT64_MAX) return signed_scalar(static_cast<std::int64_t>(v));
    return {DType::u64, v};
}

template <class T>
T value_of(PyObject* o) {
    T v;
    std::memcpy(&v, reinterpret_cast<const char*>(o) + sizeof(PyObject), sizeof(T));
    return v;
}

// The integer of `size` bytes stored in `o`, by CONTRACT B2's rule; false for another size.
template <class T8, class T16, class T32, class T64>
bool read_integer(std::uint8_t size, PyObject* o, Scalar& out) {
    auto typed = [](auto v) {
        if constexpr (std::is_signed_v<decltype(v)>)
            return signed_scalar(v);
        else
            return unsigned_scalar(v);
    };
    switch (size) {
        case 1:
            out = typed(value_of<T8>(o));
            return true;
        case 2:
            out = typed(value_of<T16>(o));
            return true;
        case 4:
            out = typed(value_of<T32>(o));
            return true;
        case 8:
            out = typed(value_of<T64>(o));
            return true;
        default:
            return false;
    }
}

// The scalar stored in `o`, a NumPy scalar of type `t`; false for a kind or size Tack does not
// read this way (float16, longdouble, complex: the general path decides).
bool read(const ScalarType& t, PyObject* o, Scalar& out) {
    switch (t.kind) {
        case 'b':
            out = {DType::i32, value_of<std::uint8_t>(o) != 0 ? 1u : 0u};
            return true;
        case 'i':
            return read_integer<std::int8_t, std::int16_t, std::int32_t, std::int64_t>(t.size, o,
                                                                                       out);
        case 'u':
            return read_integer<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>(t.size,
                                                                                           o, out);
        case 'f': {
            double d;
            if (t.size == 4) d = value_of<float>(o);
            if (t.size == 8) d = value_of<double>(o);
            if (t.size != 4 && t.size != 8) return false;
            out = {DType::f64, 0};
            std::memcpy(&out.bits, &d, 8);
            return true;
        }
        default:
            return false;
    }
}

bool same(const Scalar& a, const Scalar& b) {
    return a.dtype == b.dtype && a.bits == b.bits;
}

}  // namespace

bool known_numpy_scalar(PyObject* o, Scalar& out) {
    PyTypeObject* type = Py_TYPE(o);
    std::size_t n = g_count.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < n; ++i) {
        if (g_types[i].type == type) return read(g_types[i], o, out);
    }
    return false;
}

void learn_numpy_scalar(nb::handle h, const Scalar& converted) {
    PyTypeObject* type = Py_TYPE(h.ptr());
    // Only NumPy's own scalar types: a subclass may hold its value elsewhere, a 0-d array holds
    // a pointer to its data.
    nb::object dtype = nb::getattr(h, "dtype", nb::none());
    if (dtype.is_none() || nb::getattr(dtype, "type", nb::none()).ptr() != (PyObject*)type) return;
    nb::object kind = nb::getattr(dtype, "kind", nb::none());
    nb::object size = nb::getattr(dtype, "itemsize", nb::none());
    if (!nb::isinstance<nb::str>(kind) || !nb::isinstance<nb::int_>(size)) return;
    std::string k = nb::cast<std::string>(kind);
    long bytes = nb::cast<long>(size);
    if (k.size() != 1 || bytes <= 0 || bytes > 8) return;
    ScalarType t{type, k[0], static_cast<std::uint8_t>(bytes)};
    if (t.type->tp_basicsize < static_cast<Py_ssize_t>(sizeof(PyObject)) + bytes) return;
    Scalar read_back;
    if (!read(t, h.ptr(), read_back) || !same(read_back, converted)) return;
    std::lock_guard<std::mutex> lock(g_learn);
    std::size_t n = g_count.load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < n; ++i)
        if (g_types[i].type == type) return;
    if (n == kMaxTypes) return;
    Py_INCREF(reinterpret_cast<PyObject*>(type));
    g_types[n] = t;
    g_count.store(n + 1, std::memory_order_release);
}

}  // namespace tack::python
