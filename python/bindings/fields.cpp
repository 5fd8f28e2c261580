// tack.Field: creation, host transfers, views, fills, conversions, element reads and host
// reductions, all delegated to tack::Array (CONTRACT C6-C18).
#include <algorithm>
#include <cstring>
#include <new>

#include <nanobind/stl/optional.h>

#include "bindings.hpp"
#include "runtime/backend.hpp"

namespace tack::python {

namespace {

using Extents = std::vector<int64_t>;

nb::tuple to_tuple(const Extents& e) {
    nb::list l;
    for (int64_t x : e)
        l.append(x);
    return nb::tuple(l);
}

std::string shape_text(const Extents& e) {
    return nb::cast<std::string>(nb::repr(to_tuple(e)));
}

// Element count of non-negative extents; ValueError naming the shape when it overflows
// (issue 12: a wrapped product gave fields of size 0 that kernels then wrote past).
int64_t product(const Extents& e) {
    int64_t n = 1;
    if (std::find(e.begin(), e.end(), int64_t{0}) != e.end()) return 0;
    for (int64_t x : e) {
        if (__builtin_mul_overflow(n, x, &n))
            raise_python(PyExc_ValueError,
                         "Field shape " + shape_text(e) +
                             " is too large: its element count exceeds 2**63 - 1");
    }
    return n;
}

// A Python int as an extent; one past int64 is "too large", not a C++ cast failure.
int64_t extent_arg(nb::handle item) {
    nb::object v = nb::steal(PyNumber_Index(item.ptr()));
    if (!v.is_valid()) throw nb::python_error();
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow > 0)
        raise_python(PyExc_ValueError,
                     "Field extent " + nb::cast<std::string>(nb::repr(v)) + " is too large");
    if (overflow < 0 || x < 0)
        raise_python(PyExc_ValueError, "negative dimensions are not allowed");
    if (x == -1 && PyErr_Occurred()) throw nb::python_error();
    return x;
}

// An int or a sequence of ints (NumPy integers included); negative extents are refused here
// because the storage shape would hide them.
Extents shape_arg(nb::handle h) {
    Extents out;
    if (PyIndex_Check(h.ptr())) {
        out.push_back(extent_arg(h));
    } else {
        for (nb::handle item : nb::iter(h))
            out.push_back(extent_arg(item));
    }
    if (out.size() > static_cast<size_t>(Shape::kMaxRank))
        raise_python(PyExc_ValueError,
                     "Field shapes have at most 4 dimensions, got " + std::to_string(out.size()));
    (void)product(out);
    return out;
}

Shape storage_shape(const Extents& host) {
    if (host.empty()) return Shape(int64_t{1});
    return Shape(std::span<const int64_t>(host));
}

// Host shape of a field whose elements are `elem_dims`-shaped: flat storage (CONTRACT C11).
Extents host_shape(const Extents& elements, const Extents& elem_dims) {
    if (elem_dims.empty()) return elements;
    Extents all = elements;
    all.insert(all.end(), elem_dims.begin(), elem_dims.end());
    return Extents{product(all)};
}

// The shape of a vector or matrix field with its element shape: what to_numpy(vectors=True)
// returns and from_numpy() also takes.
Extents elementwise_shape(const Field& f) {
    const Shape& s = f.array.shape();
    return Extents(s.begin(), s.end());
}

Field new_field(DType dtype, const Extents& elements, const Extents& elem_dims, bool exportable) {
    Field f;
    f.shape = host_shape(elements, elem_dims);
    try {
        Array storage = exportable ? tack::exportable_zeros(dtype, storage_shape(f.shape))
                                   : tack::zeros(dtype, storage_shape(f.shape));
        f.array = elem_dims.empty() ? storage : storage.with_elements(elements, elem_dims);
    } catch (const std::bad_alloc&) {
        int64_t bytes = 0;
        (void)__builtin_mul_overflow(product(f.shape), int64_t{size_bytes(dtype)}, &bytes);
        raise_python(PyExc_MemoryError, "Cannot allocate a field of shape " + shape_text(elements) +
                                            " and dtype tack." + name(dtype) + ": " +
                                            std::to_string(bytes) + " bytes");
    }
    note_device_used();
    return f;
}

nb::object create(nb::handle dtype, nb::handle shape, nb::handle elem_dims, bool exportable) {
    return make_field(new_field(dtype_arg(dtype), shape_arg(shape),
                                elem_dims.is_none() ? Extents{} : shape_arg(elem_dims),
                                exportable));
}

size_t storage_offset(const Array& a) {
    return static_cast<size_t>(a.address() - a.buffer()->address());
}

// A contiguous buffer of a NumPy array (PEP 3118), released on scope exit.
class BufferView {
  public:
    BufferView(nb::handle obj, bool writable) {
        int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(obj.ptr(), &view_, flags) != 0) throw nb::python_error();
    }
    ~BufferView() { PyBuffer_Release(&view_); }
    void* data() const { return view_.buf; }
    size_t size() const { return static_cast<size_t>(view_.len); }

