// tack::Capture and tack::Graph over the core's launch graphs (runtime/graph).
#include "runtime/graph/graph.hpp"
#include "runtime/registry.hpp"
#include "tack/tack.hpp"

namespace tack {

namespace {
runtime::GraphImpl& impl_of(const std::shared_ptr<runtime::GraphImpl>& g) {
    if (!g) throw ValueError("an empty Graph handle (a default-constructed Graph)");
    return *g;
}
}  // namespace

Capture::Capture(const Device& device)
    : capture_(std::make_unique<runtime::GraphCapture>(
          device.valid() ? device.backend() : runtime::default_backend_ptr())) {}

Capture::~Capture() = default;

GraphParam Capture::param_scalar(std::string_view name, Scalar value) {
    if (!capture_) throw RuntimeError("tack.capture: the capture has already finished");
    return GraphParam{capture_->add_param(std::string(name), value), value};
}

Graph Capture::finish() {
    if (!capture_) throw RuntimeError("tack.capture: the capture has already finished");
    runtime::GraphRecord record = capture_->finish();
    capture_.reset();
    Graph g;
    g.impl_ = std::make_shared<runtime::GraphImpl>(std::move(record));
    return g;
}

void Graph::replay(int times) const {
    impl_of(impl_).replay(times);
}

void Graph::set_scalar(std::string_view name, Scalar value) const {
    impl_of(impl_).set(name, value);
}

Scalar Graph::get(std::string_view name) const {
    return impl_of(impl_).get(name);
}

std::vector<std::string> Graph::param_names() const {
    return impl_of(impl_).param_names();
}

std::size_t Graph::size() const {
    return impl_of(impl_).size();
}

Device Graph::device() const {
    return Device(impl_of(impl_).backend());
}

}  // namespace tack
