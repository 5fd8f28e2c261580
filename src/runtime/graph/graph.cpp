// Launch graphs: recording on the capturing thread, parameters, and the core's replay loop.
#include "runtime/graph/graph.hpp"

#include <algorithm>
#include <cstring>

#include "runtime/fork_guard.hpp"
#include "runtime/host_ops.hpp"

namespace tack::runtime {

namespace {

thread_local GraphCapture* t_capture = nullptr;

void run_node(Backend& backend, const GraphNode& node) {
    if (const auto* l = std::get_if<GraphLaunch>(&node)) {
        backend.dispatch(*l->variant, l->args(), nullptr);
        return;
    }
    const auto& f = std::get<GraphFill>(node);
    fill_buffer(*f.buffer, f.dtype, f.bits, f.count);
}

class LoopReplay final : public GraphExec {
  public:
    void replay(const GraphRecord& record, int times) override {
        for (int t = 0; t < times; ++t) {
            for (const GraphNode& node : record.nodes)
                run_node(*record.backend, node);
        }
    }
};

}  // namespace

// --- replay ------------------------------------------------------------------------------------

std::unique_ptr<GraphExec> replay_loop() {
    return std::make_unique<LoopReplay>();
}

std::unique_ptr<GraphExec> Backend::instantiate_graph(const GraphRecord&) {
    return replay_loop();
}

// --- capturing -----------------------------------------------------------------------------------

GraphCapture::GraphCapture(std::shared_ptr<Backend> backend) {
    if (t_capture)
        throw RuntimeError(
            "tack.capture: this thread is already capturing a graph; captures do "
            "not nest");
    require_unforked(*backend);
    record_.backend = std::move(backend);
    t_capture = this;
}

GraphCapture::~GraphCapture() {
    if (open_) t_capture = nullptr;
}

int GraphCapture::add_param(std::string name, Scalar value) {
    if (name.empty()) throw ValueError("tack.capture: a graph parameter needs a name");
    for (const auto& p : record_.params) {
        if (p.name == name)
            throw ValueError("tack.capture: the graph already has a parameter '" + name + "'");
    }
    record_.params.push_back({std::move(name), value, {}});
    return static_cast<int>(record_.params.size() - 1);
}

const GraphParameter& GraphCapture::param(int index) const {
    if (index < 0 || static_cast<std::size_t>(index) >= record_.params.size())
        throw ValueError("tack.capture: a parameter of another graph was passed");
    return record_.params[static_cast<std::size_t>(index)];
}

void GraphCapture::use(int param, std::size_t slot, DType dtype) {
    (void)this->param(param);
    record_.params[static_cast<std::size_t>(param)].uses.push_back(
        {record_.nodes.size() - 1, slot, dtype});
}

void GraphCapture::add_launch(std::shared_ptr<const Variant> variant, const LaunchArgs& launch,
                              std::span<const detail::Arg> args) {
    GraphLaunch l;
    l.variant = std::move(variant);
    l.slots.assign(launch.slots, launch.slots + args.size());
    l.total = launch.total;
    l.keep.resize(args.size());
    l.buffers.resize(args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (!args[i].array) continue;
        l.keep[i] = args[i].array->buffer();
        l.buffers[i] = l.keep[i].get();
    }
    record_.nodes.emplace_back(std::move(l));
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i].param >= 0) use(args[i].param, i, args[i].scalar.dtype);
    }
}

void GraphCapture::add_fill(std::shared_ptr<Buffer> buffer, DType dtype, std::uint64_t bits,
                            std::size_t count, int param) {
    record_.nodes.emplace_back(GraphFill{std::move(buffer), dtype, bits, count});
    if (param >= 0) use(param, 0, dtype);
}

GraphRecord GraphCapture::finish() {
    if (!open_) throw RuntimeError("tack.capture: the capture has already finished");
    open_ = false;
    t_capture = nullptr;
    return std::move(record_);
}

GraphCapture* capturing() {
    return t_capture;
}

void refuse_in_capture(std::string_view what) {
    if (!t_capture) return;
    throw RuntimeError("tack.capture: " + std::string(what) +
                       " while capturing a graph; a graph replays launches and fills only, so "
                       "do this before the capture or after it");
}

void require_capture_device(const GraphCapture& capture, const Backend& backend) {
    if (&capture.backend() == &backend) return;
    throw RuntimeError("tack.capture: work on the " + std::string(backend.display_name()) +
                       " device while capturing a graph on the " +
                       std::string(capture.backend().display_name()) +
                       " device; a graph runs on the one device it was captured on");
}

void set_graph_param(GraphRecord& record, int index, Scalar value) {
    GraphParameter& p = record.params.at(static_cast<std::size_t>(index));
    if (!is_float(p.value.dtype) && is_float(value.dtype))
        throw TypeError("graph parameter '" + p.name + "' is an integer (tack." +
                        std::string(name(p.value.dtype)) + "), got a float");
    p.value = Scalar{p.value.dtype, convert_scalar(value, p.value.dtype)};
    // Each use gets the value converted to its own dtype, as the scalar argument was packed.
    for (const auto& u : p.uses) {
        GraphNode& node = record.nodes[u.node];
        if (auto* l = std::get_if<GraphLaunch>(&node)) {
            l->slots[u.slot] = convert_scalar(value, u.dtype);
        } else {
            std::get<GraphFill>(node).bits = convert_scalar(value, u.dtype);
        }
    }
    ++record.version;
}

// --- finished graphs ---------------------------------------------------------------------------

GraphImpl::GraphImpl(GraphRecord record) : record_(std::move(record)) {
    exec_ = record_.backend->instantiate_graph(record_);
}

GraphImpl::~GraphImpl() = default;

void GraphImpl::replay(int times) {
    if (times < 0)
        throw ValueError("Graph.replay: times must be non-negative, got " + std::to_string(times));
    refuse_in_capture("replaying a graph");
    require_unforked(*record_.backend);
    std::lock_guard lock(mutex_);
    if (times > 0 && !record_.nodes.empty()) exec_->replay(record_, times);
}

int GraphImpl::index_of(std::string_view name) const {
    for (std::size_t i = 0; i < record_.params.size(); ++i) {
        if (record_.params[i].name == name) return static_cast<int>(i);
    }
    std::string known;
    for (const auto& p : record_.params)
        known += (known.empty() ? "'" : ", '") + p.name + "'";
    throw ValueError("the graph has no parameter '" + std::string(name) + "' (" +
                     (known.empty() ? std::string("it has none") : "it has " + known) + ")");
}

void GraphImpl::set(std::string_view name, Scalar value) {
    std::lock_guard lock(mutex_);
    set_graph_param(record_, index_of(name), value);
}

Scalar GraphImpl::get(std::string_view name) const {
    std::lock_guard lock(mutex_);
    return record_.params[static_cast<std::size_t>(index_of(name))].value;
}

std::vector<std::string> GraphImpl::param_names() const {
    std::vector<std::string> out;
    for (const auto& p : record_.params)
        out.push_back(p.name);
    return out;
}

}  // namespace tack::runtime
