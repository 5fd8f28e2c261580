// The emulated device's NVRTC: the toolkit's real NVRTC compiles every program (its errors, log
// and PTX are the real ones), and the PTX handed back carries the CUDA C it was made from
// (engine.hpp, embed_source_in_ptx), which the emulated driver runs.
#include <dlfcn.h>
#include <nvrtc.h>

#include <string>

#include "engine.hpp"

namespace {

struct Real {
    void* handle = nullptr;
    std::string error;
#define TACK_EMU_REAL(name) decltype(&::name) name = nullptr;
    TACK_EMU_REAL(nvrtcVersion)
    TACK_EMU_REAL(nvrtcGetErrorString)
    TACK_EMU_REAL(nvrtcCreateProgram)
    TACK_EMU_REAL(nvrtcCompileProgram)
    TACK_EMU_REAL(nvrtcGetProgramLogSize)
    TACK_EMU_REAL(nvrtcGetProgramLog)
    TACK_EMU_REAL(nvrtcGetPTXSize)
    TACK_EMU_REAL(nvrtcGetPTX)
    TACK_EMU_REAL(nvrtcDestroyProgram)
#undef TACK_EMU_REAL
};

const Real& real() {
    static const Real* r = [] {
        auto* r = new Real();
        const char* path = std::getenv("TACK_EMU_REAL_NVRTC");
        if (!path || !*path) path = TACK_EMU_REAL_NVRTC;
        r->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!r->handle) {
            tack_emu::complain(std::string("the real NVRTC did not load: ") + dlerror());
            return r;
        }
#define TACK_EMU_BIND(name) r->name = reinterpret_cast<decltype(r->name)>(dlsym(r->handle, #name));
        TACK_EMU_BIND(nvrtcVersion)
        TACK_EMU_BIND(nvrtcGetErrorString)
        TACK_EMU_BIND(nvrtcCreateProgram)
        TACK_EMU_BIND(nvrtcCompileProgram)
        TACK_EMU_BIND(nvrtcGetProgramLogSize)
        TACK_EMU_BIND(nvrtcGetProgramLog)
        TACK_EMU_BIND(nvrtcGetPTXSize)
        TACK_EMU_BIND(nvrtcGetPTX)
        TACK_EMU_BIND(nvrtcDestroyProgram)
#undef TACK_EMU_BIND
        return r;
    }();
    return *r;
}

}  // namespace

struct _nvrtcProgram {
    nvrtcProgram real;
    std::string source, ptx;
};

extern "C" {

nvrtcResult nvrtcVersion(int* major, int* minor) {
    if (!real().handle) return NVRTC_ERROR_INTERNAL_ERROR;
    return real().nvrtcVersion(major, minor);
}

const char* nvrtcGetErrorString(nvrtcResult r) {
    return real().handle ? real().nvrtcGetErrorString(r) : "NVRTC_ERROR_INTERNAL_ERROR";
}

nvrtcResult nvrtcCreateProgram(nvrtcProgram* prog, const char* src, const char* name, int n,
                               const char* const* headers, const char* const* include_names) {
    if (!real().handle) return NVRTC_ERROR_INTERNAL_ERROR;
    if (!prog || !src) return NVRTC_ERROR_INVALID_INPUT;
    nvrtcProgram r = nullptr;
    if (nvrtcResult e = real().nvrtcCreateProgram(&r, src, name, n, headers, include_names))
        return e;
    *prog = new _nvrtcProgram{r, src, ""};
    return NVRTC_SUCCESS;
}

nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int n, const char* const* options) {
    if (!prog) return NVRTC_ERROR_INVALID_PROGRAM;
    nvrtcResult e = real().nvrtcCompileProgram(prog->real, n, options);
    if (e != NVRTC_SUCCESS) return e;
    std::size_t size = 0;
    if (nvrtcResult s = real().nvrtcGetPTXSize(prog->real, &size)) return s;
    std::string ptx(size, '\0');
    if (nvrtcResult s = real().nvrtcGetPTX(prog->real, ptx.data())) return s;
    while (!ptx.empty() && ptx.back() == '\0')
        ptx.pop_back();
    prog->ptx = tack_emu::embed_source_in_ptx(ptx, prog->source);
    return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, std::size_t* n) {
    return prog ? real().nvrtcGetProgramLogSize(prog->real, n) : NVRTC_ERROR_INVALID_PROGRAM;
}

nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char* log) {
    return prog ? real().nvrtcGetProgramLog(prog->real, log) : NVRTC_ERROR_INVALID_PROGRAM;
}

nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, std::size_t* n) {
    if (!prog || prog->ptx.empty()) return NVRTC_ERROR_INVALID_PROGRAM;
    *n = prog->ptx.size() + 1;  // as NVRTC: the terminator counts
    return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char* out) {
    if (!prog || prog->ptx.empty()) return NVRTC_ERROR_INVALID_PROGRAM;
    std::copy(prog->ptx.begin(), prog->ptx.end(), out);
    out[prog->ptx.size()] = '\0';
    return NVRTC_SUCCESS;
}

nvrtcResult nvrtcDestroyProgram(nvrtcProgram* prog) {
    if (!prog || !*prog) return NVRTC_ERROR_INVALID_PROGRAM;
    nvrtcResult e = real().nvrtcDestroyProgram(&(*prog)->real);
    delete *prog;
    *prog = nullptr;
    return e;
}

}  // extern "C"