  private:
    Py_buffer view_{};
};

void require_ndarray(nb::handle arr) {
    if (!nb::isinstance(arr, numpy().attr("ndarray"))) {
        std::string t = nb::cast<std::string>(arr.type().attr("__name__"));
        raise_python(PyExc_AttributeError, "'" + t + "' object has no attribute 'shape'");
    }
}

void from_numpy(Field& f, nb::handle arr) {
    require_ndarray(arr);
    if (!f.array.writable()) raise_python(PyExc_RuntimeError, "Cannot write to a read-only field");
    Extents got = nb::cast<Extents>(arr.attr("shape"));
    if (got != f.shape && (!f.array.elem_rank() || got != elementwise_shape(f))) {
        raise_python(PyExc_ValueError, "Shape mismatch: field is " + shape_text(f.shape) +
                                           ", got " + shape_text(got));
    }
    nb::object contiguous =
        numpy().attr("ascontiguousarray")(arr, nb::arg("dtype") = numpy_name(f.array.dtype()));
    BufferView view(contiguous, false);
    nb::gil_scoped_release release;  // `contiguous` stays referenced by this frame
    f.array.buffer()->write_in_order(storage_offset(f.array), view.data(), f.array.nbytes());
}

nb::object read_into_numpy(const Field& f, const Extents& shape) {
    nb::object out = numpy().attr("empty")(to_tuple(shape), numpy_name(f.array.dtype()));
    {
        BufferView view(out, true);
        nb::gil_scoped_release release;
        f.array.buffer()->read_in_order(storage_offset(f.array), view.data(), f.array.nbytes());
    }
    return out;
}

nb::object to_numpy(const Field& f, bool vectors) {
    if (vectors && f.array.elem_rank()) return read_into_numpy(f, elementwise_shape(f));
    return read_into_numpy(f, f.shape);
}

// A value with components (a list, a tuple, a NumPy array of rank >= 1), not a number.
bool has_components(nb::handle value) {
    PyObject* v = value.ptr();
    if (PyUnicode_Check(v) || PyBytes_Check(v)) return false;
    if (nb::hasattr(value, "ndim")) return nb::cast<int64_t>(value.attr("ndim")) > 0;
    return PySequence_Check(v) != 0;
}

std::string python_type(nb::handle value) {
    return nb::cast<std::string>(value.type().attr("__name__"));
}

// A number sets every component; an element's value (a vector or matrix field) sets every
// element (CONTRACT C11).
void fill(Field& f, nb::handle value) {
    if (detail::Arg p; graph_param_arg(value, p)) {  // a graph parameter while capturing
        f.array.fill(GraphParam{p.param, p.scalar});
        return;
    }
    if (!has_components(value)) {
        Scalar s;
        if (!scalar_from_python(value, s, "fill() value"))
            raise_python(PyExc_TypeError, "fill() takes a number, got " + python_type(value));
        f.array.fill_scalar(s);
        return;
    }
    if (!f.array.elem_rank()) {
        raise_python(PyExc_TypeError,
                     "fill() takes a scalar for a field of scalars, got " + python_type(value));
    }
    nb::object element = numpy().attr("asarray")(value, numpy_name(f.array.dtype()));
    Extents got = nb::cast<Extents>(element.attr("shape"));
    if (got != f.elem_dims()) {
        raise_python(PyExc_ValueError, "fill() got a value of shape " + shape_text(got) +
                                           "; the elements of this field have shape " +
                                           shape_text(f.elem_dims()));
    }
    from_numpy(f, numpy().attr("broadcast_to")(element, to_tuple(elementwise_shape(f))));
}

nb::object reshape(const Field& f, nb::handle shape) {
    Extents want = shape_arg(shape);
    if (product(want) != product(f.shape)) {
        raise_python(PyExc_ValueError, "Cannot reshape a field of size " +
                                           std::to_string(product(f.shape)) + " into shape " +
                                           shape_text(want));
    }
    Field view = f;
    view.shape = want;
    view.array = f.array.reshape(storage_shape(want));
    return make_field(std::move(view));
}

