// The HIP half of launch graphs (gpu::DeviceBackend::instantiate_graph): kernel and memset
// nodes of a hipGraph with the device current, instantiated once and launched on the
// backend's stream. A kernel node names the module's hipFunction_t, which HIP takes where a
// host function would go.
#include "runtime/hip/hip_backend.hpp"

namespace tack::runtime::hip {

bool HipBackend::has_graphs() const {
    return api_.has_graphs();
}

void* HipBackend::graph_create() {
    DeviceScope scope(api_, device_);
    hipGraph_t graph = nullptr;
    check(api_, api_.hipGraphCreate(&graph, 0), "hipGraphCreate");
    return graph;
}

void* HipBackend::graph_add(void* graph, void* after, const GraphStep& s) {
    DeviceScope scope(api_, device_);
    auto g = static_cast<hipGraph_t>(graph);
    auto last = static_cast<hipGraphNode_t>(after);
    std::size_t deps = last ? 1 : 0;
    hipGraphNode_t node = nullptr;
    if (!s.code.function) {
        HipMemsetParams p{
            reinterpret_cast<void*>(s.dst), unsigned(s.elem_size), 1, 0, s.pattern, s.count};
        check(api_, api_.hipGraphAddMemsetNode(&node, g, &last, deps, &p), "hipGraphAddMemsetNode");
        return node;
    }
    HipKernelNodeParams p;
    p.block.x = s.group;
    p.func = s.code.function;
    p.grid.x = s.groups;
    p.kernel_params = s.params;
    check(api_, api_.hipGraphAddKernelNode(&node, g, &last, deps, &p), "hipGraphAddKernelNode");
    return node;
}

void* HipBackend::graph_instantiate(void* graph) {
    DeviceScope scope(api_, device_);
    hipGraphExec_t exec = nullptr;
    hipError_t r = api_.hipGraphInstantiateWithFlags(&exec, static_cast<hipGraph_t>(graph), 0);
    graph_discard(graph);  // the executable graph is independent of it
    check(api_, r, "hipGraphInstantiateWithFlags");
    return exec;
}

void HipBackend::graph_discard(void* graph) noexcept {
    DeviceScope scope(api_, device_);
    api_.hipGraphDestroy(static_cast<hipGraph_t>(graph));
}

void HipBackend::launch_graph(void* exec) {
    DeviceScope scope(api_, device_);
    check(api_, api_.hipGraphLaunch(static_cast<hipGraphExec_t>(exec), stream_), "hipGraphLaunch");
}

void HipBackend::destroy_graph(void* exec) noexcept {
    DeviceScope scope(api_, device_);
    api_.hipGraphExecDestroy(static_cast<hipGraphExec_t>(exec));
}

}  // namespace tack::runtime::hip
