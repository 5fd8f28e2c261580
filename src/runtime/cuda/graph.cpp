// The CUDA half of launch graphs (gpu::DeviceBackend::instantiate_graph): a CUgraph built as
// one chain of kernel and memset nodes in the backend's context, instantiated once and
// launched on the backend's stream.
#include "runtime/cuda/cuda_backend.hpp"

namespace tack::runtime::cuda {

bool CudaBackend::has_graphs() const {
    return api_.has_graphs();
}

void* CudaBackend::make_graph(std::span<const GraphStep> steps) {
    ContextScope scope(api_, context(), false, "build a graph in");
    CUgraph graph = nullptr;
    check(api_, api_.cuGraphCreate(&graph, 0), "cuGraphCreate");
    CUgraphExec exec = nullptr;
    CUresult r = CUDA_SUCCESS;
    const char* failed = "cuGraphInstantiate";
    CUgraphNode last = nullptr;
    for (const GraphStep& s : steps) {
        CUgraphNode node = nullptr;
        std::size_t deps = last ? 1 : 0;
        if (s.code.function) {
            CuKernelNodeParams p;
            p.func = static_cast<CUfunction>(s.code.function);
            p.grid[0] = s.groups;
            p.block[0] = s.group;
            p.kernel_params = s.params;
            r = api_.cuGraphAddKernelNode_v2(&node, graph, &last, deps, &p);
            failed = "cuGraphAddKernelNode";
        } else {
            CuMemsetNodeParams p;
            p.dst = s.dst;
            p.value = s.pattern;
            p.element_size = unsigned(s.elem_size);
            p.width = s.count;
            r = api_.cuGraphAddMemsetNode(&node, graph, &last, deps, &p, context());
            failed = "cuGraphAddMemsetNode";
        }
        if (r != CUDA_SUCCESS) break;
        last = node;
    }
    if (r == CUDA_SUCCESS) {
        failed = "cuGraphInstantiate";
        r = api_.cuGraphInstantiateWithFlags(&exec, graph, 0);
    }
    api_.cuGraphDestroy(graph);  // the executable graph is independent of it
    check(api_, r, failed);
    return exec;
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
