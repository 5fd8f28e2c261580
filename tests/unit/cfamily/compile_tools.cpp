#include "compile_tools.hpp"

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

namespace tack::cfamily_test {

namespace {

ToolResult unavailable(std::string why) {
    ToolResult r;
    r.why = std::move(why);
    return r;
}

std::string temp_dir() {
    static std::string dir = [] {
        char tmpl[] = "/tmp/tack_cfamily_XXXXXX";
        const char* d = mkdtemp(tmpl);
        return std::string(d ? d : "/tmp");
    }();
    return dir;
}

std::string write_temp(const std::string& name, const std::string& text) {
    std::string path = temp_dir() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

/// Runs a shell command; returns its exit status and appends its output to `log`.
int run_command(const std::string& cmd, std::string* log) {
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return -1;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        log->append(buf, n);
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool executable(const char* path) {
    return access(path, X_OK) == 0;
}

void* open_first(const std::vector<const char*>& names) {
    for (const char* n : names)
        if (void* h = dlopen(n, RTLD_NOW | RTLD_LOCAL)) return h;
    return nullptr;
}

// NVRTC and hipRTC share one shape of API: create, compile, log, code, destroy.
struct RtcApi {
    using Create = int (*)(void**, const char*, const char*, int, const char**, const char**);
    using Compile = int (*)(void*, int, const char* const*);
    using Size = int (*)(void*, size_t*);
    using Get = int (*)(void*, char*);
    using Destroy = int (*)(void**);
    Create create = nullptr;
    Compile compile = nullptr;
    Size log_size = nullptr, code_size = nullptr;
    Get log = nullptr, code = nullptr;
    Destroy destroy = nullptr;
};

bool load_rtc(void* lib, const char* prefix, const char* code_name, RtcApi* api) {
    auto sym = [&](const std::string& s) { return dlsym(lib, (prefix + s).c_str()); };
    api->create = reinterpret_cast<RtcApi::Create>(sym("CreateProgram"));
    api->compile = reinterpret_cast<RtcApi::Compile>(sym("CompileProgram"));
    api->log_size = reinterpret_cast<RtcApi::Size>(sym("GetProgramLogSize"));
    api->log = reinterpret_cast<RtcApi::Get>(sym("GetProgramLog"));
    api->code_size = reinterpret_cast<RtcApi::Size>(sym(std::string("Get") + code_name + "Size"));
    api->code = reinterpret_cast<RtcApi::Get>(sym(std::string("Get") + code_name));
    api->destroy = reinterpret_cast<RtcApi::Destroy>(sym("DestroyProgram"));
    return api->create && api->compile && api->log_size && api->log && api->code_size &&
           api->code && api->destroy;
}

ToolResult rtc_compile(const RtcApi& api, const std::string& src,
                       const std::vector<const char*>& options, std::string* code) {
    ToolResult r;
    r.available = true;
    void* prog = nullptr;
    if (api.create(&prog, src.c_str(), "tack_kernel.cu", 0, nullptr, nullptr) != 0) {
        r.log = "create program failed";
        return r;
    }
    int rc = api.compile(prog, static_cast<int>(options.size()), options.data());
    size_t n = 0;
    api.log_size(prog, &n);
    std::string log(n, '\0');
    if (n) api.log(prog, log.data());
    while (!log.empty() && log.back() == '\0')
        log.pop_back();
    r.log = log;
    if (rc == 0) {
        api.code_size(prog, &n);
        code->assign(n, '\0');
        api.code(prog, code->data());
        r.ok = true;
    }
    api.destroy(&prog);
    return r;
}

}  // namespace

ToolResult compile_cuda(const std::string& src) {
    std::string ptx;
    return compile_cuda_ptx(src, &ptx);
}

ToolResult compile_cuda_ptx(const std::string& src, std::string* ptx_out) {
    static void* lib =
        open_first({"/usr/local/cuda/lib64/libnvrtc.so",
                    "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libnvrtc.so", "libnvrtc.so"});
    static RtcApi api;
    static bool loaded = lib && load_rtc(lib, "nvrtc", "PTX", &api);
    if (!loaded) return unavailable("NVRTC (libnvrtc.so) not found");
    const char* ptxas = "/usr/local/cuda/bin/ptxas";
    if (!executable(ptxas)) return unavailable("ptxas not found at /usr/local/cuda/bin/ptxas");
    std::string ptx;
    ToolResult r = rtc_compile(api, src,
                               {"--gpu-architecture=compute_90", "--ftz=false", "--prec-div=true",
                                "--prec-sqrt=true", "--fmad=true"},
                               &ptx);
    if (!r.ok) return r;
    while (!ptx.empty() && ptx.back() == '\0')
        ptx.pop_back();  // NVRTC counts the terminator
    *ptx_out = ptx;
    std::string path = write_temp("kernel.ptx", ptx);
    r.ok = run_command(
               std::string(ptxas) + " -arch=sm_90 " + path + " -o " + temp_dir() + "/kernel.cubin",
               &r.log) == 0;
    return r;
}

// hipRTC's comgr carries its own LLVM, whose command-line options collide with PoCL's LLVM once
// both are loaded in one process ("Option ... registered more than once"). So the HIP compile
// runs in a fresh copy of this test binary: with TACK_HIPRTC_CHILD=<file> set, a static
// initializer compiles that file before main() (before anything loads PoCL) and exits with
// 0 (compiled), 1 (failed, log on stdout) or 2 (no hipRTC).
namespace {

int hiprtc_child_compile(const char* path) {
    void* lib = open_first({"libhiprtc.so", "libamdhip64.so", "libamdhip64.so.5"});
    RtcApi api;
    if (!lib || !load_rtc(lib, "hiprtc", "Code", &api)) return 2;
    std::ifstream in(path);
    std::string src((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string code;
    ToolResult r = rtc_compile(api, src, {"--offload-arch=gfx90a", "-ffp-contract=on"}, &code);
    if (r.ok) std::ofstream(std::string(path) + ".co", std::ios::binary) << code;
    std::fwrite(r.log.data(), 1, r.log.size(), stdout);
    std::fflush(stdout);
    return r.ok ? 0 : 1;
}

const bool kHiprtcChild = [] {
    if (const char* path = std::getenv("TACK_HIPRTC_CHILD")) _exit(hiprtc_child_compile(path));
    return false;
}();

std::string self_path() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

}  // namespace

ToolResult compile_hip(const std::string& src) {
    std::string disassembly;
    return compile_hip_disassemble(src, &disassembly);
}

ToolResult compile_hip_disassemble(const std::string& src, std::string* disassembly) {
    (void)kHiprtcChild;
    std::string self = self_path();
    if (self.empty()) return unavailable("cannot locate the test binary to run hipRTC in");
    std::string path = write_temp("kernel.hip", src);
    ToolResult r;
    int rc = run_command("TACK_HIPRTC_CHILD=" + path + " " + self, &r.log);
    if (rc == 2) return unavailable("hipRTC (libhiprtc.so / libamdhip64.so) not found");
    r.available = true;
    r.ok = rc == 0;
    const char* objdump = "/usr/bin/llvm-objdump-19";
    if (r.ok && executable(objdump))
        run_command(std::string(objdump) + " -d --mcpu=gfx90a " + path + ".co", disassembly);
    return r;
}

ToolResult compile_opencl(const std::string& src) {
    for (const char* tool : {"/usr/bin/clang-15", "/usr/bin/llvm-spirv-15", "/usr/bin/spirv-val"})
        if (!executable(tool)) return unavailable(std::string(tool) + " not found");
    ToolResult r;
    r.available = true;
    std::string cl = write_temp("kernel.cl", src);
    std::string bc = temp_dir() + "/kernel.bc", spv = temp_dir() + "/kernel.spv";
    r.ok = run_command(
               "/usr/bin/clang-15 -cl-std=CL1.2 -target spir64 -Xclang "
               "-finclude-default-header -Xclang -disable-llvm-passes -Werror -emit-llvm -c " +
                   cl + " -o " + bc,
               &r.log) == 0 &&
           run_command("/usr/bin/llvm-spirv-15 " + bc + " -o " + spv, &r.log) == 0 &&
           run_command("/usr/bin/spirv-val " + spv, &r.log) == 0;
    return r;
}

ToolResult compile_metal(const std::string& src) {
    const char* clang = "/usr/bin/clang++-19";
    if (!executable(clang)) return unavailable("clang++-19 not found");
    ToolResult r;
    r.available = true;
    // The emulated Metal device's <metal_stdlib> (tests/emulated/include/metal) stands in for
    // Apple's: Metal's qualifiers, types and built-ins as C++.
    std::string inc = TACK_SOURCE_DIR "/tests/emulated/include/metal";
    std::string path = write_temp("kernel.metal.cpp", src);
    r.ok = run_command(std::string(clang) +
                           " -fsyntax-only -std=c++17 -Wall -Werror -Wno-unknown-attributes "
                           "-Wno-unused-variable -I" +
                           inc + " " + path,
                       &r.log) == 0;
    return r;
}

}  // namespace tack::cfamily_test
