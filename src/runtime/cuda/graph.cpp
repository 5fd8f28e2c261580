// The CUDA half of launch graphs (gpu::DeviceBackend::instantiate_graph): kernel and memset
// nodes of a CUgraph in the backend's context, instantiated once and launched on its stream.
#include "runtime/cuda/cuda_backend.hpp"

namespace tack::runtime::cuda {

bool CudaBackend::has_graphs() const {
    return api_.has_graphs();
}

void* CudaBackend::graph_create() {
    ContextScope scope(api_, context(), false, "build a graph in");
    CUgraph graph = nullptr;
    check(api_, api_.cuGraphCreate(&graph, 0), "cuGraphCreate");
    return graph;
}

void* CudaBackend::graph_add(void* graph, void* after, const GraphStep& s) {
    ContextScope scope(api_, context(), false, "build a graph in");
    auto g = static_cast<CUgraph>(graph);
    auto last = static_cast<CUgraphNode>(after);
    CUgraphNode node = nullptr;
    if (s.code.function) {
        CuKernelNodeParams p;
        p.func = static_cast<CUfunction>(s.code.function);
        p.grid[0] = s.groups;
        p.block[0] = s.group;
        p.kernel_params = s.params;
        check(api_, api_.cuGraphAddKernelNode_v2(&node, g, &last, last ? 1 : 0, &p),
              "cuGraphAddKernelNode");
    } else {
        CuMemsetNodeParams p{s.dst, 0, s.pattern, unsigned(s.elem_size), s.count, 1};
        check(api_, api_.cuGraphAddMemsetNode(&node, g, &last, last ? 1 : 0, &p, context()),
              "cuGraphAddMemsetNode");
    }
    return node;
}

void* CudaBackend::graph_instantiate(void* graph) {
    ContextScope scope(api_, context(), false, "build a graph in");
    CUgraphExec exec = nullptr;
    CUresult r = api_.cuGraphInstantiateWithFlags(&exec, static_cast<CUgraph>(graph), 0);
    graph_discard(graph);  // the executable graph is independent of it
    check(api_, r, "cuGraphInstantiate");
    return exec;
}

void CudaBackend::graph_discard(void* graph) noexcept {
    ContextScope scope(api_, context(), /*quiet=*/true);
    api_.cuGraphDestroy(static_cast<CUgraph>(graph));
}

void CudaBackend::launch_graph(void* exec) {
    ContextScope scope(api_, context(), false, "launch a graph in");
    check(api_, api_.cuGraphLaunch(static_cast<CUgraphExec>(exec), stream_), "cuGraphLaunch");
}

void CudaBackend::destroy_graph(void* exec) noexcept {
    ContextScope scope(api_, context(), /*quiet=*/true);
    api_.cuGraphExecDestroy(static_cast<CUgraphExec>(exec));
}

}  // namespace tack::runtime::cuda