nb::object converted(const Field& f, DType dtype) {
    Field out = f;
    out.owner = nb::object();
    {
        nb::gil_scoped_release release;
        out.array = f.array.astype(dtype);
    }
    note_device_used();
    return make_field(std::move(out));
}

// One integer index per element dimension, or f[None] for a 0-d field; negatives count from
// the end (CONTRACT C12).
[[noreturn]] void bad_index(const Field& f) {
    Extents elements = f.elements();
    size_t rank = elements.size();
    if (rank == 0) {
        raise_python(PyExc_TypeError,
                     "A zero-dimensional field is read with f[None] (or f[()]); it takes no "
                     "integer indices");
    }
    raise_python(PyExc_TypeError, "A field of shape " + shape_text(elements) + " takes " +
                                      std::to_string(rank) + " integer " +
                                      (rank == 1 ? "index" : "indices") +
                                      " (slices are not supported: use to_numpy() or reshape())");
}

// An integer index along axis `d`; one beyond int64 is out of bounds (IndexError), never a C++
// cast failure (issue 12: f[2**70] raised "RuntimeError: std::bad_cast").
bool index_value(const Field& f, nb::handle h, size_t d, int64_t& out) {
    if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr())) return false;
    nb::object v = nb::steal(PyNumber_Index(h.ptr()));
    if (!v.is_valid()) throw nb::python_error();
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (x == -1 && PyErr_Occurred()) throw nb::python_error();
    if (overflow != 0) {
        Extents elements = f.elements();
        std::string size = d < elements.size() ? std::to_string(elements[d]) : "?";
        raise_python(PyExc_IndexError, "index " + nb::cast<std::string>(nb::str(v)) +
                                           " is out of bounds for axis " + std::to_string(d) +
                                           " with size " + size);
    }
    out = x;
    return true;
}

int64_t flat_element(const Field& f, nb::handle index) {
    Extents elements = f.elements();
    Extents idx;
    if (index.is_none()) {
        if (!elements.empty()) {
            raise_python(PyExc_TypeError,
                         "f[None] reads a zero-dimensional field; this field has shape " +
                             shape_text(elements) + " and takes " +
                             std::to_string(elements.size()) + " integer indices");
        }
    } else if (PyTuple_Check(index.ptr())) {
        size_t d = 0;
        for (nb::handle i : nb::borrow<nb::tuple>(index)) {
            int64_t k;
            if (!index_value(f, i, d++, k)) bad_index(f);
            idx.push_back(k);
        }
    } else {
        int64_t k;
        if (!index_value(f, index, 0, k)) bad_index(f);
        idx.push_back(k);
    }
    if (idx.size() != elements.size()) bad_index(f);
    int64_t flat = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
        int64_t extent = elements[d];
        int64_t k = idx[d] < 0 ? idx[d] + extent : idx[d];
        if (k < 0 || k >= extent) {
            raise_python(PyExc_IndexError, "index " + std::to_string(idx[d]) +
                                               " is out of range for axis " + std::to_string(d) +
                                               " with size " + std::to_string(extent));
        }
        flat = flat * extent + k;
    }
    return flat;
}

nb::object getitem(const Field& f, nb::handle index) {
    int64_t flat = flat_element(f, index);
    if (!f.array.elem_rank()) {
        int64_t storage_index = flat;
        return scalar_to_python(f.array.reshape(Shape(f.array.size())).at({storage_index}));
    }
    Extents elem_dims = f.elem_dims();
    int64_t n = product(elem_dims);
    nb::object out = numpy().attr("empty")(to_tuple(elem_dims), numpy_name(f.array.dtype()));
    BufferView view(out, true);
    size_t elem = static_cast<size_t>(size_bytes(f.array.dtype()));
    f.array.buffer()->read_in_order(storage_offset(f.array) + static_cast<size_t>(flat * n) * elem,
                                    view.data(), static_cast<size_t>(n) * elem);
    return out;
}

template <double (Array::*Reduce)() const>
double reduce(const Field& f) {
    nb::gil_scoped_release release;
    return (f.array.*Reduce)();
}

