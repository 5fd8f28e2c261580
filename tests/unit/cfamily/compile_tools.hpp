#pragma once
// Compile-only checks of generated source with the real vendor compilers, none of which needs a
// GPU: NVRTC + ptxas (CUDA), hipRTC (HIP), clang-15 + llvm-spirv-15 + spirv-val (OpenCL C),
// clang++-19 over a shim of <metal_stdlib> (MSL syntax and types only).

#include <string>

namespace tack::cfamily_test {

struct ToolResult {
    bool available = false;  // false: `why` names the missing tool, and the check is skipped
    std::string why;
    bool ok = false;
    std::string log;
};

ToolResult compile_cuda(const std::string& src);
/// As compile_cuda, also returning NVRTC's PTX.
ToolResult compile_cuda_ptx(const std::string& src, std::string* ptx);
ToolResult compile_hip(const std::string& src);
/// As compile_hip, also returning llvm-objdump-19's disassembly of the code object (empty
/// without llvm-objdump-19).
ToolResult compile_hip_disassemble(const std::string& src, std::string* disassembly);
ToolResult compile_opencl(const std::string& src);
ToolResult compile_metal(const std::string& src);

}  // namespace tack::cfamily_test
