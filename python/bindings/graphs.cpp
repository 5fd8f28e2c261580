// tack.capture and tack.Graph: launch graphs from Python over tack::Capture / tack::Graph.
//
//     with tack.capture() as g:
//         for _ in range(10):
//             step(u, v, g.param("dt", 0.01))
//             u, v = v, u
//     g.replay(100, dt=0.02)
//
// The with-block records what it launches (Python in it runs once, at capture: what it computes
// is recorded by value); replays run from C++ with the GIL released.
#include <memory>

#include "bindings.hpp"

namespace tack::python {

namespace {

struct PyGraphParam {
    GraphParam param;
    std::string name;
};

class PyGraph {
  public:
    explicit PyGraph(nb::handle device) : device_(nb::borrow(device)) {}

    PyGraph& enter() {
        if (capture_ || graph_.valid())
            raise_python(PyExc_RuntimeError,
                         "tack.capture: a graph is captured once; start a "
                         "new tack.capture() to record another");
        Device dev;
        if (!device_.is_none()) dev = nb::cast<Device>(device_);
        try {
            capture_ = std::make_unique<Capture>(dev);
        } catch (const Error& e) {
            raise_python(e);
        }
        note_device_used();
        return *this;
    }

    bool exit(nb::handle type, nb::handle, nb::handle) {
        if (!capture_) return false;
        if (!type.is_none()) {  // the block raised: nothing is recorded, the error goes on
            capture_.reset();
            return false;
        }
        try {
            graph_ = capture_->finish();
        } catch (const Error& e) {
            capture_.reset();
            raise_python(e);
        }
        capture_.reset();
        return false;
    }

    nb::object param(const std::string& name, nb::handle value) {
        if (!capture_)
            raise_python(PyExc_RuntimeError,
                         "Graph.param: parameters are made inside the graph's capture block");
        Scalar s;
        if (!scalar_from_python(value, s, "graph parameter '" + name + "'"))
            raise_python(PyExc_TypeError, "graph parameter '" + name + "' takes a number, got " +
                                              nb::cast<std::string>(value.type().attr("__name__")));
        try {
            return nb::cast(PyGraphParam{capture_->param_scalar(name, s), name});
        } catch (const Error& e) {
            raise_python(e);
        }
    }

    void replay(int times, nb::kwargs values) {
        const Graph& g = ready("Graph.replay");
        try {
            for (auto [key, value] : values) {
                std::string name = nb::cast<std::string>(key);
                Scalar s;
                if (!scalar_from_python(value, s, "graph parameter '" + name + "'"))
                    raise_python(PyExc_TypeError,
                                 "graph parameter '" + name + "' takes a number, got " +
                                     nb::cast<std::string>(value.type().attr("__name__")));
                g.set_scalar(name, s);
            }
            nb::gil_scoped_release release;
            g.replay(times);
        } catch (const Error& e) {
            raise_python(e);
        }
    }

    nb::dict params() const {
        nb::dict out;
        if (!graph_.valid()) return out;
        for (const auto& name : graph_.param_names())
            out[nb::str(name.c_str())] = scalar_to_python(graph_.get(name));
        return out;
    }

    std::size_t size() const { return graph_.valid() ? graph_.size() : 0; }

    std::string repr() const {
        if (capture_) return "<tack.Graph capturing>";
        if (!graph_.valid()) return "<tack.Graph (not captured)>";
        return "<tack.Graph of " + std::to_string(graph_.size()) + " nodes on " +
               graph_.device().display_name() + ">";
    }

  private:
    const Graph& ready(const char* what) const {
        if (capture_)
            raise_python(PyExc_RuntimeError, std::string(what) +
                                                 ": the graph is still being captured; "
                                                 "replay it after its with-block");
        if (!graph_.valid())
            raise_python(PyExc_RuntimeError, std::string(what) +
                                                 ": nothing was captured; use `with tack.capture() "
                                                 "as g:` around the launches first");
        return graph_;
    }

    nb::object device_;
    std::unique_ptr<Capture> capture_;
    Graph graph_;
};

}  // namespace

bool graph_param_arg(nb::handle h, detail::Arg& out) {
    if (!nb::isinstance<PyGraphParam>(h)) return false;
    const auto& p = nb::cast<const PyGraphParam&>(h);
    out.scalar = p.param.value;
    out.param = p.param.index;
    return true;
}

void init_graphs(nb::module_& m) {
    nb::class_<PyGraphParam>(m, "GraphParam",
                             "A scalar a replay of its graph may change (Graph.param).")
        .def_prop_ro(
            "name", [](const PyGraphParam& p) { return p.name; }, "The name given to Graph.param.")
        .def_prop_ro(
            "value", [](const PyGraphParam& p) { return scalar_to_python(p.param.value); },
            "The value the next replay passes.")
        .def("__repr__",
             [](const PyGraphParam& p) { return "<tack.GraphParam '" + p.name + "'>"; });
    nb::class_<PyGraph>(m, "Graph",
                        "Launches and fills recorded by `with tack.capture() as g:`, replayed "
                        "from C++ by g() or g.replay(times).")
        .def("__enter__", &PyGraph::enter, nb::rv_policy::reference)
        .def("__exit__", &PyGraph::exit, nb::arg("type").none(), nb::arg("value").none(),
             nb::arg("traceback").none())
        .def("param", &PyGraph::param, nb::arg("name"), nb::arg("value"),
             "A graph parameter: pass it to kernels (or Field.fill) in place of the number; "
             "replays pass its current value.")
        .def("replay", &PyGraph::replay, nb::arg("times") = 1, nb::arg("values"),
             "Runs the recorded work `times` times, in order, with the parameters given set "
             "first (they keep their values for later replays). Queued like launches.")
        .def(
            "__call__", [](PyGraph& g, nb::kwargs values) { g.replay(1, std::move(values)); },
            nb::arg("values"))
        .def_prop_ro("params", &PyGraph::params, "The parameters and their current values.")
        .def("__len__", &PyGraph::size)
        .def("__repr__", &PyGraph::repr);
    m.def(
        "capture", [](nb::handle device) { return PyGraph(device); },
        nb::arg("device").none() = nb::none(),
        "Records the launches and fills of a with-block on the current device (or `device`) "
        "into a tack.Graph instead of running them.");
}

}  // namespace tack::python
