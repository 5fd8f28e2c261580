#pragma once
// Launch graphs (issue 25): the launches and fills one thread issues on one device between a
// capture's start and end, recorded instead of run, and replayed from C++ with no dispatch per
// launch: the argument conversion, signature lookup, checks and compile happen once, at
// capture, and a replay runs what they resolved. Scalars are recorded by value, or as graph
// parameters whose values a replay may change.
//
// The record is the same on every backend; Backend::instantiate_graph turns it into what
// replays it: a vendor graph where the device has one (gpu::DeviceBackend: CUDA and HIP graphs
// built node by node), else the core's loop (replay_loop), which calls each node's dispatch.
//
// What cannot be replayed is refused while capturing, naming the operation: allocating or
// wrapping an array, host reads and writes of arrays, reductions to a host value, kernels that
// return a value, debug-mode launches (their checks are read back after every launch) and work
// on another device. The refusal is thrown where the operation is asked for, so the capture's
// caller sees it before the graph exists.

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/backend.hpp"
#include "tack/tack.hpp"

namespace tack::runtime {

/// One recorded launch: what Backend::dispatch was to be given.
struct GraphLaunch {
    std::shared_ptr<const Variant> variant;
    std::vector<std::uint64_t> slots;
    std::vector<std::shared_ptr<Buffer>> keep;  // the bound buffers, alive while the graph is
    std::vector<const Buffer*> buffers;         // per slot; nullptr for a scalar
    std::int64_t total = 0;
    LaunchArgs args() const { return {slots.data(), buffers.data(), total}; }
};

/// One recorded fill of a whole buffer: `count` elements of `dtype` set to `bits`.
struct GraphFill {
    std::shared_ptr<Buffer> buffer;
    DType dtype = DType::f32;
    std::uint64_t bits = 0;  // the value in the array's dtype
    std::size_t count = 0;
};

using GraphNode = std::variant<GraphLaunch, GraphFill>;

/// A graph parameter: a scalar a replay may change, with the value of the last replay (or of
/// the capture). Every place it was passed is a use, converted to that place's dtype.
struct GraphParameter {
    std::string name;
    Scalar value;
    struct Use {
        std::size_t node;
        std::size_t slot;  // a launch's slot; ignored for a fill
        DType dtype;
    };
    std::vector<Use> uses;
};

/// What a capture recorded, on one device.
struct GraphRecord {
    std::shared_ptr<Backend> backend;
    std::vector<GraphNode> nodes;
    std::vector<GraphParameter> params;
    /// Bumped whenever a parameter's value changes the nodes' bits: a vendor graph built at
    /// another version updates its nodes before it replays.
    std::uint64_t version = 0;
};

/// What replays a record (a vendor graph, the core's loop); made by Backend::instantiate_graph.
class GraphExec {
  public:
    virtual ~GraphExec() = default;
    /// Runs the record's nodes in order `times` times, queued as launches are.
    virtual void replay(const GraphRecord& record, int times) = 0;
};

/// The core's replay: each node through the backend's own dispatch and fill paths.
std::unique_ptr<GraphExec> replay_loop();

// --- capturing ---------------------------------------------------------------------------------

/// A capture in progress on the calling thread, recording on one device. At most one per thread.
class GraphCapture {
  public:
    explicit GraphCapture(std::shared_ptr<Backend> backend);
    ~GraphCapture();
    GraphCapture(const GraphCapture&) = delete;
    GraphCapture& operator=(const GraphCapture&) = delete;

    Backend& backend() const { return *record_.backend; }
    /// A new parameter (ValueError for an empty or repeated name); its index for Arg::param.
    int add_param(std::string name, Scalar value);
    const GraphParameter& param(int index) const;
    /// Records a launch that dispatch resolved (`args` for the parameters passed).
    void add_launch(std::shared_ptr<const Variant> variant, const LaunchArgs& launch,
                    std::span<const detail::Arg> args);
    void add_fill(std::shared_ptr<Buffer> buffer, DType dtype, std::uint64_t bits,
                  std::size_t count, int param);
    /// Stops recording; the record, whose nodes run in the order they were issued.
    GraphRecord finish();

  private:
    void use(int param, std::size_t slot, DType dtype);
    GraphRecord record_;
    bool open_ = true;
};

/// The capture the calling thread runs, or nullptr.
GraphCapture* capturing();
/// RuntimeError when the calling thread is capturing: `what` ("allocates an array") cannot be
/// part of a graph.
void refuse_in_capture(std::string_view what);
/// RuntimeError when capturing on a device other than `backend` (launching or filling there).
void require_capture_device(const GraphCapture& capture, const Backend& backend);
/// Sets parameter `index` of `record` to `value` (TypeError when an integer parameter is given a
/// float) and rewrites its uses.
void set_graph_param(GraphRecord& record, int index, Scalar value);

/// A finished graph: its record and what replays it (made once, by the record's backend), one
/// replay at a time.
class GraphImpl {
  public:
    explicit GraphImpl(GraphRecord record);
    ~GraphImpl();
    void replay(int times);
    /// ValueError naming the graph's parameters when it has none called `name`.
    void set(std::string_view name, Scalar value);
    Scalar get(std::string_view name) const;
    std::vector<std::string> param_names() const;
    std::size_t size() const { return record_.nodes.size(); }
    const std::shared_ptr<Backend>& backend() const { return record_.backend; }

  private:
    int index_of(std::string_view name) const;
    mutable std::mutex mutex_;
    GraphRecord record_;
    std::unique_ptr<GraphExec> exec_;  // declared after the record: destroyed before it
};

}  // namespace tack::runtime
