// tack.Device, tack.device(), tack.init() and tack.sync() over the core's device registry.
// Argument and error policy (TACK_NO_REINIT, unavailable backends) lives in tack/_devices.py;
// this file converts options and calls the C++ API.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <atomic>
#include <tuple>

#include "bindings.hpp"
#include "driver/targets.hpp"
#include "interrupts.hpp"
#include "runtime/backend.hpp"
#include "runtime/debug_mode.hpp"

namespace tack::python {

namespace {

std::atomic<bool> g_device_used{false};

// Python keyword options -> DeviceOptions; values keep their Python type (bool before int).
DeviceOptions to_options(const nb::dict& kwargs) {
    DeviceOptions options;
    for (auto [key, value] : kwargs) {
        std::string k = nb::cast<std::string>(key);
        PyObject* v = value.ptr();
        if (PyBool_Check(v)) {
            options.emplace(k, OptionValue(v == Py_True));
        } else if (PyLong_Check(v)) {
            options.emplace(k, OptionValue(nb::cast<int64_t>(value)));
        } else if (PyFloat_Check(v)) {
            options.emplace(k, OptionValue(nb::cast<double>(value)));
        } else if (PyUnicode_Check(v)) {
            options.emplace(k, OptionValue(nb::cast<std::string>(value)));
        } else {
            raise_python(PyExc_ValueError, "Option '" + k +
                                               "' takes a number, a bool or a string, got " +
                                               nb::cast<std::string>(nb::str(value.type())));
        }
    }
    return options;
}

nb::frozenset dtype_set(DTypeSet set) {
    nb::list items;
    for (int i = 0; i < kNumDTypes; ++i) {
        if (set.contains(static_cast<DType>(i))) items.append(dtype_object(static_cast<DType>(i)));
    }
    return nb::frozenset(items);
}

Device open(const std::string& name, const nb::dict& kwargs, bool fresh) {
    DeviceOptions options = to_options(kwargs);
    Device d = fresh ? tack::init(name, options) : tack::device(name, options);
    g_device_used = true;
    return d;
}

std::string backend_class(const Device& d) {
    return d.display_name() + "Backend";
}

// The backend's answers are "" where they do not apply; Python sees None there.
std::optional<std::string> none_if_empty(std::string_view text) {
    if (text.empty()) return std::nullopt;
    return std::string(text);
}

}  // namespace

void note_device_used() {
    g_device_used.store(true, std::memory_order_relaxed);
}

void init_devices(nb::module_& m) {
    nb::class_<Device>(m, "Device", nb::is_weak_referenceable(),
                       "A backend instance (tack.device('cpu')).")
        .def_prop_ro("name", &Device::name, "The architecture: \"cpu\", \"opencl\", \"cuda\", ...")
        .def_prop_ro("label", &Device::display_name,
                     "The backend's name in messages (\"CPU\", \"CUDA\", ...).")
        .def_prop_ro("display_name", &Device::display_name, "The same as label.")
        .def_prop_ro("backend_class", &backend_class,
                     "The backend's class name as the Python Tack spells it (\"CPUBackend\", ...).")
        .def_prop_ro(
            "supported_dtypes", [](const Device& d) { return dtype_set(d.supported_dtypes()); },
            "The element types its fields and kernels take.")
        .def_prop_ro(
            "supported_atomic_dtypes",
            [](const Device& d) { return dtype_set(d.supported_atomic_dtypes()); },
            "The element types tack.atomic_add, atomic_min and atomic_max take.")
        .def_prop_ro("supports_f64", &Device::supports_f64,
                     "Whether f64 fields and arithmetic run.")
        .def_prop_ro("supports_device_reductions", &Device::supports_device_reductions,
                     "Whether Field.sum, min, max and mean reduce on the device.")
        .def_prop_ro("supports_workgroups", &Device::supports_workgroups,
                     "Whether kernels may use barriers, shared arrays and block reductions.")
        .def_prop_ro("debug", &Device::debug,
                     "Whether its kernels run in debug mode (tack.init(debug=True), TACK_DEBUG).")
        .def_prop_ro(
            "runtime_version",
            [](const Device& d) { return none_if_empty(d.backend()->runtime_version()); },
            "The vendor runtime's release, \"major.minor[.patch]\" (HIP: the ROCm release; "
            "CUDA: the driver's CUDA version), or None.")
        .def_prop_ro(
            "dlpack_refusal_note",
            [](const Device& d) { return none_if_empty(d.backend()->dlpack_refusal_note()); },
            "What a refused DLPack import adds on this backend (Metal), or None.")
        .def_prop_ro(
            "wraps_object",
            [](const Device& d) { return none_if_empty(d.backend()->wraps_object()); },
            "The class of the object field_from_ptr takes on this backend (Metal: \"MTLBuffer\"), "
            "or None where it takes an address.")
        .def_prop_ro(
            "device_memory_spaces",
            [](const Device& d) {
                nb::list l;
                for (auto& s : d.device_memory_spaces())
                    l.append(s);
                return nb::tuple(l);
            },
            "The memory spaces Device.memory_space can answer besides \"cpu\".")
        .def_prop_ro(
            "init_options",
            [](const Device& d) {
                nb::list l;
                for (auto& s : d.device_options())
                    l.append(s);
                return nb::tuple(l);
            },
            "The keyword options tack.init and tack.device take for this backend.")
        .def(
            "synchronize",
            [](const Device& d) {
                nb::gil_scoped_release release;
                d.synchronize();
            },
            "Waits for every launch, fill and copy queued on this device.")
        // Equal when they are the same backend instance; anything else (None included) is
        // simply unequal.
        .def(
            "__eq__",
            [](const Device& a, nb::handle b) {
                return nb::isinstance<Device>(b) && nb::cast<const Device&>(b) == a;
            },
            nb::arg("other").none())
        .def(
            "__ne__",
            [](const Device& a, nb::handle b) {
                return !(nb::isinstance<Device>(b) && nb::cast<const Device&>(b) == a);
            },
            nb::arg("other").none())
        .def("__hash__",
             [](const Device& d) {
                 return static_cast<Py_hash_t>(reinterpret_cast<uintptr_t>(d.backend().get()) >> 4);
             })
        .def("__repr__", [](const Device& d) { return "tack.Device('" + d.name() + "')"; });

    m.def("_open_device", &open, nb::arg("name"), nb::arg("options"), nb::arg("fresh"));
    m.def("_default_device", [] {
        g_device_used = true;
        return tack::default_device();
    });
    m.def("_device_used", [] { return g_device_used.load(); });
    m.def("_available_backends", &tack::available_backends);
    // Every target's row as Python needs it (driver/targets.cpp): its name (tack.cpu, ...), its
    // install hint for tack's device errors, and whether its arrays are host memory.
    m.def("_targets", [] {
        std::vector<std::tuple<std::string, std::string, bool>> rows;
        for (const driver::Target& t : driver::targets())
            rows.emplace_back(t.name, t.install_hint, t.host_memory());
        return rows;
    });
    // tack.debug(): the calling thread's override (-1 follows the device), the previous returned.
    m.def("_exchange_thread_debug", &runtime::exchange_thread_debug, nb::arg("state"));
    m.def("_sync", [] {
        try {
            InterruptibleWait wait;
            tack::sync();
        } catch (const support::Interrupted&) {
            throw nb::python_error();  // the KeyboardInterrupt the signal check raised
        }
    });
    // Benchmarks only (benchmarks/bench_interrupts.py): the wait without the interrupt poll, the
    // baseline tack.sync()'s polling is measured against.
    m.def("_sync_uninterruptible", [] {
        nb::gil_scoped_release release;
        tack::sync();
    });
}

}  // namespace tack::python
