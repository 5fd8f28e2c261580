// tack.profile and tack.Profile: the profiler from Python over tack::Profile.
//
//     with tack.profile() as p:
//         for _ in range(100):
//             step(u, v, 0.01)
//     p.print()                  # calls, launch and compile times per kernel and backend
//     p.save("trace.json")       # a Chrome / Perfetto trace
//
// Collection, sums, the table and the trace are the core's (runtime/profile.cpp).
#include <nanobind/stl/optional.h>

#include <fstream>
#include <memory>

#include "bindings.hpp"

namespace tack::python {

namespace {

class PyProfile {
  public:
    PyProfile& enter() {
        if (profile_)
            raise_python(PyExc_RuntimeError,
                         "tack.profile: a profile is collected once; start a new "
                         "tack.profile() to collect another");
        profile_ = std::make_unique<Profile>();
        return *this;
    }
    void exit(nb::handle, nb::handle, nb::handle) { stop(); }
    void stop() {
        if (profile_) profile_->stop();
        stopped_ = profile_ != nullptr;
    }

    std::vector<Profile::KernelCost> kernels() const {
        return profile_ ? profile_->kernels() : std::vector<Profile::KernelCost>{};
    }
    /// The costs of `name` (on `backend`, or summed over the backends it ran on).
    std::optional<Profile::KernelCost> kernel(const std::string& name,
                                              std::optional<std::string> backend) const {
        std::optional<Profile::KernelCost> sum;
        for (const auto& k : kernels()) {
            if (k.kernel != name || (backend && k.backend != *backend)) continue;
            if (!sum) {
                sum = k;
                continue;
            }
            sum->backend += "+" + k.backend;
            sum->min_launch_ns = !sum->calls ? k.min_launch_ns
                                 : !k.calls  ? sum->min_launch_ns
                                             : std::min(sum->min_launch_ns, k.min_launch_ns);
            sum->max_launch_ns = std::max(sum->max_launch_ns, k.max_launch_ns);
            sum->calls += k.calls;
            sum->launch_ns += k.launch_ns;
            sum->compiles += k.compiles;
            sum->variants += k.variants;
            sum->compile_ns += k.compile_ns;
            sum->bytes += k.bytes;
        }
        return sum;
    }
    std::string table() const { return profile_ ? profile_->table() : "(not started)\n"; }
    std::string trace() const {
        return profile_ ? profile_->chrome_trace() : "{\"traceEvents\":[]}\n";
    }
    void save(nb::handle path) const {
        std::string file = nb::cast<std::string>(nb::module_::import_("os").attr("fspath")(path));
        std::ofstream out(file, std::ios::binary);
        out << trace();
        if (!out.flush())
            raise_python(PyExc_OSError, "tack.Profile.save: cannot write '" + file + "'");
    }
    std::string repr() const {
        size_t n = kernels().size();
        const char* state = !profile_ ? "not started" : stopped_ ? "stopped" : "collecting";
        return "<tack.Profile " + std::string(state) + ", " + std::to_string(n) +
               (n == 1 ? " kernel>" : " kernels>");
    }

  private:
    std::unique_ptr<Profile> profile_;
    bool stopped_ = false;
};

double seconds(int64_t ns) {
    return static_cast<double>(ns) / 1e9;
}

}  // namespace

void init_profile(nb::module_& m) {
    using Cost = Profile::KernelCost;
    nb::class_<Cost>(m, "KernelProfile",
                     "What one kernel cost on one backend over a tack.profile() (times in s).")
        .def_ro("kernel", &Cost::kernel)
        .def_ro("backend", &Cost::backend)
        .def_ro("calls", &Cost::calls, "Launches.")
        .def_prop_ro(
            "total", [](const Cost& c) { return seconds(c.launch_ns); },
            "Seconds in launches, each until its device finished it.")
        .def_prop_ro(
            "mean", [](const Cost& c) { return c.calls ? seconds(c.launch_ns) / c.calls : 0.0; },
            "Seconds per launch.")
        .def_prop_ro("min", [](const Cost& c) { return seconds(c.min_launch_ns); })
        .def_prop_ro("max", [](const Cost& c) { return seconds(c.max_launch_ns); })
        .def_ro("compiles", &Cost::compiles, "Argument signatures lowered plus variants built.")
        .def_ro("variants", &Cost::variants,
                "Variants built (compiled, or read from the disk cache).")
        .def_prop_ro(
            "compile_time", [](const Cost& c) { return seconds(c.compile_ns); },
            "Seconds lowering and building variants.")
        .def_ro("bytes", &Cost::bytes, "Bytes of the array arguments, summed over launches.")
        .def("__repr__", [](const Cost& c) {
            return "<tack.KernelProfile '" + c.kernel + "' on " + c.backend + ": " +
                   std::to_string(c.calls) + " calls>";
        });
    nb::class_<PyProfile>(m, "Profile",
                          "What each kernel call costs while `with tack.profile() as p:` runs.")
        .def("__enter__", &PyProfile::enter, nb::rv_policy::reference)
        .def("__exit__", &PyProfile::exit, nb::arg("type").none(), nb::arg("value").none(),
             nb::arg("traceback").none())
        .def("stop", &PyProfile::stop, "Ends collection early; what was collected stays.")
        .def_prop_ro("kernels", &PyProfile::kernels,
                     "Per kernel and backend, in the order each was first called.")
        .def("kernel", &PyProfile::kernel, nb::arg("name"), nb::arg("backend").none() = nb::none(),
             "The costs of kernel `name` on `backend` (or summed over every backend it ran "
             "on), None when it was not called.")
        .def("table", &PyProfile::table, "kernels as a fixed-width table.")
        .def(
            "print", [](const PyProfile& p) { nb::print(nb::str(p.table().c_str()), nb::str("")); },
            "Writes the table to sys.stdout.")
        .def("trace", &PyProfile::trace, "The Chrome / Perfetto trace, as JSON text.")
        .def("save", &PyProfile::save, nb::arg("path"),
             "Writes the trace (JSON) to `path`, for chrome://tracing or ui.perfetto.dev.")
        .def("__repr__", &PyProfile::repr);
    m.def(
        "profile", [] { return PyProfile(); },
        "A profiler for a with-block: calls, launch and compile times per kernel and backend "
        "(GPU launches wait for their device while it is open).");
}

}  // namespace tack::python
