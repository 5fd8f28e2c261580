// DLPack export (Field.__dlpack__, __dlpack_device__) and zero-copy import
// (tack.from_dlpack), CONTRACT C22-C23. Both directions share memory on the CPU; an exported
// tensor pins the field's storage until the consumer's deleter runs, and an imported field
// holds the producer's tensor until the field and all its views are gone.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bindings.hpp"
#include "runtime/backend.hpp"

namespace tack::python {

namespace {

// The DLPack 1.0 ABI (dlpack.h), declared here to keep the build free of the header.
struct DLPackVersion {
    uint32_t major, minor;
};
struct DLDevice {
    int32_t device_type, device_id;
};
struct DLDataType {
    uint8_t code, bits;
    uint16_t lanes;
};
struct DLTensor {
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides;
    uint64_t byte_offset;
};
struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor*);
};
struct DLManagedTensorVersioned {
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(DLManagedTensorVersioned*);
    uint64_t flags;
    DLTensor dl_tensor;
};

constexpr uint64_t kReadOnlyFlag = 1;
enum DeviceType : int32_t {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
};
enum TypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2 };

const char* const kVersioned = "dltensor_versioned";
const char* const kLegacy = "dltensor";

// --- export ---------------------------------------------------------------------------------

// Owns what the exported tensor points at: the storage (through the Array) and, for wrapped
// memory, the Python owner.
struct ExportContext {
    Array array;
    nb::object owner;
    std::vector<int64_t> shape, strides;
    DLManagedTensor legacy{};
    DLManagedTensorVersioned versioned{};
};

// Consumers may call the deleter from any thread, with or without the GIL.
void release_context(ExportContext* ctx) {
    if (!ctx) return;
    if (ctx->owner.is_valid() && Py_IsInitialized()) {
        PyGILState_STATE g = PyGILState_Ensure();
        ctx->owner.reset();
        delete ctx;
        PyGILState_Release(g);
        return;
    }
    if (ctx->owner.is_valid()) (void)ctx->owner.release();  // interpreter gone: leak it
    delete ctx;
}

void delete_legacy(DLManagedTensor* t) {
    release_context(static_cast<ExportContext*>(t->manager_ctx));
}
void delete_versioned(DLManagedTensorVersioned* t) {
    release_context(static_cast<ExportContext*>(t->manager_ctx));
}

// A capsule nobody consumed still owns its tensor.
void capsule_destructor(PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, kVersioned)) {
        auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersioned));
        if (t && t->deleter) t->deleter(t);
    } else if (PyCapsule_IsValid(capsule, kLegacy)) {
        auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacy));
        if (t && t->deleter) t->deleter(t);
    }
}

DLDataType dl_dtype(DType t) {
    uint8_t code = is_float(t) ? kDLFloat : (is_signed(t) ? kDLInt : kDLUInt);
    return {code, static_cast<uint8_t>(bits(t)), 1};
}

DLTensor describe(ExportContext& ctx) {
    DLTensor t{};
    t.data = ctx.array.host_data();
    t.device = {kDLCPU, 0};
    if (!t.data) {  // device memory: the backend's device pointer (kDLCUDA, kDLROCM)
        auto [type, id] = ctx.array.buffer()->backend().dlpack_device();
        t.data = reinterpret_cast<void*>(static_cast<uintptr_t>(ctx.array.address()));
        t.device = {type, id};
    }
    t.ndim = static_cast<int32_t>(ctx.shape.size());
    t.dtype = dl_dtype(ctx.array.dtype());
    t.shape = ctx.shape.data();
    t.strides = ctx.strides.data();
    t.byte_offset = 0;
    return t;
}

}  // namespace

nb::object dlpack_export(const Field& f, nb::handle max_version, nb::handle copy) {
    if (copy.ptr() == Py_True)
        raise_python(PyExc_BufferError,
                     "tack fields export their memory without copying; "
                     "copy=True is not supported (call .copy() first)");
    if (!f.array.host_data() && f.array.buffer()->backend().dlpack_device().first == kDLCPU)
        raise_python(PyExc_BufferError,
                     "this field's memory is not host-visible and cannot be "
                     "exported through DLPack on this backend");
    // DECISIONS G9: memory leaves Tack here; later launches binding it complete at once.
    f.array.buffer()->share();
    auto* ctx = new ExportContext{f.array, f.owner, f.shape, {}, {}, {}};
    ctx->strides.resize(ctx->shape.size());
    int64_t stride = 1;
    for (size_t d = ctx->shape.size(); d-- > 0;) {
        ctx->strides[d] = stride;
        stride *= ctx->shape[d];
    }
    bool versioned = false;
    if (!max_version.is_none()) {
        nb::tuple v = nb::borrow<nb::tuple>(max_version);
        versioned = nb::cast<int>(v[0]) >= 1;
    }
    if (versioned) {
        DLManagedTensorVersioned& t = ctx->versioned;
        t.version = {1, 0};
        t.manager_ctx = ctx;
        t.deleter = &delete_versioned;
        t.flags = f.array.writable() ? 0 : kReadOnlyFlag;
        t.dl_tensor = describe(*ctx);
        return nb::steal(PyCapsule_New(&t, kVersioned, &capsule_destructor));
    }
    DLManagedTensor& t = ctx->legacy;
    t.manager_ctx = ctx;
    t.deleter = &delete_legacy;
    t.dl_tensor = describe(*ctx);
    return nb::steal(PyCapsule_New(&t, kLegacy, &capsule_destructor));
}

