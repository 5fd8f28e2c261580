#pragma once
// Shared declarations of the nanobind extension `tack._tack`: one source file per bound area
// (dtypes, errors, devices, fields, dlpack, environment, kernels), each with an init_* function
// that module.cpp calls in order.
//
// The extension is thin: it converts Python values to the core's types and the core's errors
// to Python exceptions. Compilation, dispatch and host operations are the C++ core's.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diag/source.hpp"
#include "frontend/ast.hpp"
#include "sema/environment.hpp"
#include "tack/tack.hpp"

namespace nb = nanobind;

namespace tack::python {

// --- dtypes.cpp -------------------------------------------------------------------------------

/// The Python object of a Tack dtype (`tack.f32`): one singleton per DType.
struct PyDType {
    DType dtype;
};

void init_dtypes(nb::module_& m);
/// The singleton object for `t`.
nb::handle dtype_object(DType t);
/// A dtype argument: a tack dtype object, else AttributeError (CONTRACT C8).
DType dtype_arg(nb::handle h);
/// The NumPy spelling ("float32").
const char* numpy_name(DType t);
/// The Tack dtype of a NumPy dtype object or name; nullopt when it has none (float16, ...).
std::optional<DType> dtype_from_numpy(nb::handle np_dtype);
/// `numpy` (imported on first use so `import tack` stays cheap).
nb::module_& numpy();

/// A Python number as a Scalar: bool and int take i32/i64/u64 by value (CONTRACT B2, TypeError
/// outside [-2^63, 2^64-1]); floats are f64. `what` names the value in errors. Returns false
/// when `h` is not a number.
bool scalar_from_python(nb::handle h, Scalar& out, const std::string& what);
/// A Scalar as a Python int or float.
nb::object scalar_to_python(Scalar s);

// --- numpy_scalars.cpp ------------------------------------------------------------------------

/// A NumPy scalar of a type seen before, read without a Python call (CONTRACT B2's typing);
/// false for anything else.
bool known_numpy_scalar(PyObject* o, Scalar& out);
/// Remembers the type of `h`, a NumPy scalar the general path converted to `converted`, where it
/// is one of NumPy's own types and reading its value directly gives the same Scalar.
void learn_numpy_scalar(nb::handle h, const Scalar& converted);

// --- errors.cpp -------------------------------------------------------------------------------

void init_errors(nb::module_& m);
/// The Python exception class for an error kind (UnsupportedSyntaxError once registered).
PyObject* exception_type(ErrorKind kind);
/// "message\n  File "path", line L, column C\n    source\n    ^~~" for a positioned error.
std::string python_message(const CompileError& e);
/// Sets the Python error for any core exception and throws nb::python_error.
[[noreturn]] void raise_python(const Error& e);
[[noreturn]] void raise_python(PyObject* type, const std::string& message);
/// The Python exception instance for a core exception (not raised).
nb::object exception_object(const Error& e);
/// Raises `outer(message)` with __cause__ set to `cause` (CONTRACT C27).
[[noreturn]] void raise_chained(PyObject* outer, const std::string& message, nb::object cause);

// --- devices.cpp ------------------------------------------------------------------------------

void init_devices(nb::module_& m);
/// Marks that a device is in use (TACK_NO_REINIT asks whether a backend is active).
void note_device_used();

// --- fields.cpp -------------------------------------------------------------------------------

/// tack.Field: a tack::Array plus what Python sees of it.
struct Field {
    // What kernels receive, and the storage: a vector or matrix field's Array views its storage
    // as elements of the element shape (Array::elem_rank, CONTRACT A28), a texture's is its
    // image (A39). Rank >= 1: a 0-d field stores one element.
    Array array;
    std::vector<int64_t> shape;  // host shape: flat storage (CONTRACT C11), () for 0-d
    nb::object owner;            // keeps wrapped memory alive (NumPy array, DLPack tensor)