nb::object field_from_ptr(uint64_t address, nb::handle dtype, nb::handle shape, bool writable,
                          nb::object owner) {
    Field f;
    f.shape = shape_arg(shape);
    f.array = Array::from_ptr(reinterpret_cast<void*>(static_cast<uintptr_t>(address)),
                              dtype_arg(dtype), storage_shape(f.shape), writable);
    f.owner = std::move(owner);
    note_device_used();
    return make_field(std::move(f));
}

nb::object concat(nb::handle fields) {
    std::vector<const Field*> parts;
    for (nb::handle h : nb::iter(fields)) {
        const Field* f = field_ptr(h);
        if (!f) raise_python(PyExc_TypeError, "concat() takes a sequence of tack fields");
        parts.push_back(f);
    }
    if (parts.empty()) raise_python(PyExc_ValueError, "concat() needs at least one field");
    DType dtype = parts.front()->array.dtype();
    int64_t total = 0;
    for (const Field* f : parts) {
        if (f->array.dtype() != dtype)
            raise_python(PyExc_TypeError, "concat() needs fields of the same dtype, got tack." +
                                              std::string(name(dtype)) + " and tack." +
                                              name(f->array.dtype()));
        total += f->array.size();
    }
    Field out = new_field(dtype, Extents{total}, {}, false);
    size_t at = 0;
    std::vector<unsigned char> tmp;
    for (const Field* f : parts) {
        tmp.resize(f->array.nbytes());
        f->array.buffer()->read_in_order(storage_offset(f->array), tmp.data(), tmp.size());
        out.array.buffer()->write(at, tmp.data(), tmp.size());
        at += tmp.size();
    }
    return make_field(std::move(out));
}

// NumPy 2's __array__: the result is always a copy, so copy=False (NumPy's "never copy")
// is refused as NumPy's protocol asks.
nb::object array_protocol(const Field& f, nb::handle dtype, nb::handle copy) {
    if (copy.ptr() == Py_False) {
        raise_python(PyExc_ValueError,
                     "a tack field converts to a NumPy array by copying; use "
                     "np.from_dlpack(field) for a view of its memory");
    }
    nb::object a = to_numpy(f, false);
    if (!dtype.is_none()) a = a.attr("astype")(dtype);
    return a;
}

std::string field_repr(const Field& f) {
    std::string kind = f.array.elem_rank() ? ", elements=" + shape_text(f.elem_dims()) : "";
    return "tack.Field(shape=" + shape_text(f.shape) + ", dtype=tack." + name(f.array.dtype()) +
           kind + (f.array.writable() ? "" : ", read-only") + ")";
}

}  // namespace

nb::object make_field(Field f) {
    return nb::cast(std::move(f));
}

namespace {
PyObject* texture_type = nullptr;  // tack.texture3d's class, registered by tack/_textures.py
}

Field* texture_storage(nb::handle h, nb::object& keep) {
    if (!texture_type || Py_TYPE(h.ptr()) != reinterpret_cast<PyTypeObject*>(texture_type))
        return nullptr;
    keep = h.attr("_storage");
    return field_ptr(keep);
}

Field* field_ptr(nb::handle h) {
    static PyTypeObject* type = nullptr;
    if (!type) type = reinterpret_cast<PyTypeObject*>(nb::type<Field>().ptr());
    PyObject* o = h.ptr();
    if (Py_TYPE(o) == type) return nb::inst_ptr<Field>(h);
    // Plain numbers are most other arguments; nanobind's isinstance looks the type up.
    if (PyFloat_CheckExact(o) || PyLong_CheckExact(o) || PyBool_Check(o)) return nullptr;
    if (!nb::isinstance<Field>(h)) return nullptr;
    return nb::inst_ptr<Field>(h);
}

nb::object storage_to_numpy(const Field& f) {
    return read_into_numpy(f, f.shape);
}

// tack.texture3d's snapshot (CONTRACT A39): a private f32 copy of `source`, shape (D, H, W).
nb::object texture_storage_of(const Field& source, int64_t w, int64_t h, int64_t d) {
    if (source.array.dtype() != DType::f32) {
        raise_python(PyExc_ValueError, std::string("tack.texture3d needs an f32 field, got tack.") +
                                           name(source.array.dtype()));
    }
    if (w < 1 || h < 1 || d < 1 || w * h * d != source.array.size()) {
        raise_python(PyExc_ValueError, "tack.texture3d shape (" + std::to_string(w) + ", " +
                                           std::to_string(h) + ", " + std::to_string(d) +
                                           ") covers " + std::to_string(w * h * d) +
                                           " elements; the field has " +
                                           std::to_string(source.array.size()) + " elements");
    }
    Field t;
    {
        nb::gil_scoped_release release;
        t.array = source.array.reshape(Shape{d, h, w}).texture_snapshot();
    }
    t.shape = Extents{d, h, w};
    return make_field(std::move(t));
}

