// tack.i8 ... tack.f64: the ten dtype objects, and Python numbers as kernel scalars.
#include <array>
#include <climits>
#include <cstring>

#include "bindings.hpp"
#include "runtime/host_ops.hpp"

namespace tack::python {

namespace {

constexpr std::array<const char*, kNumDTypes> kNumpyNames = {
    "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64",
};

// Borrowed: the module's attributes own the objects, so they die with the module.
std::array<PyObject*, kNumDTypes> g_dtype_objects{};

[[noreturn]] void raise_type(const std::string& message) {
    raise_python(PyExc_TypeError, message);
}

// CONTRACT B2: the value decides, i32 -> i64 -> u64.
Scalar int_scalar(PyObject* o, const std::string& what) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    if (overflow == 0) {
        if (v >= INT32_MIN && v <= INT32_MAX) return {DType::i32, uint64_t(uint32_t(int32_t(v)))};
        return {DType::i64, static_cast<uint64_t>(v)};
    }
    if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(o);
        if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) return {DType::u64, u};
        PyErr_Clear();
    }
    raise_type(what + " is outside the 64-bit range [-2**63, 2**64-1]");
}

Scalar float_scalar(double d) {
    Scalar s{DType::f64, 0};
    std::memcpy(&s.bits, &d, 8);
    return s;
}

// NumPy scalars by their dtype kind, without importing NumPy.
bool numpy_scalar(nb::handle h, Scalar& out, const std::string& what) {
    if (known_numpy_scalar(h.ptr(), out)) return true;
    if (!nb::hasattr(h, "dtype") || !nb::hasattr(h, "item")) return false;
    // An array of one or more dimensions is not a scalar, whatever its size (float() of a
    // 1-element array works in NumPy but is deprecated; a larger one raises NumPy's own message,
    // which names neither the kernel nor the parameter).
    if (nb::hasattr(h, "ndim")) {
        nb::object ndim = h.attr("ndim");
        if (!nb::isinstance<nb::int_>(ndim) || nb::cast<long>(ndim) != 0) return false;
    }
    nb::object kind = h.attr("dtype").attr("kind");
    if (!nb::isinstance<nb::str>(kind)) return false;
    std::string k = nb::cast<std::string>(kind);
    if (k == "b") {
        out = {DType::i32, PyObject_IsTrue(h.ptr()) ? 1u : 0u};
        learn_numpy_scalar(h, out);
        return true;
    }
    if (k == "i" || k == "u") {
        nb::object v = nb::steal(PyNumber_Index(h.ptr()));
        if (!v.is_valid()) throw nb::python_error();
        out = int_scalar(v.ptr(), what);
        learn_numpy_scalar(h, out);
        return true;
    }
    if (k == "f") {
        double d = PyFloat_AsDouble(h.ptr());
        if (d == -1.0 && PyErr_Occurred()) throw nb::python_error();
        out = float_scalar(d);
        learn_numpy_scalar(h, out);
        return true;
    }
    return false;
}

nb::object dtype_call(const PyDType& self, nb::handle value) {
    Scalar s;
    if (!scalar_from_python(value, s, "tack." + std::string(name(self.dtype)) + "() argument"))
        raise_type("tack." + std::string(name(self.dtype)) + "() takes a number, got " +
                   nb::cast<std::string>(nb::str(value.type())));
    Scalar converted{self.dtype, runtime::convert_scalar(s, self.dtype)};
    return numpy().attr(kNumpyNames[static_cast<int>(self.dtype)])(scalar_to_python(converted));
}

}  // namespace

nb::module_& numpy() {
    static nb::module_* np = new nb::module_(nb::module_::import_("numpy"));
    return *np;
}

const char* numpy_name(DType t) {
    return kNumpyNames[static_cast<int>(t)];
}

nb::handle dtype_object(DType t) {
    return g_dtype_objects[static_cast<size_t>(t)];
}

DType dtype_arg(nb::handle h) {
    if (nb::isinstance<PyDType>(h)) return nb::cast<const PyDType&>(h).dtype;
    std::string type_name = nb::cast<std::string>(nb::str(h.type().attr("__name__")));
    raise_python(PyExc_AttributeError, "'" + type_name +
                                           "' object is not a Tack dtype (it has no attribute "
                                           "'tack_dtype'); use tack.f32, tack.i32, ...");
}