    /// The element shape of a vector (n,) or matrix (n, m) field; empty for scalar fields.
    std::vector<int64_t> elem_dims() const {
        const Shape& s = array.shape();
        return {s.end() - array.elem_rank(), s.end()};
    }
    /// The shape indices address: the host shape of a scalar field, the array's leading
    /// extents of a vector or matrix field.
    std::vector<int64_t> elements() const {
        if (!array.elem_rank()) return shape;
        const Shape& s = array.shape();
        return {s.begin(), s.end() - array.elem_rank()};
    }
};

void init_fields(nb::module_& m);
nb::object make_field(Field f);
/// The Field inside `h`, or nullptr when `h` is not a tack.Field.
Field* field_ptr(nb::handle h);
/// The private storage of a tack.texture3d object, or nullptr when `h` is not one. `keep`
/// receives the storage's reference: a call holds it until it returns, since another thread's
/// tex.update() replaces the storage (hardening round three, defect 1: the launch read a freed
/// buffer, and PoCL aborted).
Field* texture_storage(nb::handle h, nb::object& keep);
/// A contiguous host copy of the whole storage (NumPy array of the storage shape).
nb::object storage_to_numpy(const Field& f);

// --- dlpack.cpp -------------------------------------------------------------------------------

void init_dlpack(nb::module_& m);
/// Field.__dlpack__: a versioned capsule when max_version >= (1, 0), else a legacy one.
nb::object dlpack_export(const Field& f, nb::handle max_version, nb::handle copy);

// --- environment.cpp ----------------------------------------------------------------------------

/// One @tack.kernel or @tack.func parsed from its captured source, with the environment that
/// answers the core's questions about names by calling back into Python.
struct ParsedFunction {
    diag::SourceFilePtr file;
    std::shared_ptr<const frontend::Module> module;
    const frontend::FunctionDef* fn = nullptr;
    std::shared_ptr<sema::ModuleEnvironment> env;
};

/// Parses `source` (one dedented definition; `line_offset`/`col_offset` map it back to `path`).
/// `resolver(dotted_name)` answers name questions (see tack/_names.py for the protocol).
/// Syntax errors raise the Python exception of the diagnostic.
ParsedFunction parse_function(const std::string& source, const std::string& path, int line_offset,
                              int col_offset, nb::object resolver);

void init_environment(nb::module_& m);
/// The FuncRef of a @tack.func's parsed source object (Func._source), or nullopt.
std::optional<sema::FuncRef> func_ref_of(nb::handle source);

// --- templates.cpp ------------------------------------------------------------------------------

/// Whether `h` is an instance of a @tack.data_oriented class.
bool is_template_instance(nb::handle h);
/// Expands one template instance (CONTRACT A23): appends its fields and runtime scalars (and
/// those of nested instances) to `extras`, where extras[k] is kernel argument first_index + k,
/// and returns the interned id of its compile-time view. TypeError for one that holds itself.
int expand_template(nb::handle obj, size_t first_index, std::vector<detail::Arg>& extras,
                    const std::string& what);
/// `_forget_template_class` (D6) and `_iteration_space`.
void init_templates(nb::module_& m);

// --- kernels.cpp --------------------------------------------------------------------------------

void init_kernels(nb::module_& m);
/// graphs.cpp: tack.capture and tack.Graph.
void init_graphs(nb::module_& m);
/// A tack.GraphParam as a kernel argument (its value and index); false for anything else.
bool graph_param_arg(nb::handle h, detail::Arg& out);
/// algorithms.cpp: backend primitives of tack.algorithms (the native CPU scan).
void init_algorithms(nb::module_& m);
/// aio.cpp: queue marks for tack.sync_async and Field.numpy_async.
void init_aio(nb::module_& m);
/// profile.cpp: tack.profile and tack.Profile.
void init_profile(nb::module_& m);
/// tack._tack._tackc(args): the tackc command line, in process (python -m tack).
void init_cli(nb::module_& m);

}  // namespace tack::python