namespace {

// --- import ---------------------------------------------------------------------------------

// Keeps an imported tensor alive; its destructor runs the producer's deleter exactly once.
struct ImportedTensor {
    DLManagedTensor* legacy = nullptr;
    DLManagedTensorVersioned* versioned = nullptr;
    ImportedTensor() = default;
    ImportedTensor(const ImportedTensor&) = delete;
    ~ImportedTensor() {
        if (versioned && versioned->deleter) versioned->deleter(versioned);
        if (legacy && legacy->deleter) legacy->deleter(legacy);
    }
};

const char* device_name(int32_t type) {
    switch (type) {
        case kDLCPU:
            return "kDLCPU";
        case kDLCUDAHost:
            return "kDLCUDAHost";
        case kDLROCMHost:
            return "kDLROCMHost";
        case kDLCUDA:
            return "kDLCUDA";
        case kDLCUDAManaged:
            return "kDLCUDAManaged";
        case kDLROCM:
            return "kDLROCM";
        case kDLOneAPI:
            return "kDLOneAPI";
        case kDLOpenCL:
            return "kDLOpenCL";
        case kDLVulkan:
            return "kDLVulkan";
        default:
            return nullptr;
    }
}

void check_device(const DLDevice& device) {
    int32_t type = device.device_type;
    const auto& backend = *default_device().backend();
    std::vector<int> accepted = backend.dlpack_imports();
    if (std::find(accepted.begin(), accepted.end(), type) != accepted.end()) return;

    if (type == kDLMetal)
        raise_python(PyExc_ValueError,
                     "Metal DLPack tensors (kDLMetal) cannot be imported: Metal buffers are not "
                     "addressable by pointer; use tack.from_dlpack(x, copy=True)");
    const char* named = device_name(type);
    if (std::string_view note = backend.dlpack_refusal_note(); !note.empty())
        raise_python(PyExc_RuntimeError,
                     "The " + default_device().display_name() +
                         " backend cannot wrap DLPack memory on " +
                         (named ? std::string(named) : "device type " + std::to_string(type)) +
                         ": " + std::string(note));
    if (type == kDLCPU || type == kDLCUDAHost || type == kDLROCMHost)
        raise_python(PyExc_RuntimeError,
                     "The " + default_device().display_name() +
                         " backend wraps device memory only; this DLPack tensor is in host "
                         "memory: use tack.from_dlpack(x, copy=True) or the CPU backend");
    if (!named)
        raise_python(PyExc_ValueError,
                     "Unknown DLPack device type " + std::to_string(type) + "; cannot import");
    std::string label = default_device().display_name();
    raise_python(PyExc_RuntimeError, "The " + label + " backend cannot wrap DLPack memory on " +
                                         named + " (device " + std::to_string(device.device_id) +
                                         "); initialize the matching backend or use copy=True");
}

DType import_dtype(const DLDataType& t) {
    if (t.lanes != 1)
        raise_python(PyExc_TypeError, "DLPack tensors with lanes != 1 are not supported (got " +
                                          std::to_string(t.lanes) + ")");
    for (int i = 0; i < kNumDTypes; ++i) {
        DLDataType d = dl_dtype(static_cast<DType>(i));
        if (d.code == t.code && d.bits == t.bits) return static_cast<DType>(i);
    }
    raise_python(PyExc_TypeError, "Unsupported DLPack dtype (code " + std::to_string(t.code) +
                                      ", " + std::to_string(t.bits) + " bits)");
}

// A producer's shape is untrusted: rank within 0..4, extents non-negative, the element count
// representable (the strides check below multiplies extents).
void check_shape(const DLTensor& t) {
    if (t.ndim < 0 || t.ndim > Shape::kMaxRank)
        raise_python(PyExc_ValueError,
                     "tack fields have at most 4 dimensions, got " + std::to_string(t.ndim));
    if (t.ndim > 0 && !t.shape) raise_python(PyExc_ValueError, "DLPack tensor has no shape");
    int64_t n = 1;
    for (int d = 0; d < t.ndim; ++d) {
        if (t.shape[d] < 0)
            raise_python(PyExc_ValueError,
                         "DLPack tensor has a negative extent " + std::to_string(t.shape[d]));
    }
    if (std::find(t.shape, t.shape + t.ndim, int64_t{0}) != t.shape + t.ndim) return;
    for (int d = 0; d < t.ndim; ++d) {
        if (__builtin_mul_overflow(n, t.shape[d], &n))
            raise_python(PyExc_ValueError,
                         "DLPack tensor is too large: its element count exceeds 2**63 - 1");
    }
}

void check_contiguous(const DLTensor& t) {
    if (!t.strides) return;
    // An empty tensor addresses no element, so any strides describe it (NumPy exports 0).
    for (int d = 0; d < t.ndim; ++d) {
        if (t.shape[d] == 0) return;
    }
    int64_t expected = 1;
    for (int d = t.ndim; d-- > 0;) {
        if (t.shape[d] != 1 && t.strides[d] != expected)
            raise_python(PyExc_ValueError,
                         "only C-contiguous tensors can be wrapped without copying; make the "
                         "tensor contiguous or use tack.from_dlpack(x, copy=True)");
        expected *= t.shape[d];  // no overflow: check_shape bounded the product
    }
}

// A producer's byte_offset is untrusted too: the tensor's bytes must end below 2**63, where every
// address and span Tack computes stays representable (an offset of 2**63 was accepted, and the
// first host read crashed).
void check_extent(const DLTensor& t, DType dtype) {
    uint64_t bytes = size_bytes(dtype), end = 0;
    for (int d = 0; d < t.ndim; ++d)
        bytes *= static_cast<uint64_t>(t.shape[d]);  // no overflow: check_shape bounded it
    bool wraps = __builtin_add_overflow(reinterpret_cast<uintptr_t>(t.data), t.byte_offset, &end) ||
                 __builtin_add_overflow(end, bytes, &end);
    if (wraps || end > static_cast<uint64_t>(INT64_MAX))
        raise_python(PyExc_ValueError,
                     "DLPack tensor's byte_offset " + std::to_string(t.byte_offset) + " puts its " +
                         std::to_string(bytes) + " bytes past the end of the address space");
}

nb::object from_capsule(nb::handle capsule) {
    if (!PyCapsule_CheckExact(capsule.ptr()))
        raise_python(PyExc_TypeError,
                     "from_dlpack() takes a DLPack capsule or an object with "
                     "__dlpack__");
    const char* name = PyCapsule_GetName(capsule.ptr());
    std::string cap_name = name ? name : "";
    if (cap_name == "used_dltensor" || cap_name == "used_dltensor_versioned")
        raise_python(PyExc_ValueError, "this DLPack capsule was already consumed");
    bool versioned = cap_name == kVersioned;
    if (!versioned && cap_name != kLegacy)
        raise_python(PyExc_ValueError, "not a DLPack capsule (name '" + cap_name + "')");
    void* raw = PyCapsule_GetPointer(capsule.ptr(), name);
    if (!raw) throw nb::python_error();
    auto* mv = versioned ? static_cast<DLManagedTensorVersioned*>(raw) : nullptr;
    auto* ml = versioned ? nullptr : static_cast<DLManagedTensor*>(raw);
    const DLTensor& t = versioned ? mv->dl_tensor : ml->dl_tensor;
    if (versioned && mv->version.major > 1)
        raise_python(PyExc_ValueError,
                     "unsupported DLPack major version " + std::to_string(mv->version.major));
    // The layout first: what is wrong with the tensor itself is said on every backend.
    DType dtype = import_dtype(t.dtype);
    if (!t.data) raise_python(PyExc_ValueError, "DLPack tensor has a null data pointer");
    check_shape(t);
    check_contiguous(t);
    check_extent(t, dtype);
    bool empty = std::find(t.shape, t.shape + t.ndim, int64_t{0}) != t.shape + t.ndim;
    // An empty tensor addresses no memory, so where it lives does not matter: it becomes an
    // empty field of the current device.
    if (!empty) check_device(t.device);
    bool writable = !(versioned && (mv->flags & kReadOnlyFlag));

    Field f;
    f.shape.assign(t.shape, t.shape + t.ndim);
    Shape storage = f.shape.empty() ? Shape(int64_t{1}) : Shape(std::span<const int64_t>(f.shape));
    f.array = empty ? empty_array(dtype, storage)
                    : Array::from_ptr(static_cast<char*>(t.data) + t.byte_offset, dtype, storage,
                                      writable);
    // Consumed from here on: the field's owner runs the deleter.
    PyCapsule_SetName(capsule.ptr(), versioned ? "used_dltensor_versioned" : "used_dltensor");
    auto* owner = new ImportedTensor();
    owner->legacy = ml;
    owner->versioned = mv;
    f.owner = nb::cast(owner, nb::rv_policy::take_ownership);
    note_device_used();
    return make_field(std::move(f));
}

}  // namespace

void init_dlpack(nb::module_& m) {
    nb::class_<ImportedTensor>(m, "_ImportedTensor");
    m.def("_from_dlpack_capsule", &from_capsule);
}

}  // namespace tack::python