void init_fields(nb::module_& m) {
    m.def("_texture_storage", &texture_storage_of);
    m.def("_register_texture_type", [](nb::handle cls) {
        Py_XINCREF(cls.ptr());
        texture_type = cls.ptr();
    });
    nb::class_<Field>(m, "Field", nb::is_weak_referenceable(),
                      "A typed n-dimensional array on a device (tack.field, tack.zeros, ...).")
        .def_prop_ro(
            "shape", [](const Field& f) { return to_tuple(f.shape); },
            "The extents, outermost first (a vector or matrix field: its host shape).")
        .def_prop_ro(
            "dtype", [](const Field& f) { return dtype_object(f.array.dtype()); },
            "The element type (tack.f32, tack.i32, ...).")
        .def_prop_ro(
            "size", [](const Field& f) { return product(f.shape); }, "The number of elements.")
        .def_prop_ro(
            "ndim", [](const Field& f) { return f.shape.size(); }, "The number of dimensions.")
        .def_prop_ro(
            "nbytes", [](const Field& f) { return f.array.nbytes(); }, "The size in bytes.")
        .def_prop_ro(
            "itemsize", [](const Field& f) { return size_bytes(f.array.dtype()); },
            "Bytes per scalar element.")
        .def_prop_ro(
            "writable", [](const Field& f) { return f.array.writable(); },
            "False for read-only memory (field_from_ptr without writable, a read-only DLPack "
            "import): kernels that store to it are refused.")
        .def_prop_ro(
            "device", [](const Field& f) { return f.array.device(); },
            "The device whose memory holds the field.")
        .def_prop_ro(
            "address", [](const Field& f) { return f.array.address(); },
            "The memory's address (host or device pointer; 0 where the backend has none to give).")
        .def_prop_ro(
            "element_shape", [](const Field& f) { return to_tuple(f.elem_dims()); },
            "(n,) for a vector field, (n, m) for a matrix field, () for scalars.")
        .def_prop_ro(
            "vector_n",
            [](const Field& f) { return f.array.elem_rank() == 1 ? f.elem_dims()[0] : int64_t{0}; },
            "The components of a vector field's elements; 0 for other fields.")
        .def(
            "__len__", [](const Field& f) { return f.shape.empty() ? 0 : f.shape[0]; },
            "The outermost extent.")
        .def("from_numpy", &from_numpy, nb::arg("arr"),
             "Copies `arr` (the field's shape; converted to its dtype) into the field.")
        .def("to_numpy", &to_numpy, nb::arg("vectors") = false,
             "A NumPy copy of the contents, once the launches queued before it ran. `vectors`: "
             "a vector field's components as a last axis.")
        .def(
            "numpy", [](const Field& f) { return to_numpy(f, false); }, "The same as to_numpy().")
        .def("fill", &fill, nb::arg("value"),
             "Sets every element to `value` (a number, or a graph parameter while capturing); "
             "queued like a launch.")
        .def(
            "synchronize",
            [](const Field& f) {
                nb::gil_scoped_release unlocked;  // other threads keep launching meanwhile
                f.array.synchronize();
            },
            "Waits for the launches, fills and copies queued on this field's device.")
        .def("reshape", &reshape, nb::arg("shape"),
             "The same elements in another shape of the same size, sharing the memory.")
        .def(
            "copy", [](const Field& f) { return converted(f, f.array.dtype()); },
            "A new field on the same device holding a copy.")
        .def(
            "astype", [](const Field& f, nb::handle dt) { return converted(f, dtype_arg(dt)); },
            nb::arg("dtype"), "A new field of `dtype` holding the elements converted.")
        .def("__getitem__", &getitem, nb::arg("index").none(),
             "On the host, one element's value (it waits for queued launches); in kernels, a "
             "load.")
        .def("__setitem__",
             [](Field&, nb::object, nb::object) {
                 raise_python(PyExc_TypeError,
                              "Fields are not written by element from the host; use from_numpy(), "
                              "fill() or a kernel");
             })
        .def("__iter__",
             [](const Field&) {
                 raise_python(PyExc_TypeError,
                              "Fields are not iterated on the host; use to_numpy() to read their "
                              "values");
             })
        .def("sum", &reduce<&Array::sum>, "The sum of the elements (on the device where it can).")
        .def("min", &reduce<&Array::min>, "The smallest element.")
        .def("max", &reduce<&Array::max>, "The largest element.")
        .def("mean", &reduce<&Array::mean>, "The mean of the elements.")
        .def("__array__", &array_protocol, nb::arg("dtype").none() = nb::none(),
             nb::arg("copy").none() = nb::none(), "NumPy's array protocol: np.asarray(field).")
        .def(
            "__dlpack__",
            [](const Field& f, nb::handle stream, nb::handle max_version, nb::handle dl_device,
               nb::handle copy) { return dlpack_export(f, max_version, copy); },
            nb::kw_only(), nb::arg("stream").none() = nb::none(),
            nb::arg("max_version").none() = nb::none(), nb::arg("dl_device").none() = nb::none(),
            nb::arg("copy").none() = nb::none(),
            "A DLPack capsule of the field's memory (the consumer shares it, no copy).")
        .def(
            "__dlpack_device__",
            [](const Field& f) {
                if (f.array.host_data()) return nb::make_tuple(1, 0);  // kDLCPU
                auto [type, id] = f.array.buffer()->backend().dlpack_device();
                return nb::make_tuple(type, id);
            },
            "(DLPack device type, device id) of the field's memory.")
        .def(
            "export_memory",
            [](const Field& f) {  // CONTRACT C24: Metal and CUDA export memory
                runtime::Backend& b = f.array.buffer()->backend();
                std::optional<runtime::ExportedMemory> e = b.export_memory(*f.array.buffer());
                if (!e)
                    raise_python(PyExc_RuntimeError, "Backend " + std::string(b.display_name()) +
                                                         "Backend does not support memory export");
                // The importer reads the array's own memory with no Tack call in between:
                // every later launch that binds it completes before returning.
                if (e->live) f.array.buffer()->share();
                return *e;
            },
            "The field's memory as an OS handle another API imports (CUDA, Metal).")
        .def("__repr__", &field_repr);

    m.def("_field", &create, nb::arg("dtype"), nb::arg("shape"), nb::arg("elem_dims").none(),
          nb::arg("exportable") = false);
    m.def("_arange", [](int64_t n, nb::handle dtype) {
        Field f;
        try {
            f.array = tack::arange(n, dtype_arg(dtype));
        } catch (const std::bad_alloc&) {
            raise_python(PyExc_MemoryError, "Cannot allocate arange(" + std::to_string(n) + ")");
        }
        f.shape = Extents{n};
        note_device_used();
        return make_field(std::move(f));
    });
    nb::class_<runtime::ExportedMemory>(m, "ExportedMemory",
                                        "What Field.export_memory hands another API.")
        .def_ro("backend", &runtime::ExportedMemory::backend, "The exporting backend's name.")
        .def_ro("size", &runtime::ExportedMemory::size, "The field's bytes.")
        .def_ro("allocation_size", &runtime::ExportedMemory::allocation_size,
                "The bytes of the allocation the handle names (at least size).")
        .def_ro("handle", &runtime::ExportedMemory::handle,
                "The OS handle (a file descriptor, or an MTLBuffer's id on Metal).")
        .def_ro("handle_type", &runtime::ExportedMemory::handle_type,
                "What the handle is: \"posix_fd\" (CUDA) or \"mtl_buffer\" (Metal).")
        .def_prop_ro(
            "device_uuid",  // None where the backend names no device (Metal)
            [](const runtime::ExportedMemory& e) -> std::optional<std::string> {
                if (e.device_uuid.empty()) return std::nullopt;
                return e.device_uuid;
            },
            "The exporting device's UUID, or None where the backend names none.")
        .def_ro("live", &runtime::ExportedMemory::live,
                "True when the handle is the field's own memory, which sees later kernel writes; "
                "False for a snapshot copy.");
    m.def("_memory_space",
          [](uint64_t address) { return default_device().backend()->memory_space(address); });
    m.def("_field_from_ptr", &field_from_ptr, nb::arg("address"), nb::arg("dtype"),
          nb::arg("shape"), nb::arg("writable"), nb::arg("owner").none());
    m.def("_concat", &concat);
    m.def("_dtype_from_numpy", [](nb::handle np_dtype) -> nb::object {
        auto t = dtype_from_numpy(np_dtype);
        return t ? nb::borrow(dtype_object(*t)) : nb::none();
    });
}

}  // namespace tack::python
