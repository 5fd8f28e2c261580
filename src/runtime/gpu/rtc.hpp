#pragma once
// NVRTC and hipRTC: one runtime-compiler API under two prefixes (hipRTC mirrors NVRTC call for
// call; only the output differs, PTX text or a code object). The entry points load like any
// vendor API (gpu/loader.hpp), named here without the prefix, and rtc_compile is the one
// compile both GPU backends run.
//
//   using NvrtcApi = gpu::RtcApi<gpu::Rtc::Nvrtc>;   // api.create_program: nvrtcCreateProgram

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/gpu/loader.hpp"

namespace tack::runtime::gpu {

using RtcProgram = struct RtcProgramHandle*;

/// (member, the entry point's name after the prefix, "{out}" standing for the output's name).
#define TACK_GPU_RTC_FUNCTIONS(X)                                                           \
    X(version, "Version", int, (int*, int*))                                                \
    X(error_string, "GetErrorString", const char*, (int))                                   \
    X(create_program, "CreateProgram", int,                                                 \
      (RtcProgram*, const char*, const char*, int, const char* const*, const char* const*)) \
    X(compile_program, "CompileProgram", int, (RtcProgram, int, const char* const*))        \
    X(log_size, "GetProgramLogSize", int, (RtcProgram, std::size_t*))                       \
    X(log, "GetProgramLog", int, (RtcProgram, char*))                                       \
    X(output_size, "Get{out}Size", int, (RtcProgram, std::size_t*))                         \
    X(output, "Get{out}", int, (RtcProgram, char*))                                         \
    X(destroy_program, "DestroyProgram", int, (RtcProgram*))

#define TACK_GPU_RTC_POINTER(member, suffix, ret, params) ret(*member) params = nullptr;

/// The entry points, whichever compiler they came from.
struct RtcCalls {
    TACK_GPU_RTC_FUNCTIONS(TACK_GPU_RTC_POINTER)
    std::string library;
};

/// "nvrtcCreateProgram", ... for `prefix` and `output`, in TACK_GPU_RTC_FUNCTIONS's order.
std::vector<std::string> rtc_symbol_names(std::string_view prefix, std::string_view output);

/// The two compilers. Each one's entry points are its library's name (its row of
/// gpu/libraries.cpp) followed by the names above, its output PTX or Code.
enum class Rtc { Nvrtc, Hiprtc };

template <Rtc R>
struct RtcApi : RtcCalls {
    static constexpr std::string_view kLibrary = R == Rtc::Nvrtc ? "nvrtc" : "hiprtc";
    static constexpr std::string_view kOutput = R == Rtc::Nvrtc ? "PTX" : "Code";
    void symbols(std::vector<Symbol>& out) {
        static const std::vector<std::string> names = rtc_symbol_names(kLibrary, kOutput);
        void** slots[] = {
#define TACK_GPU_RTC_SLOT(member, suffix, ret, params) reinterpret_cast<void**>(&member),
            TACK_GPU_RTC_FUNCTIONS(TACK_GPU_RTC_SLOT)
#undef TACK_GPU_RTC_SLOT
        };
        for (std::size_t i = 0; i < names.size(); ++i)
            out.push_back({names[i].c_str(), slots[i], true});
    }
};

/// Compiles `source` (as file `file`) with `options`: the output, or RuntimeError "Kernel
/// '<kernel>': <tool> failed: <error>" with the log and the source. The program is destroyed on
/// both paths.
std::vector<std::uint8_t> rtc_compile(const RtcCalls& api, std::string_view tool,
                                      const std::string& source, const std::string& file,
                                      std::span<const char* const> options,
                                      const std::string& kernel);

}  // namespace tack::runtime::gpu
