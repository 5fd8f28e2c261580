// The HIP half of launch graphs (gpu::DeviceBackend::instantiate_graph): a hipGraph built as
// one chain of kernel and memset nodes with the device current, instantiated once and launched
// on the backend's stream. A kernel node names the module's hipFunction_t, which HIP takes
// where a host function would go.
#include "runtime/hip/hip_backend.hpp"

namespace tack::runtime::hip {

bool HipBackend::has_graphs() const {
    return api_.has_graphs();
}

void* HipBackend::make_graph(std::span<const GraphStep> steps) {
    DeviceScope scope(api_, device_);
    hipGraph_t graph = nullptr;
    check(api_, api_.hipGraphCreate(&graph, 0), "hipGraphCreate");
    hipError_t r = hipSuccess;
    const char* failed = "hipGraphInstantiateWithFlags";
    hipGraphNode_t last = nullptr;
    for (const GraphStep& s : steps) {
        hipGraphNode_t node = nullptr;
        std::size_t deps = last ? 1 : 0;
        if (s.code.function) {
            HipKernelNodeParams p;
            p.func = s.code.function;
            p.grid.x = s.groups;
            p.block.x = s.group;
            p.kernel_params = s.params;
            r = api_.hipGraphAddKernelNode(&node, graph, &last, deps, &p);
            failed = "hipGraphAddKernelNode";
        } else {
            HipMemsetParams p;
            p.dst = reinterpret_cast<void*>(s.dst);
            p.value = s.pattern;
            p.element_size = unsigned(s.elem_size);
            p.width = s.count;
            r = api_.hipGraphAddMemsetNode(&node, graph, &last, deps, &p);
            failed = "hipGraphAddMemsetNode";
        }
        if (r != hipSuccess) break;
        last = node;
    }
    hipGraphExec_t exec = nullptr;
    if (r == hipSuccess) {
        failed = "hipGraphInstantiateWithFlags";
        r = api_.hipGraphInstantiateWithFlags(&exec, graph, 0);
    }
    api_.hipGraphDestroy(graph);  // the executable graph is independent of it
    check(api_, r, failed);
    return exec;
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