std::optional<DType> dtype_from_numpy(nb::handle np_dtype) {
    nb::object dt = numpy().attr("dtype")(np_dtype);
    std::string n = nb::cast<std::string>(dt.attr("name"));
    for (int i = 0; i < kNumDTypes; ++i) {
        if (n == kNumpyNames[static_cast<size_t>(i)]) return static_cast<DType>(i);
    }
    return std::nullopt;
}

bool scalar_from_python(nb::handle h, Scalar& out, const std::string& what) {
    PyObject* o = h.ptr();
    if (PyBool_Check(o)) {
        out = {DType::i32, o == Py_True ? 1u : 0u};
        return true;
    }
    if (PyLong_Check(o)) {
        out = int_scalar(o, what);
        return true;
    }
    if (PyFloat_Check(o)) {
        out = float_scalar(PyFloat_AS_DOUBLE(o));
        return true;
    }
    return numpy_scalar(h, out, what);
}

nb::object scalar_to_python(Scalar s) {
    if (s.dtype == DType::f32) {
        float f;
        auto b = static_cast<uint32_t>(s.bits);
        std::memcpy(&f, &b, 4);
        return nb::float_(static_cast<double>(f));
    }
    if (s.dtype == DType::f64) {
        double d;
        std::memcpy(&d, &s.bits, 8);
        return nb::float_(d);
    }
    int shift = 64 - bits(s.dtype);
    if (is_signed(s.dtype)) {
        auto v = static_cast<int64_t>(s.bits << shift) >> shift;
        return nb::steal(PyLong_FromLongLong(v));
    }
    return nb::steal(PyLong_FromUnsignedLongLong(s.bits));
}

void init_dtypes(nb::module_& m) {
    nb::class_<PyDType>(m, "DType", "A Tack scalar type (tack.f32, tack.i32, ...).")
        .def_prop_ro(
            "name", [](const PyDType& d) { return name(d.dtype); }, "Its name: f32, i32, ...")
        .def_prop_ro(
            "itemsize", [](const PyDType& d) { return size_bytes(d.dtype); }, "Bytes per value.")
        .def_prop_ro(
            "bits", [](const PyDType& d) { return bits(d.dtype); }, "Bits per value.")
        .def_prop_ro(
            "is_float", [](const PyDType& d) { return is_float(d.dtype); }, "True for f32 and f64.")
        .def_prop_ro(
            "is_signed", [](const PyDType& d) { return is_signed(d.dtype); },
            "True for the signed integers and the floats.")
        .def_prop_ro(
            "tack_dtype", [](nb::handle self) { return nb::borrow(self); },
            "The type itself (what the Python Tack's dtype wrappers answer).")
        .def_prop_ro(
            "numpy_dtype",
            [](const PyDType& d) { return numpy().attr("dtype")(numpy_name(d.dtype)); },
            "The NumPy dtype of the same values.")
        .def_prop_ro(
            "np", [](const PyDType& d) { return numpy().attr("dtype")(numpy_name(d.dtype)); },
            "The same as numpy_dtype.")
        .def("__call__", &dtype_call, nb::arg("value"),
             "The value converted to this type (in kernels, a cast; on the host, a Python "
             "number).")
        .def("__repr__", [](const PyDType& d) { return "tack." + std::string(name(d.dtype)); })
        .def("__str__", [](const PyDType& d) { return "tack." + std::string(name(d.dtype)); })
        .def("__hash__", [](const PyDType& d) { return static_cast<int>(d.dtype) + 0x7ac0; })
        .def("__eq__",
             [](const PyDType& a, nb::handle b) {
                 return nb::isinstance<PyDType>(b) && nb::cast<const PyDType&>(b).dtype == a.dtype;
             })
        .def("__reduce__", [](const PyDType& d) {
            return nb::make_tuple(nb::module_::import_("tack").attr("_dtype_by_name"),
                                  nb::make_tuple(name(d.dtype)));
        });
    for (int i = 0; i < kNumDTypes; ++i) {
        auto t = static_cast<DType>(i);
        nb::object o = nb::cast(PyDType{t});
        m.attr(name(t)) = o;
        g_dtype_objects[static_cast<size_t>(i)] = o.ptr();
    }
}

}  // namespace tack::python
